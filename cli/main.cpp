// lmroof: measure paired LM operators, place them on the machine's measured
// roofline, check the lecture's claims, and write a self-contained report.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "analysis/io/interrupt_cleanup.h"
#include "bench/adaptive_repetitions.h"
#include "cli/benchmark_flags.h"
#include "cli/commands.h"
#include "cli/remeasure.h"
#include "cli/shape_options.h"
#include "reports/text/terminal_text.h"

namespace {

// Each subcommand's --help lists the exit codes that command can give (CLI11 copies the
// app's footer into subcommands, so every one sets its own). Errors are one line on
// stderr ("lmroof: error: ..."), from main's catch: exit 2.
constexpr const char* kAppExitCodes =
    "Exit codes (each command's --help lists its own): 0 success; 1 run: a benchmark could not run, check: a claim\n"
    "fails, compare: a regression; 2 bad input or a refused output; 130/143 interrupted by SIGINT/SIGTERM.";
constexpr const char* kInterrupted =
    "\n130/143 interrupted by SIGINT/SIGTERM (earlier outputs kept, no temporary files left).";
const std::string kRunExitCodes = std::string(
    "Exit codes: 0 done; 1 some benchmarks could not run (listed on stderr; the results and report are written);\n"
    "2 bad input or a refused output, found before anything is measured (one line on stderr, nothing written),\n"
    "or a claims file that fails only against the results (one line on stderr; the measurements are published\n"
    "in --out, without verdicts);") + kInterrupted;
const std::string kReportExitCodes = std::string(
    "Exit codes: 0 written; 2 bad input (results that cannot be read or are not lmroof.results/1) or a refused\n"
    "output (one line on stderr, nothing written);") + kInterrupted;
const std::string kCeilingsExitCodes = std::string(
    "Exit codes: 0 measured; 2 bad input (--backend cuda without a device) or a refused --json file (one line on\n"
    "stderr, nothing written);") + kInterrupted;
constexpr const char* kListExitCodes =
    "Exit codes: 0 listed; 2 bad input: an unknown pair or model, a bad --shape, --context, --tokens or --batch, or\n"
    "a shape too large to run (one line on stderr).";
const std::string kAnalyzeExitCodes = std::string(
    "Exit codes: 0 written, whatever the claims' verdicts (`lmroof check` exits 1 on a failing claim); 2 bad input\n"
    "or a refused output (one line on stderr, nothing written);") + kInterrupted;
constexpr const char* kCheckExitCodes =
    "Exit codes: 0 no claim fails; 1 a claim fails (with --strict: or is inconclusive); 2 bad input (a file that\n"
    "cannot be read, an unknown field, pair or metric, results that are not lmroof.results/1).";
constexpr const char* kCountersExitCodes =
    "Exit codes: 0 listed; 2 the counters cannot be checked (no GPU or no CUPTI, an unknown chip or metric; one\n"
    "line on stderr).";
const std::string kCompareExitCodes = std::string(
    "Exit codes: 0 no significant regression beyond --threshold; 1 a regression: a run significantly slower by\n"
    "more than --threshold (each listed on stderr; the comparison is still printed and --html written); 2 bad\n"
    "input (a file that cannot be read, no run in common, a bad --threshold) or a refused --html output (one line\n"
    "on stderr);") + kInterrupted;
constexpr const char* kPredictExitCodes =
    "Exit codes: 0 predicted; 2 bad input: an unknown model or device, a device file with a missing field or a\n"
    "sparse-looking peak, a context or batch below 1, a KV cache beyond 64-bit arithmetic, or a refused -o\n"
    "output (one line on stderr, nothing written).";
const std::string kMergeExitCodes = std::string(
    "Exit codes: 0 written; 2 bad input (a results file that cannot be read, not one --label per file) or a\n"
    "refused output (one line on stderr);") + kInterrupted;

// An option given an empty value (--model '', --min-time '') would otherwise read as
// "not given" and run the defaults, or as 0: refused, naming the option.
void refuse_empty_values(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_type_size() == 0 || option->count() == 0) continue;  // a flag, or not given
    for (const auto& value : option->results())
      if (value.empty()) {
        const std::string name = option->get_name(false, false).empty() ? option->get_name(true) : option->get_name(false, false);
        throw std::invalid_argument(fmt::format("{} is empty; give a value", name));
      }
  }
}

