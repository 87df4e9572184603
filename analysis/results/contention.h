#pragma once
// bench.json's contention counters and context (bench/contention.h) -> results.json's
// contention fields (analysis/model/contention_model.h): per run over its repetitions,
// per paired comparison over its rounds, and over the whole measurement.
#include <optional>
#include <vector>

#include "analysis/model/contention_model.h"
#include "analysis/results/bench_json.h"

namespace lmroof {

// Over the entries that carry the counters; nullopt when none does (a file from before
// them, a CUDA run, a machine without /proc).
std::optional<model::RunContention> contention_of(const std::vector<const BenchEntry*>& repetitions);

// The whole measurement: the context's other processes (model::context::kContention)
// and the totals over every repetition that carried the counters; nullopt when neither
// is there. A context entry that is not the JSON bench/contention.cpp writes throws
// model::InputError naming the file and field.
std::optional<model::MachineContention> machine_contention(const BenchDocument& bench);

}  // namespace lmroof
