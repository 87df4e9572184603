#include "bench/runner.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "bench/contention.h"
#include "bench/kernel_trace_store.h"
#include "bench/machine_context.h"
#include "bench/paired_rounds.h"
#include "analysis/model/results_model.h"

namespace lmroof::bench {

namespace {

// The benchmark name without the suffixes Google Benchmark appends ("/min_time:0.050/repeats:5/real_time",
// "/iterations:1/manual_time").
std::string display_name(const std::string& run_name) {
  std::string out = run_name;
  for (const char* marker : {"/min_time:", "/iterations:", "/repeats:", "/real_time", "/manual_time"})
    if (auto pos = out.find(marker); pos != std::string::npos) out.erase(pos);
  return out;
}

// One line per finished benchmark: "[ 3/36] name   median 12.3 ms   41.2 GB/s".
class ProgressReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit ProgressReporter(int total) : total_(total), start_(std::chrono::steady_clock::now()) {}

  bool ReportContext(const Context&) override { return true; }

  // Google Benchmark reports a benchmark's repetitions first and its aggregates
  // (mean, median, stddev, cv) in a second call; one line is printed per benchmark.
  void ReportRuns(const std::vector<Run>& runs) override {
    if (runs.empty()) return;
    record_ceiling_rates(runs);
    const Run& first = runs.front();
    const bool has_aggregates_to_come = first.run_type == Run::RT_Iteration && first.repetitions > 1 && !first.error_occurred;
    if (has_aggregates_to_come) return;
    ++done_;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string name = display_name(first.run_name.str());
    if (auto phase = first.counters.find(std::string(model::counter::kCeilingPhase));
        phase != first.counters.end() && phase->second.value == 1)
      name += " (again, after the suite)";
    if (first.error_occurred) {
      ++failed_;
      errors_.push_back(fmt::format("{}: {}", name, first.error_message));
      std::fprintf(stderr, "[%3d/%d %4.0fs] %-72s skipped: %s\n", done_, total_, elapsed, name.c_str(),
                   first.error_message.c_str());
      return;
    }
    const Run* typical = &first;
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") typical = &r;
    const double seconds = typical->real_accumulated_time / static_cast<double>(typical->iterations);
    double rate = 0;
    const char* rate_unit = "";
    auto counter = [&](std::string_view key) {
      auto it = typical->counters.find(std::string(key));
      return it == typical->counters.end() ? -1.0 : it->second.value;
    };
    if (counter(model::counter::kByteRate) >= 0) {
      rate = counter(model::counter::kByteRate) / 1e9, rate_unit = "GB/s";
    } else if (counter(kCeilingBytesCounter) >= 0) {
      rate = counter(kCeilingBytesCounter) / seconds / 1e9, rate_unit = "GB/s";
    } else if (counter(model::counter::kCurveReadBytes) >= 0) {
      rate = counter(model::counter::kCurveReadBytes) / seconds / 1e9, rate_unit = "GB/s";
    } else if (counter(kCeilingFlopsCounter) >= 0) {
      rate = counter(kCeilingFlopsCounter) / seconds / 1e9, rate_unit = "GFLOP/s";
    }
    std::fprintf(stderr, "[%3d/%d %4.0fs] %-72s %9.3f ms %8.1f %s\n", done_, total_, elapsed, name.c_str(),
                 seconds * 1e3, rate, rate_unit);
  }

  // The peak ceilings (bytes or FLOPs per iteration) whose repetitions at one phase
  // spread beyond model::kCeilingSpreadBound, or whose best repetition was contended
  // (bench/contention.h: the roof is that repetition, measured low), with that phase.
  std::vector<std::pair<std::string, int>> spread_ceilings() const {
    std::vector<std::pair<std::string, int>> out;
    for (const auto& [key, rates] : ceiling_rates_) {
      const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
      const bool spread = rates.size() >= 2 && hi->first > 0 && (hi->first - lo->first) / hi->first > model::kCeilingSpreadBound;
      if (spread || hi->second) out.push_back(key);
    }
    return out;
  }

  int failed() const { return failed_; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  void record_ceiling_rates(const std::vector<Run>& runs) {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred || r.iterations <= 0 || !(r.real_accumulated_time > 0)) continue;
      const std::string name = display_name(r.run_name.str());
      const bool curve = name.rfind(model::kCurvePrefix, 0) == 0;  // a bandwidth-curve point: a peak too
      if (name.rfind("ceiling/", 0) != 0 && !curve) continue;
      auto value = [&](std::string_view key) {
        const auto it = r.counters.find(std::string(key));
        return it == r.counters.end() ? -1.0 : it->second.value;
      };
      const double work = curve                                  ? value(model::counter::kCurveReadBytes)
                          : value(kCeilingBytesCounter) >= 0 ? value(kCeilingBytesCounter)
                                                              : value(kCeilingFlopsCounter);
      if (!(work > 0)) continue;  // the launch ceilings: a median, not a peak
      const int phase = value(model::counter::kCeilingPhase) > 0 ? 1 : 0;
      ceiling_rates_[{name, phase}].emplace_back(work * static_cast<double>(r.iterations) / r.real_accumulated_time,
                                                 value(model::counter::kMachineContended) > 0);
    }
  }

  // {rate, contended} per repetition
  std::map<std::pair<std::string, int>, std::vector<std::pair<double, bool>>> ceiling_rates_;
  int total_;
  int done_ = 0;
  int failed_ = 0;
  std::vector<std::string> errors_;
  std::chrono::steady_clock::time_point start_;
};

