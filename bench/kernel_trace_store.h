#pragma once
// The kernel traces taken during one benchmark session, by run id, until the runner
// writes them beside the Google Benchmark JSON (profiler/kernel_trace_file.h).
#include <filesystem>
#include <string>

#include "profiler/kernel_trace.h"

namespace lmroof::bench {

void record_kernel_trace(const std::string& run_id, const profiler::KernelTrace& trace);
void clear_kernel_traces();

// Writes kernel_traces_path(bench_json) atomically (a side file renamed into place)
// when any trace was recorded; returns whether it wrote one.
bool write_kernel_traces(const std::filesystem::path& bench_json);

}  // namespace lmroof::bench
