#include "cli/benchmark_flags.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string_view>
#include <utility>

namespace lmroof::cli {

namespace {

// Flags that pass: what runs, in which order, how long each warms up, what the
// progress lines show. They change nothing bench.json's readers rely on.
constexpr std::string_view kAllowed[] = {
    "benchmark_filter",                      // which benchmarks run (a regex)
    "benchmark_enable_random_interleaving",  // interleave repetitions of different benchmarks
    "benchmark_min_warmup_time",             // seconds of warm-up before timing
    "benchmark_display_aggregates_only",     // progress shows aggregates only; bench.json keeps every repetition
    "v",                                     // Google Benchmark's log verbosity
};

// Flags that are refused, with the reason.
constexpr std::pair<std::string_view, std::string_view> kRefused[] = {
    {"benchmark_out", "lmroof writes bench.json into --out itself"},
    {"benchmark_out_format", "lmroof writes bench.json as JSON, which analysis reads"},
    {"benchmark_format", "lmroof prints its own progress lines"},
    {"benchmark_repetitions", "lmroof sets repetitions per benchmark, which overrides the flag; use --repetitions"},
    {"benchmark_min_time", "lmroof sets the minimum time per benchmark, which overrides the flag; use --min-time"},
    {"benchmark_time_unit", "lmroof sets the time unit per benchmark; results.json is in seconds anyway"},
    {"benchmark_report_aggregates_only", "analysis needs every repetition in bench.json (medians, spread)"},
    {"benchmark_list_tests", "it lists benchmarks and runs none; use `lmroof list`"},
    {"benchmark_dry_run", "it times a single iteration; the numbers would mean nothing"},
    {"benchmark_context", "lmroof records the machine in bench.json's context itself"},
    {"benchmark_perf_counters", "lmroof reads hardware counters through --metrics"},
    {"benchmark_counters_tabular", "it only changes Google Benchmark's console output, which lmroof replaces"},
    {"benchmark_color", "it only changes Google Benchmark's console output, which lmroof replaces"},
    {"help", "see `lmroof run --help`, or `lmroof_bench --help` for Google Benchmark's flags"},
};

}  // namespace

std::string allowed_benchmark_flags() {
  std::string out;
  for (auto name : kAllowed) out += (out.empty() ? "--" : ", --") + std::string(name);
  return out;
}

void check_benchmark_flag(const std::string& flag) {
  const std::string_view f = flag;
  const size_t start = f.find_first_not_of('-');
  if (!f.starts_with("-") || start == std::string_view::npos)
    throw std::invalid_argument(fmt::format("--benchmark-flag '{}': not a flag (write --benchmark-flag=--NAME=VALUE)", flag));
  std::string_view name = f.substr(start);
  name = name.substr(0, name.find('='));
  for (auto allowed : kAllowed)
    if (name == allowed) return;
  for (const auto& [refused, why] : kRefused)
    if (name == refused) throw std::invalid_argument(fmt::format("--benchmark-flag '{}' is refused: {}", flag, why));
  throw std::invalid_argument(
      fmt::format("--benchmark-flag '{}' is not passed on; the flags that are: {}", flag, allowed_benchmark_flags()));
}

}  // namespace lmroof::cli
