#include "cli/benchmark_flags.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace lmroof::cli {

namespace {

// What a passed flag's value must be. Checked here, so Google Benchmark never
// prints its own multi-line complaint or runs without end.
enum class FlagValue {
  text,     // --NAME=TEXT (a regex): the '=' is required
  boolean,  // --NAME, --NAME=true|false|1|0
  seconds,  // --NAME=S with S in [0, kMaxWarmupSeconds], as --min-time is capped
  level,    // --NAME=N, a whole number in [0, 9]
};
constexpr double kMaxWarmupSeconds = 60;

// Flags that pass: what runs, in which order, how long each warms up, what the
// progress lines show. They change nothing bench.json's readers rely on.
constexpr std::pair<std::string_view, FlagValue> kAllowed[] = {
    {"benchmark_filter", FlagValue::text},                         // which benchmarks run (a regex)
    {"benchmark_enable_random_interleaving", FlagValue::boolean},  // interleave repetitions of different benchmarks
    {"benchmark_min_warmup_time", FlagValue::seconds},             // seconds of warm-up before timing
    {"benchmark_display_aggregates_only", FlagValue::boolean},     // progress shows aggregates only; bench.json keeps every repetition
    {"v", FlagValue::level},                                       // Google Benchmark's log verbosity
};

// Throws std::invalid_argument, one line, when `value` (nullopt: no '=') does not fit.
void check_flag_value(const std::string& flag, FlagValue kind, std::optional<std::string_view> value) {
  auto refuse = [&](std::string_view expected) {
    throw std::invalid_argument(fmt::format("--benchmark-flag '{}': {}", flag, expected));
  };
  switch (kind) {
    case FlagValue::text:
      if (!value) refuse("give a value (--benchmark-flag=--NAME=VALUE)");
      return;
    case FlagValue::boolean:
      if (value && *value != "true" && *value != "false" && *value != "1" && *value != "0")
        refuse("give true or false");
      return;
    case FlagValue::seconds: {
      double seconds = -1;
      const auto* end = value ? value->data() + value->size() : nullptr;
// GCC 12 warns, falsely, that the std::optional `value`, tested first, may be used
// uninitialized (GCC bug 80635).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
      if (!value || value->empty() || std::from_chars(value->data(), end, seconds).ptr != end || !std::isfinite(seconds) ||
          seconds < 0 || seconds > kMaxWarmupSeconds)
#pragma GCC diagnostic pop
        refuse(fmt::format("give seconds in [0, {}]", kMaxWarmupSeconds));
      return;
    }
    case FlagValue::level: {
      int level = -1;
      const auto* end = value ? value->data() + value->size() : nullptr;
      if (!value || value->empty() || std::from_chars(value->data(), end, level).ptr != end || level < 0 || level > 9)
        refuse("give a whole number in [0, 9]");
      return;
    }
  }
}

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
  for (const auto& [name, kind] : kAllowed) out += (out.empty() ? "--" : ", --") + std::string(name);
  return out;
}

void check_benchmark_flag(const std::string& flag) {
  const std::string_view f = flag;
  const size_t start = f.find_first_not_of('-');
  if (!f.starts_with("-") || start == std::string_view::npos)
    throw std::invalid_argument(fmt::format("--benchmark-flag '{}': not a flag (write --benchmark-flag=--NAME=VALUE)", flag));
  const std::string_view name_and_value = f.substr(start);
  const size_t equals = name_and_value.find('=');
  const std::string_view name = name_and_value.substr(0, equals);
  const std::optional<std::string_view> value =
      equals == std::string_view::npos ? std::nullopt : std::optional(name_and_value.substr(equals + 1));
  for (const auto& [allowed, kind] : kAllowed)
    if (name == allowed) return check_flag_value(flag, kind, value);
  for (const auto& [refused, why] : kRefused)
    if (name == refused) throw std::invalid_argument(fmt::format("--benchmark-flag '{}' is refused: {}", flag, why));
  throw std::invalid_argument(
      fmt::format("--benchmark-flag '{}' is not passed on; the flags that are: {}", flag, allowed_benchmark_flags()));
}

}  // namespace lmroof::cli
