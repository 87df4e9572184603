#include "bench/dram_probe.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>

#include "bench/cache_levels.h"
#include "bench/stream_kernels.h"
#include "common/cost.h"
#include "common/host_buffer.h"

namespace lmroof::bench {

namespace {

int64_t outermost_cache_bytes() {
  static const int64_t bytes = [] {
    const int threads = omp_get_max_threads();
    for (int level = 3; level >= 1; --level)
      if (const CacheLevel c = cache_level(level); c.bytes > 0) return capacity_used_by(c, threads);
    return int64_t{0};
  }();
  return bytes;
}

// Two arrays of dram_array_bytes(), allocated once with the workloads' page policy
// and first touched by every thread.
struct ProbeBuffers {
  int64_t n = 0;  // floats per array, a multiple of 128 per thread
  HostVector<float> a, b;
  ProbeBuffers() {
    const int threads = omp_get_max_threads();
    n = dram_array_bytes() / 4 / (128 * threads) * (128 * threads);
    a.resize(n);
    b.resize(n);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] = 1e-3f * static_cast<float>(i % 97);
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int64_t dram_array_bytes() { return std::max<int64_t>(int64_t{128} << 20, 4 * outermost_cache_bytes()); }

bool streams_from_dram(double working_set_bytes) {
  const int64_t outer = outermost_cache_bytes();
  return outer > 0 && working_set_bytes >= kDramResidentOverOuterCache * static_cast<double>(outer);
}

// Two sweeps of each kind, the faster kept: as the ceilings keep their best
// repetition (a single sweep read a few percent low against them).
DramProbe probe_dram() {
  static ProbeBuffers buf;
  const int threads = omp_get_max_threads();
  const int64_t per = buf.n / threads;
  const double bytes = static_cast<double>(buf.n) * 4;
  DramProbe p;
  for (int sweep = 0; sweep < 2; ++sweep) {
    float sink = 0;
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    sink += sum_floats(buf.a.data() + omp_get_thread_num() * per, per);
    p.read_bytes_per_s = std::max(p.read_bytes_per_s, bytes / seconds_since(t0));
    benchmark::DoNotOptimize(sink);
  }
  for (int sweep = 0; sweep < 2; ++sweep) {
    const auto t0 = std::chrono::steady_clock::now();
    copy_kernel<true>(buf.a.data(), buf.b.data(), buf.n);
    p.copy_nt_bytes_per_s = std::max(p.copy_nt_bytes_per_s, 2 * bytes / seconds_since(t0));
  }
  return p;
}

}  // namespace lmroof::bench
