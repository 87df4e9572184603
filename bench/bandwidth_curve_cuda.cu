// The GPU's memory-bandwidth curve (issue #34): read bandwidth over working sets from
// 1 MiB to a few times L2 (cudaDeviceProp::l2CacheSize), so that analysis finds the L2
// and HBM plateaus (analysis/roofs/memory_levels.h) the way it finds the CPU's, and a CUDA
// run can be judged at the rate measured at its own working set. Each point is a
// benchmark curve/cuda/read/<bytes> (model::kCurvePrefix): the ceilings' read kernel
// (bench/cuda_read_sweep.h) over a device buffer of that size, re-read enough times per
// launch to amortise the launch, hot (a set inside L2 is read from L2 after the first
// pass: that is the rate being measured). Each repetition is one noise-targeted timing;
// analysis keeps the best repetition, as for the ceilings. The sets come from
// curve_working_sets (two per octave, four near the L2 capacity), like the CPU curve's.
//
// Device memory: the largest set is kCurveOverL2 x L2, at least kCurveFloorBytes, and
// never more than kAvailableShareForArrays (bench/memory_budget.h) of the device memory
// free when registered; one buffer at a time (freed after each point). Host memory: none
// beyond the process.
//
// Without a GPU, one benchmark (curve/cuda/read) is registered that skips with the device
// query's reason, so a run says why it has no curve. Never run on a GPU yet (2026-12-04).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "analysis/model/schema.h"
#include "bench/bandwidth_curve.h"
#include "bench/cuda_read_sweep.h"
#include "bench/memory_budget.h"
#include "profiler/device_query.h"

namespace lmroof::bench {

namespace counter = model::counter;

namespace {

constexpr int64_t kCurveSmallestBytes = int64_t{1} << 20;  // 1 MiB: inside any L2 lmroof targets
constexpr int64_t kCurveOverL2 = 4;                        // the sets end at 4 x L2 (HBM's plateau)
constexpr int64_t kCurveFloorBytes = int64_t{256} << 20;   // ... and not before 256 MiB

// Bytes read per launch: 1 GiB (as the l2_read ceiling), far past a launch's cost;
// 256 MiB with --quick.
int passes_for(int64_t set_bytes, bool quick) {
  const int64_t target = quick ? int64_t{256} << 20 : int64_t{1} << 30;
  return static_cast<int>(std::max<int64_t>(1, target / set_bytes));
}

void bm_curve_point(benchmark::State& state, int64_t set_bytes, bool quick, double l2_bytes) {
  const DeviceInfo info = query_cuda_device();
  if (!info.available) {
    state.SkipWithError(info.reason.c_str());
    return;
  }
  try {
    const int passes = passes_for(set_bytes, quick);
    const unsigned blocks = time_cuda_reads(state, quick, static_cast<size_t>(set_bytes), passes);
    state.counters[std::string(counter::kCurveReadBytes)] = static_cast<double>(set_bytes) * passes;
    state.counters[std::string(counter::kWorkingSetBytes)] = static_cast<double>(set_bytes);
    state.counters[std::string(counter::kThreads)] = static_cast<double>(blocks) * kCudaReadThreadsPerBlock;
    state.counters[std::string(counter::kCurveCapacityPrefix) + "L2"] = l2_bytes;
    char label[160];
    std::snprintf(label, sizeof(label), "read kernel over %.1f MiB (L2 %.1f MiB), %d passes per launch, %u blocks x %d",
                  static_cast<double>(set_bytes) / (1 << 20), l2_bytes / (1 << 20), passes, blocks,
                  kCudaReadThreadsPerBlock);
    state.SetLabel(label);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace

int register_cuda_bandwidth_curve(const SuiteOptions& options) {
  const bool quick = options.quick;
  const int repetitions = quick ? 2 : options.repetitions;  // as the GPU ceilings
  const DeviceInfo info = query_cuda_device();
  size_t free_bytes = 0, total_bytes = 0;
  const bool sized = info.available && info.l2_bytes > 0 && cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
  if (!sized) {
    const std::string reason = !info.available ? info.reason
                               : info.l2_bytes > 0 ? "cudaMemGetInfo failed: the free device memory is unknown"
                                                   : "the device reports no L2 size";
    benchmark::RegisterBenchmark((std::string(model::kCurvePrefix) + "cuda/read").c_str(),
                                 [reason](benchmark::State& s) { s.SkipWithError(reason.c_str()); })
        ->Iterations(1);
    return 1;
  }
  const auto l2 = static_cast<int64_t>(info.l2_bytes);
  const auto allowed = static_cast<int64_t>(kAvailableShareForArrays * static_cast<double>(free_bytes));
  const int64_t largest = std::min(std::max(kCurveOverL2 * l2, kCurveFloorBytes), allowed) / 16 * 16;
  if (largest <= kCurveSmallestBytes) return 0;
  int registered = 0;
  for (const int64_t set : curve_working_sets(kCurveSmallestBytes, largest, {l2})) {
    const int64_t bytes = set / 16 * 16;  // read_kernel's 16-byte loads
    benchmark::RegisterBenchmark((std::string(model::kCurvePrefix) + "cuda/read/" + std::to_string(bytes)).c_str(),
                                 [bytes, quick, l2](benchmark::State& s) {
                                   bm_curve_point(s, bytes, quick, static_cast<double>(l2));
                                 })
        ->UseManualTime()
        ->Iterations(1)
        ->Repetitions(repetitions)
        ->Unit(benchmark::kMillisecond);
    ++registered;
  }
  return registered;
}

}  // namespace lmroof::bench