// Google Benchmark's JSON reporter, writing into memory: Google Benchmark never checks
// its own writes (a full disk left a truncated bench.json that nothing noticed), so
// lmroof writes the file itself, every write checked, when the suite is done, and
// still holds the measurements when that fails. Google Benchmark points a file
// reporter at its own stream before each call; each call points it back here.
class JsonInMemory final : public benchmark::JSONReporter {
 public:
  bool ReportContext(const Context& context) override {
    to_memory();
    return JSONReporter::ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    to_memory();
    JSONReporter::ReportRuns(runs);
  }
  void Finalize() override {
    to_memory();
    JSONReporter::Finalize();
  }
  std::string text() const { return text_.str(); }

 private:
  void to_memory() {
    SetOutputStream(&text_);
    SetErrorStream(&text_);
  }
  std::ostringstream text_;
};

// Google Benchmark's JSON text of one session, with its summary.
struct Session {
  RunnerSummary summary;
  std::string json;  // empty when nothing ran
};

// Runs what is registered with the caller's extra flags, with progress; `spread` (when
// given) receives the ceilings whose repetitions spread too far. The JSON stays text
// until the caller is done measuring: a parsed document is several times its size, and
// the ceilings measured again hold the largest arrays of all.
Session run_registered(const RunnerOptions& options, int total, std::vector<std::pair<std::string, int>>* spread = nullptr) {
  // Google Benchmark takes a file reporter only with --benchmark_out, and opens that
  // file: /dev/null, as JsonInMemory never writes to it.
  std::vector<std::string> args = {"lmroof", "--benchmark_out=/dev/null", "--benchmark_out_format=json"};
  args.insert(args.end(), options.extra_flags.begin(), options.extra_flags.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) throw std::invalid_argument(fmt::format("unrecognized benchmark flag '{}'", argv[1]));
  ProgressReporter progress(total);
  // Google Benchmark's own complaints ("Failed to match any benchmarks against regex")
  // are held back: lmroof says the same in one line of its own.
  std::ostringstream complaints;
  progress.SetErrorStream(&complaints);
  JsonInMemory json;
  RunnerSummary summary;
  summary.benchmarks = static_cast<int>(benchmark::RunSpecifiedBenchmarks(&progress, &json));
  summary.failed = progress.failed();
  summary.errors = progress.errors();
  if (spread) *spread = progress.spread_ceilings();
  benchmark::ClearRegisteredBenchmarks();
  if (summary.benchmarks > 0 && !complaints.str().empty()) std::fputs(complaints.str().c_str(), stderr);
  if (summary.benchmarks == 0) return {summary, {}};  // nothing measured
  return {summary, json.text()};
}

// The session's measurement, with the kernel traces taken during it (CUDA runs only).
Measurement measurement_of(const Session& session) {
  Measurement m = measurement_from_text(session.json);
  m.kernel_traces = take_kernel_traces();
  return m;
}

// The other processes' CPU over the session, in its context (model::context::kContention):
// known only at its end, so it is added to the document rather than to Google
// Benchmark's context, which is written first.
void record_other_processes(Measurement& m, const OtherProcesses& others) {
  nlohmann::json summary = others.summary();
  if (!summary.is_object()) return;
  m.document["context"][std::string(model::context::kContention)] = summary.dump();
}

}  // namespace

RunnerSummary run_benchmarks(const RunnerOptions& options) {
  benchmark::ClearRegisteredBenchmarks();
  // The caller's entries first: one for a key the machine facts also record (the
  // suite, with a model config) wins.
  for (const auto& [key, value] : options.context) record_context(key, value);
  record_machine_context(options.suite);
  int total = 0;
  if (options.include_ceilings) total += register_ceiling_benchmarks(options.suite);
  if (options.include_pairs) {
    register_pair_benchmarks(options.suite, options.runs);
    total += static_cast<int>(options.runs.size());
    total += register_paired_benchmarks(options.suite, options.runs);  // after the runs: their workloads are built again
    if (options.include_ceilings) total += register_ceiling_rechecks(options.suite);
  }

  clear_kernel_traces();
  OtherProcesses others;  // who else took the CPU while this measured (bench/contention.h)
  others.start();
  std::vector<std::pair<std::string, int>> spread;
  const Session suite = run_registered(options, total, &spread);
  RunnerSummary summary = suite.summary;
  if (summary.benchmarks == 0) return summary;
  Session again_session;
  // A ceiling whose repetitions disagreed beyond model::kCeilingSpreadBound is measured
  // once more (analysis marks it unstable if the second attempt disagrees as well).
  if (options.include_ceilings && !spread.empty()) {
    benchmark::ClearRegisteredBenchmarks();
    if (const int again = register_ceiling_remeasures(options.suite, spread); again > 0) {
      std::fprintf(stderr,
                   "lmroof: %d ceiling(s) or curve point(s) spread beyond %.0f%% between repetitions, or were measured "
                   "while another process took a core: measuring them again\n",
                   again, 100 * model::kCeilingSpreadBound);
      again_session = run_registered(options, again);
      summary.failed += again_session.summary.failed;
      summary.errors.insert(summary.errors.end(), again_session.summary.errors.begin(), again_session.summary.errors.end());
    }
  }
  summary.measurement = measurement_of(suite);
  if (!again_session.json.empty()) summary.measurement.join(measurement_of(again_session));
  record_other_processes(summary.measurement, others);
  return summary;
}

RunnerSummary run_extra_rounds(const RunnerOptions& options, const std::vector<PairedPlan>& plans) {
  benchmark::ClearRegisteredBenchmarks();
  clear_kernel_traces();
  const int total = register_extra_paired_rounds(options.suite, plans);
  OtherProcesses others;
  others.start();
  const Session session = run_registered(options, total);
  RunnerSummary summary = session.summary;
  if (summary.benchmarks > 0) {
    summary.measurement = measurement_of(session);
    record_other_processes(summary.measurement, others);
  }
  return summary;
}

}  // namespace lmroof::bench
