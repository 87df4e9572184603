#include "bench/runner.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace lmroof::bench {

namespace {

// One line per finished benchmark: "[ 3/36] name   median 12.3 ms   41.2 GB/s".
class ProgressReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit ProgressReporter(int total) : total_(total), start_(std::chrono::steady_clock::now()) {}

  bool ReportContext(const Context&) override { return true; }

  void ReportRuns(const std::vector<Run>& runs) override {
    if (runs.empty()) return;
    ++done_;
    const Run& first = runs.front();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (first.error_occurred) {
      ++failed_;
      errors_.push_back(fmt::format("{}: {}", first.benchmark_name(), first.error_message));
      std::fprintf(stderr, "[%3d/%d %5.0fs] %-70s skipped: %s\n", done_, total_, elapsed,
                   first.benchmark_name().c_str(), first.error_message.c_str());
      return;
    }
    double median_s = -1, rate = 0;
    const char* rate_unit = "";
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      if (r.run_type != Run::RT_Aggregate && runs.size() > 1) continue;
      median_s = r.real_accumulated_time / static_cast<double>(r.iterations);
      auto bytes = r.counters.find("bytes/s");
      auto ceiling_bytes = r.counters.find(kCeilingBytesCounter);
      auto ceiling_flops = r.counters.find(kCeilingFlopsCounter);
      if (bytes != r.counters.end()) {
        rate = bytes->second.value / 1e9;
        rate_unit = "GB/s";
      } else if (ceiling_bytes != r.counters.end()) {
        rate = ceiling_bytes->second.value / median_s / 1e9;
        rate_unit = "GB/s";
      } else if (ceiling_flops != r.counters.end()) {
        rate = ceiling_flops->second.value / median_s / 1e9;
        rate_unit = "GFLOP/s";
      }
    }
    std::fprintf(stderr, "[%3d/%d %5.0fs] %-70s %10.4f ms %9.1f %s\n", done_, total_, elapsed,
                 first.run_name.str().c_str(), median_s * 1e3, rate, rate_unit);
  }

  int failed() const { return failed_; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  int total_;
  int done_ = 0;
  int failed_ = 0;
  std::vector<std::string> errors_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

RunnerSummary run_benchmarks(const RunnerOptions& options) {
  benchmark::ClearRegisteredBenchmarks();
  int total = 0;
  if (options.include_ceilings) register_ceiling_benchmarks(options.suite);
  if (options.include_ceilings) total += options.suite.backend == Backend::cpu ? 4 : 4;
  if (options.include_pairs) {
    register_pair_benchmarks(options.suite);
    total += static_cast<int>(suite_runs(options.suite).size());
  }

  const std::filesystem::path tmp = options.json_out.string() + ".partial";
  if (options.json_out.has_parent_path()) std::filesystem::create_directories(options.json_out.parent_path());
  std::vector<std::string> args = {"lmroof", "--benchmark_out=" + tmp.string(), "--benchmark_out_format=json"};
  args.insert(args.end(), options.extra_flags.begin(), options.extra_flags.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) throw std::invalid_argument(fmt::format("unrecognized benchmark flag '{}'", argv[1]));

  ProgressReporter progress(total);
  RunnerSummary summary;
  summary.benchmarks = static_cast<int>(benchmark::RunSpecifiedBenchmarks(&progress));
  summary.failed = progress.failed();
  summary.errors = progress.errors();
  benchmark::ClearRegisteredBenchmarks();
  // Google Benchmark wrote the JSON to a side file; only a complete one takes the real name.
  std::filesystem::rename(tmp, options.json_out);
  return summary;
}

}  // namespace lmroof::bench
