// `lmroof run`: ceilings + suite + analysis + claims + report, with progress.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "analysis/claims/claims.h"
#include "reports/text/roof_text.h"
#include "reports/text/claims_text.h"
#include "analysis/io/output_set.h"
#include "analysis/predict/run_prediction.h"
#include "analysis/results/results.h"
#include "analysis/results/warnings.h"
#include "bench/catalogue.h"
#include "bench/memory_budget.h"
#include "bench/paired_rounds.h"
#include "bench/runner.h"
#include "cli/benchmark_flags.h"
#include "cli/commands.h"
#include "cli/measured_rounds.h"
#include "reports/text/model_summary.h"
#include "cli/remeasure.h"
#include "reports/text/summary.h"
#include "analysis/formats/file_names.h"
#include "profiler/device_query.h"
#include "profiler/metrics.h"
#include "reports/html_report.h"

namespace lmroof::cli {

namespace {

// The backend, and the line that says why, printed once every check has passed (an
// error stays the only line on stderr).
struct BackendChoice {
  Backend backend;
  std::string line;
};

BackendChoice choose_backend(const std::string& requested) {
  const DeviceInfo device = query_cuda_device();
  if (requested == "cpu") return {Backend::cpu, "lmroof: backend cpu (requested)"};
  if (requested == "cuda") {
    if (!device.available) throw std::runtime_error("--backend cuda: " + device.reason);
    return {Backend::cuda, fmt::format("lmroof: backend cuda on {} (requested)", device.name)};
  }
  if (device.available) return {Backend::cuda, fmt::format("lmroof: backend cuda on {} (auto: CUDA device found)", device.name)};
  return {Backend::cpu, fmt::format("lmroof: backend cpu (auto: {})", device.reason)};
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    // A pair named twice (--suite norm,norm) is measured once: its samples would
    // otherwise be merged as one run's, twice as many as asked for.
    if (!item.empty() && std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  return items;
}

// Where FLOPs and bytes come from. Hardware counters exist only on the CUDA
// backend through CUPTI; asking for them where they cannot be read is an error,
// "auto" falls back to the cost model and records why.
nlohmann::json choose_metrics(const std::string& requested, Backend backend) {
  if (requested == "analytic") return {{"source", "analytic"}, {"reason", "--metrics analytic was requested"}};
  if (backend == Backend::cpu) {
    const char* why = "the CPU backend reads no hardware counters; FLOPs and bytes come from the cost model";
    if (requested == "cupti") throw std::runtime_error(std::string("--metrics cupti: ") + why);
    return {{"source", "analytic"}, {"reason", why}};
  }
  const profiler::MetricsAvailability a = profiler::MetricsCollector::instance().probe();
  if (!a.available()) {
    if (requested == "cupti") throw std::runtime_error("--metrics cupti: " + a.reason);
    std::fprintf(stderr, "lmroof: metrics analytic (CUPTI counters unavailable: %s)\n", a.reason.c_str());
    return {{"source", "analytic"}, {"reason", "CUPTI counters unavailable: " + a.reason}};
  }
  std::fprintf(stderr, "lmroof: metrics cupti on %s (%zu replay passes per run)\n", a.chip.c_str(), a.passes);
  return {{"source", "cupti"}, {"reason", nullptr}, {"chip", a.chip}, {"metrics", a.metrics},
          {"dropped_metrics", a.dropped_metrics}, {"passes", a.passes}};
}

// Everything a run is given is checked here, before anything is measured.
void check_run_args(const RunArgs& args, const std::vector<std::string>& pairs) {
  if (args.out.empty()) throw std::invalid_argument("--out is empty; name an output folder");
  if (args.suite_given && pairs.empty())
    throw std::invalid_argument(fmt::format("--suite '{}' names no pair; give a comma list such as {}", args.suite,
                                            "norm,decode (see `lmroof list`)"));
  if (args.min_time_given && !(std::isfinite(args.min_time) && args.min_time > 0 && args.min_time <= 60))
    throw std::invalid_argument(fmt::format("--min-time {}: give seconds in (0, 60]", args.min_time));
  if (args.remeasure_budget_given &&
      !(std::isfinite(args.remeasure_budget) && args.remeasure_budget >= 0 && args.remeasure_budget <= kMaxRemeasureBudget))
    throw std::invalid_argument(
        fmt::format("--remeasure-budget {}: give seconds in [0, {:g}] (0 turns it off)", args.remeasure_budget, kMaxRemeasureBudget));
  for (const auto& flag : args.benchmark_flags) check_benchmark_flag(flag);
}

// "--benchmark_filter=X" as given, for the message when nothing matched it.
std::string filter_flag(const std::vector<std::string>& flags) {
  for (auto it = flags.rbegin(); it != flags.rend(); ++it)
    if (it->find("benchmark_filter") != std::string::npos) return *it;
  return "the suite";
}

// The message of a failure after measuring, with where the measurements were kept,
// or why they could not be.
std::string with_kept_measurements(const std::string& what, const KeptMeasurements& kept) {
  if (!kept.folder.empty())
    return fmt::format("{} (nothing was published; the measurements are kept in {}: `lmroof analyze {}` reads them)", what,
                       kept.folder.string(), (kept.folder / formats::kBenchJson).string());
  if (!kept.why_not.empty())
    return fmt::format("{} (nothing was published, and the measurements could not be kept: {})", what, kept.why_not);
  return what;
}

// The files a run reads: a --model config.json (a preset name is no file) and --claims.
std::vector<std::filesystem::path> run_inputs(const RunArgs& args) {
  std::vector<std::filesystem::path> inputs;
  std::error_code ec;
  if (!args.shape_args.model.empty() && std::filesystem::exists(args.shape_args.model, ec))
    inputs.emplace_back(args.shape_args.model);
  if (!args.claims_file.empty()) inputs.emplace_back(args.claims_file);
  return inputs;
}

// A --benchmark_filter chooses among the pairs' runs; the ceilings every run is judged
// against always run ("--benchmark_filter=rmsnorm" once dropped them all, silently).
// Google Benchmark's filter is a regular expression; a leading '-' excludes what it
// matches, which leaves the ceilings running unless it names them (the run then says so).
std::vector<std::string> with_ceilings_kept(std::vector<std::string> flags) {
  constexpr std::string_view kKey = "benchmark_filter=";
  for (auto& flag : flags) {
    const size_t name = flag.find_first_not_of('-');
    if (name == std::string::npos || flag.compare(name, kKey.size(), kKey) != 0) continue;
    const size_t value = name + kKey.size();
    const std::string regex = flag.substr(value);
    if (!regex.empty() && regex.front() != '-' && regex != "all" && regex != ".") flag = flag.substr(0, value) + "^ceiling/|(" + regex + ")";
  }
  return flags;
}

// Whether the run's --benchmark_filter selects any planned run, judged before anything
// is measured (the ceilings run beside every filter, so Google Benchmark alone would
// measure them before finding that no run matched). Its filter is a POSIX extended
// regular expression searched in each name, negated by a leading '-'. Names carry
// suffixes lmroof does not know here (/min_time:..., /real_time): a filter that
// mentions them, or one std::regex cannot read, is left to Google Benchmark.
bool filter_selects_a_run(const std::vector<std::string>& flags, const std::vector<RunSpec>& runs,
                          const std::vector<model::ClaimedComparison>& claimed) {
  const std::string flag = filter_flag(flags);
  const size_t eq = flag.find('=');
  if (flag == "the suite" || eq == std::string::npos) return true;
  std::string pattern = flag.substr(eq + 1);
  const bool negated = !pattern.empty() && pattern.front() == '-';
  if (negated) pattern.erase(0, 1);
  if (pattern.empty() || pattern == "all" || pattern == ".") return true;
  for (const char* suffix : {"min_time", "repeats", "real_time", "manual_time", "iterations", "threads"})
    if (pattern.find(suffix) != std::string::npos) return true;
  try {
    const std::regex regex(pattern, std::regex::extended);
    std::vector<std::string> names;
    for (const auto& r : runs) names.push_back(r.bench_name());
    for (const auto& p : bench::plan_paired_rounds(runs, claimed)) names.push_back(p.bench_name());
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& n) { return std::regex_search(n, regex) != negated; });
  } catch (const std::regex_error&) {
    return true;
  }
}

// The pairs of runs the claims compare that the catalogue does not (claimed_comparisons),
// from the plan, before anything is measured: CPU only, where paired rounds are timed.
std::vector<model::ClaimedComparison> plan_claimed_comparisons(const std::vector<Claim>& claims,
                                                               const std::vector<RunSpec>& runs, Backend backend) {
  if (claims.empty() || backend != Backend::cpu) return {};
  return claimed_comparisons(claims, planned_results(registry_catalogue(), runs));
}

// Whether the measurement holds a benchmark other than a ceiling.
bool any_run_measured(const bench::Measurement& measured) {
  const auto entries = measured.document.find("benchmarks");
  if (entries == measured.document.end()) return false;
  return std::any_of(entries->begin(), entries->end(), [](const nlohmann::ordered_json& e) {
    const auto name = e.find("run_name") != e.end() ? e.find("run_name") : e.find("name");
    return name != e.end() && name->is_string() && !name->get<std::string>().starts_with("ceiling/");
  });
}

}  // namespace

