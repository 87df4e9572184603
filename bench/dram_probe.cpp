#include "bench/dram_probe.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>

#include "bench/cache_levels.h"
#include "bench/dram_segments.h"
#include "bench/memory_budget.h"
#include "bench/stream_kernels.h"
#include "kernels/run_names/cost.h"

namespace lmroof::bench {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int64_t dram_array_bytes() { return memory_budget().dram_array_bytes; }

bool streams_from_dram(double working_set_bytes) {
  const int64_t outer = outermost_cache_bytes();
  return outer > 0 && working_set_bytes >= kDramResidentOverOuterCache * static_cast<double>(outer);
}

// Two sweeps of each kind, the faster kept: as the ceilings keep their best
// repetition (a single sweep read a few percent low against them). Each sweep
// takes fresh segments (bench/dram_segments.h), as the ceilings do.
DramProbe probe_dram() {
  DramSegments& segments = DramSegments::shared();
  const int64_t n = segments.floats();
  const int threads = omp_get_max_threads();
  const int64_t per = n / threads;
  const double bytes = static_cast<double>(n) * 4;
  DramProbe p;
  for (int sweep = 0; sweep < 2; ++sweep) {
    const float* a = segments.next();
    float sink = 0;
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    sink += sum_floats(a + omp_get_thread_num() * per, per);
    p.read_bytes_per_s = std::max(p.read_bytes_per_s, bytes / seconds_since(t0));
    benchmark::DoNotOptimize(sink);
  }
  for (int sweep = 0; sweep < 2; ++sweep) {
    const float* from = segments.next();
    float* to = segments.next();
    const auto t0 = std::chrono::steady_clock::now();
    copy_kernel<true>(from, to, n);
    p.copy_nt_bytes_per_s = std::max(p.copy_nt_bytes_per_s, 2 * bytes / seconds_since(t0));
  }
  return p;
}

}  // namespace lmroof::bench