// The error as one line: a newline or other control character from the input (a
// claim id, a file name) is shown escaped, never printed raw to the terminal.
std::string one_line(std::string_view text) { return lmroof::report::printable(text); }

}  // namespace

int main(int argc, char** argv) {
  using namespace lmroof;
  // First, before any thread exists: an interrupt then removes unfinished outputs.
  install_interrupt_cleanup("lmroof");
  CLI::App app{"lmroof: roofline measurements of paired LM operators (CS336 lecture 3)", "lmroof"};
  app.footer(kAppExitCodes);
  app.require_subcommand(1);
  app.set_version_flag("--version", "lmroof 0.1.0");

  cli::RunArgs run_args;
  auto* run = app.add_subcommand("run", "Measure ceilings, run the suite, analyze, check claims, write the report");
  run->footer(
      "Outputs: --out holds one run's complete set (bench.json, results.json, report.html, report.*.vl.json) or the\n"
      "previous one, never a mix: files are written into a private staging folder and published when all succeeded.\n"
      "A second run into the same --out fails at once (exit 2).\n" + kRunExitCodes);
  auto* suite_opt = run->add_option("--suite", run_args.suite, "Pairs to run: a name or a comma list (see `lmroof list`); all by default");
  run->add_flag("--quick", run_args.quick,
                fmt::format("Small shapes, {} repetitions of at least {} s each (seconds in all, for smoke tests)",
                            bench::kQuickRepetitions.repetitions, bench::kQuickRepetitions.min_time_s));
  run->add_option("--out", run_args.out, "Output folder for results.json, report.html and bench.json")->capture_default_str();
  run->add_option("--backend", run_args.backend, "cpu, cuda, or auto (cuda when a device is present)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))->capture_default_str();
  run->add_option("--dtype", run_args.dtype, "fp32 or bf16 (default: fp32 on cpu, bf16 on cuda)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  run->add_option("--metrics", run_args.metrics, "Where FLOPs and bytes come from: auto, cupti or analytic")
      ->check(CLI::IsMember({"auto", "cupti", "analytic"}))->capture_default_str();
  run->add_option("--repetitions", run_args.repetitions,
                  fmt::format("Repetitions per benchmark (default {}, {} for runs the paired rounds time again, {} on CUDA, {} "
                              "with --quick; bench/adaptive_repetitions.h)",
                              bench::kDefaultRepetitions.repetitions, bench::kComparedRepetitions.repetitions,
                              bench::kCudaRepetitions, bench::kQuickRepetitions.repetitions))
      ->check(CLI::Range(1, 1000));
  auto* min_time_opt = run->add_option("--min-time", run_args.min_time, "Minimum seconds per repetition, in (0, 60]");
  auto* remeasure_opt = run->add_option(
      "--remeasure-budget", run_args.remeasure_budget,
      fmt::format("Seconds for a second sitting of paired rounds at the end of the run: of every comparison (default "
                  "run), or with --quick of those behind claims that fail or are inconclusive for cause machine or noise "
                  "(then implementation); in [0, {:g}], 0 turns it off (default {:g}, {:g} with --quick)",
                  cli::kMaxRemeasureBudget, cli::kDefaultRemeasureBudget, cli::kQuickRemeasureBudget));
  // Hidden (no group: not in --help), for tests that need a re-measurement for sure.
  run->add_flag("--remeasure-every-comparison", run_args.remeasure_every_comparison,
                "Re-measure every paired comparison within the budget, whatever the claims say (for tests)")
      ->group("");
  auto* run_claims = run->add_option("--claims", run_args.claims_file,
                                     "Claims file to check (default: the built-in lecture claims)")
                         ->check(CLI::ExistingFile);
  // As in analyze: claims given and turned off at once would drop them silently.
  run->add_flag("!--no-claims", run_args.claims, "Do not check claims")->excludes(run_claims);
  run->add_option("--benchmark-flag", run_args.benchmark_flags,
                  "Extra Google Benchmark flag, repeatable (e.g. --benchmark-flag=--benchmark_filter=rmsnorm: the ceilings still run). Passed: " +
                      cli::allowed_benchmark_flags() + "; the others are refused with the reason");
  cli::add_shape_options(*run, run_args.shape_args);

  std::string results_in, html_out;
  auto* report = app.add_subcommand("report", "Write report.html (and its .vl.json charts) from a results.json");
  report->add_option("results", results_in, "results.json")->required();
  report->add_option("-o,--output", html_out, "HTML file to write (its charts go beside it); replaces only a regular file")->required();
  report->footer(kReportExitCodes);

  std::string ceil_backend = "auto", ceil_json;
  bool ceil_quick = false;
  auto* ceil = app.add_subcommand("ceilings", "Measure this machine's roofs: bandwidth, FP32 FMA peak, GEMM peak");
  ceil->add_option("--backend", ceil_backend, "cpu, cuda or auto")->check(CLI::IsMember({"cpu", "cuda", "auto"}))->capture_default_str();
  ceil->add_flag("--quick", ceil_quick, "Smaller arrays, fewer repetitions");
  ceil->add_option("--json", ceil_json, "Also write the Google Benchmark JSON here; replaces only a regular file");
  ceil->footer(kCeilingsExitCodes);

  cli::ListArgs list_args;
  auto* list = app.add_subcommand("list", "List pairs, variants, implementation levels and suite shapes");
  list->add_flag("--json", list_args.json, "Machine-readable output");
  list->add_flag("--models", list_args.models, "List the built-in model presets with their dimensions");
  list->add_flag("--quick", list_args.quick, "The shapes --quick runs");
  list->add_option("--backend", list_args.backend, "Whose suite shapes: cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))->capture_default_str();
  list->add_option("--suite", list_args.suite, "Pairs to list: a name or a comma list; all by default")->delimiter(',');
  cli::add_shape_options(*list, list_args.shape_args);
  list->footer(kListExitCodes);

  cli::AnalyzeArgs analyze_args;
  auto* analyze = app.add_subcommand(
      "analyze", "Turn Google Benchmark JSON from lmroof_bench into results.json, with the claims' verdicts");
  analyze->add_option("bench_json", analyze_args.bench_json, "Google Benchmark JSON (--benchmark_out_format=json)")->required();
  analyze->add_option("-o,--output", analyze_args.out, "results.json to write; replaces only a regular file")->required();
  auto* analyze_claims = analyze->add_option("--claims", analyze_args.claims_file,
                                             "Claims file to check (default: the built-in lecture claims)")
                             ->check(CLI::ExistingFile);
  analyze->add_flag("!--no-claims", analyze_args.claims, "Do not check claims")->excludes(analyze_claims);
  analyze->footer(kAnalyzeExitCodes + "\n`lmroof report RESULTS.json -o report.html` then shows the verdicts.");

  cli::MigrateArgs migrate_args;
  auto* migrate = app.add_subcommand(
      "migrate", "Add this build's pair catalogue to a bench.json measured before lmroof recorded it, for analyze; "
                 "or write a trace.json of schema lmroof.trace/1 as lmroof.trace/2, for check and compare");
  migrate->add_option("bench_json", migrate_args.bench_json,
                      "bench.json without a recorded catalogue, or a trace.json of schema lmroof.trace/1")->required();
  migrate->add_option("-o,--output", migrate_args.out, "file to write; replaces only a regular file")->required();

  cli::CheckArgs check_args;
  auto* check = app.add_subcommand("check", "Check claims against a results.json, verdict first");
  check->add_option("files", check_args.files, "[CLAIMS.yaml] RESULTS.json (built-in lecture claims when CLAIMS is omitted)")
      ->required()->expected(1, 2);
  check->add_option("--format", check_args.format, "text (for a terminal), json (schema lmroof.check/1) or markdown (a table)")
      ->check(CLI::IsMember({"text", "json", "markdown"}))->capture_default_str();
  check->add_flag("--strict", check_args.strict, "Inconclusive counts as failing (exit 1)");
  check->footer(std::string(kCheckExitCodes) +
                "\nColour on a terminal; set NO_COLOR to turn it off. Verdicts: docs/claims.md.");

  std::string counters_chip;
  std::vector<std::string> counters_metrics;
  bool counters_json = false;
  auto* counters = app.add_subcommand(
      "counters", "Which GPU counters a run reads: on this device, or offline for a chip name (e.g. --chip GH100)");
  counters->add_option("--chip", counters_chip, "CUPTI chip name (GH100 for H100/H200, GB100, AD102, ...): check offline, no GPU needed");
  counters->add_option("--metrics", counters_metrics, "Metrics to check, comma separated (default: the roofline metrics)")
      ->delimiter(',');
  counters->add_flag("--json", counters_json, "Machine-readable output");
  counters->footer(kCountersExitCodes);

  cli::CompareArgs compare_args;
  auto* compare = app.add_subcommand(
      "compare", "Compare two results files run by run: speedup, interval, U test, roof fraction; exit 1 on a regression. "
                 "Or two trace.json files of lmroof trace: step time, busy time, time per class and op shape, fraction of roof "
                 "per side (docs/trace.md)");
  compare->add_option("base", compare_args.base, "BASE results.json or trace.json (before)")->required();
  compare->add_option("new", compare_args.next, "NEW results.json or trace.json (after)")->required();
  compare->add_option("--format", compare_args.format, "text, json (schema lmroof.compare/1, docs/compare.md) or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))->capture_default_str();
  compare->add_option("--html", compare_args.html, "Also write a self-contained HTML page here");
  compare->add_option("--threshold", compare_args.threshold,
                      "Slowdown that counts as a regression (exit 1) when significant: 5% or 0.05")->capture_default_str();
  compare->footer(kCompareExitCodes + "\nMatching, statistics and the JSON schema: docs/compare.md.\n"
                  "Two trace.json files (lmroof trace --out DIR): the change per class and per op shape, text, json\n"
                  "(lmroof.trace-compare/2) or markdown, and --html; exit 0, or 2 on bad input (docs/trace.md).");

  cli::MergeArgs merge_args;
  auto* merge = app.add_subcommand("merge", "One fleet report across machines: rooflines, pairs per machine, claims x machines");
  merge->add_option("results", merge_args.inputs,
                    "results.json files, one per machine, or merged files from an earlier --results (their machines keep their labels)")
      ->required();
  merge->add_option("--label", merge_args.labels, "Name of each machine, in input order, one per --label (default: from its results)")
      ->allow_extra_args(false);
  merge->add_option("-o,--output", merge_args.html, "Fleet report HTML to write")->required();
  merge->add_option("--results", merge_args.results,
                    "Also write the merged results (schema lmroof.fleet/1) here: an input to a later merge");
  merge->footer(kMergeExitCodes);

  cli::PredictArgs predict_args;
  auto* predict = app.add_subcommand(
      "predict", "A model's KV cache, weights and speed of light (prefill, decode per batch) on named devices or here");
  predict->add_option("--model", predict_args.model, "A preset (lmroof list --models) or a config.json")->required();
  predict->add_option("--device", predict_args.devices,
                      "Repeatable: a device of the table (analysis/predict/devices.json), 'all', 'this' (ceilings measured\n"
                      "now, a progress line on stderr) or a results.json (its ceilings); default: H100 SXM");
  predict->add_option("--device-file", predict_args.device_files,
                      "Repeatable: more devices, in the table's format (docs/predict.md); an entry replaces a same-named one");
  predict->add_option("--context", predict_args.context, "Contexts: a list (1k,8k) or a doubling range (1k..128k)")
      ->capture_default_str();
  predict->add_option("--batch", predict_args.batch, "Decode batch sizes: a list (1,8,32)")->capture_default_str();
  predict->add_option("--dtype", predict_args.dtype, "Weights, KV cache and compute: bf16, fp16, fp8 or fp32")
      ->capture_default_str();
  predict->add_option("--format", predict_args.format, "text, json (schema docs/predict.schema.json) or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))->capture_default_str();
  predict->add_option("-o,--output", predict_args.html, "Also write here: a self-contained HTML page with the charts (.html), or the JSON (.json)");
  predict->footer(kPredictExitCodes);

  cli::TraceArgs trace_args;
  auto* trace = app.add_subcommand(
      "trace", "A PyTorch profiler trace (.json/.json.gz, or a folder of ranks) on the device's roofs: class table, ops, claims");
  trace->add_option("traces", trace_args.inputs, "TRACE.json[.gz] files or folders of per-rank traces")->required();
  trace->add_option("--device", trace_args.device, "A device of the table (analysis/predict/devices.json): overrides the trace's");
  trace->add_option("--ceilings", trace_args.ceilings, "An lmroof results.json: judge the ops at the roofs measured there");
  trace->add_option("--steps", trace_args.steps, "all, or N: only ProfilerStep#N")->capture_default_str();
  trace->add_option("--out", trace_args.out, "Folder for trace.json, trace.csv and trace.html (published as a set)")
      ->capture_default_str();
  trace->add_option("--format", trace_args.format, "Terminal summary: text, json (schema docs/trace.schema.json) or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))->capture_default_str();
  trace->add_option("--claims", trace_args.claims, "A claims file with kind class_share (docs/trace.md): exit 1 when one fails");
  trace->add_option("--what-if", trace_args.what_if,
                    "A device of the table, or an lmroof results.json's measured roofs: the step retimed there (repeatable)");
  trace->add_option("--threads", trace_args.threads, "1, or 2: a second thread reads and inflates ahead of the parser")
      ->capture_default_str();
  trace->footer(std::string(
      "Exit codes: 0 written (and no --claims claim fails); 1 a --claims claim fails (the outputs are written); 2 bad\n"
      "input (not gzip, not JSON, truncated, no traceEvents, an unknown --device or --what-if, a --ceilings file that is\n"
      "not an lmroof results.json) or a refused output (one line on stderr naming the file, byte offset or event, and field);") +
      kInterrupted);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "lmroof: error: %s (see lmroof %s--help)\n", e.what(),
                 app.get_subcommands().empty() ? "" : (app.get_subcommands()[0]->get_name() + " ").c_str());
    return 2;
  }

  run_args.suite_given = suite_opt->count() > 0;
  run_args.min_time_given = min_time_opt->count() > 0;
  run_args.remeasure_budget_given = remeasure_opt->count() > 0;
  try {
    for (const CLI::App* command : app.get_subcommands()) refuse_empty_values(*command);
    if (*run) return cli::run(run_args);
    if (*report) return cli::report(results_in, html_out);
    if (*ceil) return cli::ceilings(ceil_backend, ceil_quick, ceil_json);
    if (*list) return cli::list(list_args);
    if (*analyze) return cli::analyze(analyze_args);
    if (*migrate) return cli::migrate(migrate_args);
    if (*counters) return cli::counters(counters_chip, counters_metrics, counters_json);
    if (*compare) return cli::compare(compare_args);
    if (*merge) return cli::merge(merge_args);
    if (*check) return cli::check(check_args);
    if (*predict) return cli::predict(predict_args);
    if (*trace) return cli::trace_command(trace_args);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "lmroof: error: out of memory (std::bad_alloc) in `lmroof %s`; a smaller input or shape needs less\n",
                 app.get_subcommands().empty() ? "" : app.get_subcommands()[0]->get_name().c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lmroof: error: %s\n", one_line(e.what()).c_str());
    return 2;
  }
  return 2;
}
