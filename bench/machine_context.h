#pragma once
// Machine facts recorded at measurement time, in bench.json's "context" (Google
// Benchmark's AddCustomContext): CPU model, OpenMP threads, GPU, how lmroof was
// built, the suite and the pair catalogue (bench/catalogue.h). Analysis reads them from there, never from the machine it
// runs on, so `lmroof analyze` of one bench.json gives the same results anywhere.
// Keys: analysis/model/schema.h (model::context).
#include <string>
#include <string_view>

#include "bench/suite.h"

namespace lmroof::bench {

// Records the machine facts and the suite, once per process (a process measures one
// suite); later calls do nothing. Called when benchmarks are registered.
void record_machine_context(const SuiteOptions& suite);

// The BLAS behind every sgemm-based run and the SGEMM ceiling, in words:
// OpenBLAS's build, the core type whose kernels it runs, and who chose them
// (OPENBLAS_CORETYPE or OpenBLAS's own detection). An AVX2 kernel on an AVX-512
// host runs at half the FMA width, which decides how close those runs get to the
// FP32 FMA roof.
std::string blas_kernels();

// One more context entry (e.g. the metrics choice of `lmroof run`); a key already
// recorded keeps its first value.
void record_context(std::string_view key, const std::string& value);

}  // namespace lmroof::bench
