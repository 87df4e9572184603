#pragma once
// The per-kernel traces of one benchmark session, kept beside Google Benchmark's JSON
// (whose counters can hold numbers only) as "<bench>.kernels.json":
//   {"schema": "lmroof.kernels/1",
//    "runs": {"<run id>": {"available", "reason", "dropped_records",
//                          "kernels": [{"name", "class", "grid", "block", "duration_ns"}]}}}
// Written by the benchmark runner (bench/), read by the analysis (analysis/results/bench_json.cpp).
// The file's name and schema id: formats/file_names.h.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "profiler/kernel_trace.h"

namespace lmroof::profiler {

// One run's entry in the file.
nlohmann::json kernel_trace_json(const KernelTrace& trace);

}  // namespace lmroof::profiler
