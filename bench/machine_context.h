#pragma once
// Machine facts recorded at measurement time, in bench.json's "context" (Google
// Benchmark's AddCustomContext): CPU model, OpenMP threads, GPU, how lmroof was
// built, and the suite. Analysis reads them from there, never from the machine it
// runs on, so `lmroof analyze` of one bench.json gives the same results anywhere.
// Keys: analysis/model/schema.h (model::context).
#include <string>
#include <string_view>

#include "bench/suite.h"

namespace lmroof::bench {

// Records the machine facts and the suite, once per process (a process measures one
// suite); later calls do nothing. Called when benchmarks are registered.
void record_machine_context(const SuiteOptions& suite);

// One more context entry (e.g. the metrics choice of `lmroof run`); a key already
// recorded keeps its first value.
void record_context(std::string_view key, const std::string& value);

}  // namespace lmroof::bench
