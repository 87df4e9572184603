#pragma once
// The kernel traces taken during one benchmark session, by run id, until the runner
// takes them into its measurement (bench/measurement.h), which writes them beside
// bench.json (profiler/kernel_trace_file.h).
#include <string>

#include <nlohmann/json.hpp>

#include "profiler/kernel_trace.h"

namespace lmroof::bench {

void record_kernel_trace(const std::string& run_id, const profiler::KernelTrace& trace);
void clear_kernel_traces();

// The traces recorded since the last clear, as bench.kernels.json's document, and
// clears them; null when none was recorded.
nlohmann::json take_kernel_traces();

}  // namespace lmroof::bench