int run(const RunArgs& args) {
  bench::RunnerOptions options;
  options.suite.pairs = split_list(args.suite);
  check_run_args(args, options.suite.pairs);
  // An input the publish would replace (--model out/results.json) is refused first.
  check_inputs_outside_set(args.out, run_inputs(args));
  options.suite.quick = args.quick;
  const ShapeArgs& sa = args.shape_args;
  options.suite.shapes = bench::make_shape_request(sa.model, sa.tokens, sa.batch, sa.context, sa.shapes);
  std::vector<Claim> claims;
  if (args.claims) claims = load_claims(args.claims_file.empty() ? builtin_claims_path() : args.claims_file, registry_catalogue());

  const BackendChoice backend = choose_backend(args.backend);
  options.suite.backend = backend.backend;
  options.suite.dtype = !args.dtype.empty() ? parse_dtype(args.dtype)
                        : options.suite.backend == Backend::cuda ? DType::bf16 : DType::fp32;
  if (options.suite.backend == Backend::cpu && options.suite.dtype != DType::fp32)
    throw std::invalid_argument("the CPU backend runs fp32 only");
  const nlohmann::json metrics = choose_metrics(args.metrics, options.suite.backend);
  options.suite.measure_counters = metrics["source"] == "cupti";
  if (options.suite.backend == Backend::cuda) options.suite.repetitions = bench::kCudaRepetitions;
  if (args.quick)
    options.suite.repetitions = bench::kQuickRepetitions.repetitions,
    options.suite.min_time_s = bench::kQuickRepetitions.min_time_s;
  if (args.repetitions > 0) options.suite.repetitions = args.repetitions, options.suite.compared_repetitions = 0;
  if (args.min_time_given) options.suite.min_time_s = args.min_time;
  options.extra_flags = with_ceilings_kept(args.benchmark_flags);
  // analyze then knows that a run or an A/A control may be missing by choice (analysis/paired_results.cpp).
  if (const std::string filter = filter_flag(args.benchmark_flags); filter != "the suite")
    options.context.emplace_back(model::context::kBenchmarkFilter, filter);
  options.context.emplace_back(model::context::kMetrics, metrics.dump());
  // The one plan of this run: every shape derived, checked and sized against memory
  // before anything runs (a bad pair name or --shape fails here); the runner
  // registers exactly these runs.
  const bench::SuitePlan plan = bench::plan_suite(options.suite);
  // Locks --out (a second run fails here) and proves it writable, still before measuring,
  // and before the memory check, which may time the last-level cache (seconds under a
  // sanitizer): a second run into a busy folder is refused at once.
  OutputSet outputs(args.out);
  const std::filesystem::path bench_json = outputs.staged(std::string(formats::kBenchJson));
  bench::check_memory(plan.runs, options.suite.backend);
  options.runs = plan.runs;
  // Every claim on the ratio of two timed runs gets its pair timed in paired rounds,
  // a catalogue comparison or not (issue #45: one estimator for every claim).
  options.suite.claimed_comparisons = plan_claimed_comparisons(claims, plan.runs, options.suite.backend);

  // After the lock (which also clears what a killed run left), before measuring.
  if (!filter_selects_a_run(args.benchmark_flags, plan.runs, options.suite.claimed_comparisons))
    throw std::invalid_argument(fmt::format("no benchmark matched {} among the {} runs planned; {} was left as it was",
                                            filter_flag(args.benchmark_flags), plan.runs.size(), args.out.string()));

  std::fprintf(stderr, "%s\n", backend.line.c_str());
  for (const auto& note : plan.notes) std::fprintf(stderr, "lmroof: %s\n", note.c_str());
  const auto& specs = plan.runs;
  // What the process will hold at its peak (bench/memory_budget.h), said before measuring.
  const std::string peak = bench::peak_summary(bench::planned_peak_bytes(plan.runs, options.suite.backend));
  if (options.suite.compared_repetitions > 0 && !options.suite.quick && options.suite.backend == Backend::cpu)
    std::fprintf(stderr, "lmroof: %zu runs + ceilings, %d repetitions each (%d for runs the paired rounds time again) -> %s; %s\n",
                 specs.size(), options.suite.repetitions, options.suite.compared_repetitions, args.out.c_str(), peak.c_str());
  else
    std::fprintf(stderr, "lmroof: %zu runs + ceilings, %d repetitions each -> %s; %s\n", specs.size(),
                 options.suite.repetitions, args.out.c_str(), peak.c_str());
  // 1. Measure: the suite with its paired rounds, in memory (bench/measurement.h).
  bench::RunnerSummary summary = bench::run_benchmarks(options);
  if (summary.benchmarks == 0)
    throw std::invalid_argument(fmt::format("no benchmark matched {}; {} was left as it was",
                                            filter_flag(args.benchmark_flags), args.out.string()));
  // The ceilings run beside any filter (with_ceilings_kept): one that matched no run
  // measured nothing to publish.
  if (filter_flag(args.benchmark_flags) != "the suite" && !any_run_measured(summary.measurement))
    throw std::invalid_argument(fmt::format("no benchmark matched {} (only the ceilings ran); {} was left as it was",
                                            filter_flag(args.benchmark_flags), args.out.string()));

  // From here on the measurement exists: when analysing or publishing fails, it is
  // kept in a recovery folder rather than lost.
  model::Results results;
  std::string claims_error;
  RemeasureOutcome remeasured;
  const double remeasure_budget = args.remeasure_budget_given ? args.remeasure_budget
                                  : args.quick                ? kQuickRemeasureBudget
                                                              : kDefaultRemeasureBudget;
  // A default run times every comparison in a second sitting at its end (docs/claims.md#sittings);
  // --quick only the comparisons its claims ask for.
  const RemeasureChoice remeasure_choice = args.remeasure_every_comparison || !args.quick
                                               ? RemeasureChoice::every_comparison
                                               : RemeasureChoice::claims;
  bool bench_json_staged = false;
  try {
    // 1, continued: more rounds where the machine or the noise decided a verdict, chosen
    // from a look at the rounds so far; they join the measurement as data. Some claims
    // problems (a selector that matches two runs) show only against results: the
    // measurements are then published without verdicts rather than lost.
    if (args.claims || remeasure_choice == RemeasureChoice::every_comparison) {
      try {
        remeasured = remeasure(options, claims, remeasure_budget, remeasure_choice, summary.measurement);
      } catch (const ClaimsFileError& e) {
        claims_error = e.what();
      }
    }
    // bench.json, written once and whole, with every round: the only contract between
    // measuring and analysing (`lmroof analyze` of it gives these results).
    bench::write_bench_json(summary.measurement, bench_json);
    bench_json_staged = true;
    // 2. The results, built once from all rounds (the suite and metrics travel in the
    // measurement's context, bench/machine_context.h).
    results = build_results(measured_rounds(summary.measurement, bench_json), {});
    if (results.ceilings.empty() && !results.runs.empty())
      std::fprintf(stderr, "lmroof: warning: no ceiling was measured (%s excluded them all): every run is judged against no roof\n",
                   filter_flag(args.benchmark_flags).c_str());
    // 3. Predict (--model): every run whose pair declares a model mapping, by `lmroof
    // predict`'s model from this run's own ceilings, to be checked against what was measured.
    if (options.suite.shapes.model)
      if (const auto why = predict::predict_runs(results, *options.suite.shapes.model))
        std::fprintf(stderr, "lmroof: runs not predicted: %s\n", why->c_str());
    // 4. Check the claims.
    if (args.claims && claims_error.empty()) {
      try {
        results.claims = check_claims(claims, results);
        refresh_warnings(results);  // the untrustworthy claims among them
      } catch (const ClaimsFileError& e) {
        claims_error = e.what();
      }
    }
    // 5. Publish, as one complete set.
    write_results(results, outputs.staged(std::string(formats::kResultsJson)));
    write_report(results, outputs.staged("report.html"));
    outputs.publish();
  } catch (const bench::BenchJsonNotWritten& e) {  // measured, but bench.json did not fit (a full disk)
    throw std::runtime_error(with_kept_measurements(
        e.what(), outputs.keep_for_recovery({}, {{std::string(formats::kBenchJson), e.json}})));
  } catch (const std::exception& e) {
    // Before bench.json was staged (the look before re-measuring failed), the
    // measurement is kept from memory.
    // if/else rather than ?:, whose arms' temporaries GCC 12 warns of, falsely
    // (-Wmaybe-uninitialized on the flags that say which arm's to destroy).
    KeptMeasurements kept;
    if (bench_json_staged)
      kept = outputs.keep_for_recovery({std::string(formats::kBenchJson), std::string(formats::kKernelTracesJson)});
    else
      kept = outputs.keep_for_recovery({}, {{std::string(formats::kBenchJson), bench::bench_json_text(summary.measurement)}});
    if (kept.folder.empty() && kept.why_not.empty()) throw;
    throw std::runtime_error(with_kept_measurements(e.what(), kept));
  }

  if (!claims_error.empty())
    throw std::invalid_argument(fmt::format("{} (the measurements are in {}; check them with `lmroof check CLAIMS {}`)",
                                            claims_error, args.out.string(), (args.out / formats::kResultsJson).string()));
  std::printf("%s", format_runs_table(results).c_str());
  if (const std::string predicted = format_predictions_table(results); !predicted.empty())
    std::printf("\n%s", predicted.c_str());
  const std::string model_line = format_model_line(results);
  if (!model_line.empty()) std::printf("\n%s", model_line.c_str());
  if (args.claims) {
    // The claims are checked on whatever runs the suite made: with --model, the model's.
    if (options.suite.shapes.model)
      std::printf("\nclaims checked on runs derived from %s:\n", options.suite.shapes.model->name.c_str());
    std::printf("\n%s", format_claims_text(results.claims).c_str());
    std::printf("%s", format_floors_and_controls(results).c_str());
  }
  if (const std::string line = format_remeasure(remeasured, remeasure_budget); !line.empty())
    std::printf("%s\n", line.c_str());
  std::printf("\n%s", roof_faults_summary(results).c_str());
  // What the measurement is worth, as the report's first screen lists it (issue 45).
  for (const auto& w : results.decided().warnings)
    if (w.kind == model::WarningKind::contention || w.kind == model::WarningKind::disturbed_runs)
      std::printf("warning: %s\n", w.text.c_str());
  std::printf("\nwrote %s, %s and %s\n", (args.out / formats::kResultsJson).c_str(), (args.out / "report.html").c_str(),
              (args.out / formats::kBenchJson).c_str());
  if (summary.failed + remeasured.failed > 0) {
    std::fprintf(stderr, "lmroof: %d benchmark(s) could not run:\n", summary.failed + remeasured.failed);
    for (const auto& e : summary.errors) std::fprintf(stderr, "  %s\n", e.c_str());
    for (const auto& e : remeasured.errors) std::fprintf(stderr, "  %s\n", e.c_str());
    return 1;
  }
  return 0;
}

}  // namespace lmroof::cli
