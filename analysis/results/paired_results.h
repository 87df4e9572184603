#pragma once
// From bench.json's paired benchmarks (bench/paired_rounds.h) to results.json: each
// comparison's paired rounds (Comparison::paired) and each pair's A/A noise floor
// (Results::noise_floors), by analysis/stats/paired_statistics.h.
#include <string_view>

#include "analysis/results/bench_json.h"
#include "analysis/model/results_model.h"

namespace lmroof {

// Whether a bench.json benchmark name is a paired one (model::kPairedPrefix).
bool is_paired_benchmark(std::string_view run_name);

// Reads every paired benchmark of `bench` and attaches it to results.comparisons (the
// comparison of the same two runs) or, for a run against itself, to
// results.noise_floors. Rounds whose runs could not run (skipped) are left out. Throws
// model::InputError naming the file and entry for a malformed name, missing or bad
// round counters (paired_round a whole number given once, paired_order its parity,
// paired_extra 1), rounds naming a run the file does not have, two pairs, or two runs
// the catalogue does not compare, and a pair without its A/A control; a run or control
// missing under a recorded --benchmark_filter (model::context::kBenchmarkFilter) is
// left out instead.
void attach_paired_rounds(const BenchDocument& bench, model::Results& results);

}  // namespace lmroof
