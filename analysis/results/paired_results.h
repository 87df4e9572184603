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
// results.noise_floors. Rounds whose runs results lacks (skipped) are left out; a
// paired benchmark whose repetitions lack the round counters, or a malformed name,
// throws model::InputError naming the file and entry.
void attach_paired_rounds(const BenchDocument& bench, model::Results& results);

}  // namespace lmroof
