#pragma once
// Which Google Benchmark flags `lmroof run --benchmark-flag=...` passes on. lmroof
// owns the benchmark's output (bench.json, which analysis reads) and sets
// repetitions, minimum time and time unit per benchmark, so only flags that choose
// what runs or how it is ordered and warmed up make sense; the rest are refused
// with the reason (README, CLI reference).
#include <string>

namespace lmroof::cli {

// The flags that pass, for --help and messages.
std::string allowed_benchmark_flags();

// Throws std::invalid_argument, one line with the reason, for a flag that does not
// pass. `flag` is one argument as given, e.g. "--benchmark_filter=rmsnorm".
void check_benchmark_flag(const std::string& flag);

}  // namespace lmroof::cli
