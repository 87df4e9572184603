#include "bench/bandwidth_curve.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "analysis/model/schema.h"
#include "bench/dram_segments.h"
#include "bench/memory_budget.h"
#include "bench/stream_kernels.h"

namespace lmroof::bench {

namespace counter = model::counter;

std::vector<int64_t> curve_working_sets(int64_t smallest, int64_t largest, const std::vector<int64_t>& capacities) {
  std::vector<double> sets;
  for (double s = static_cast<double>(smallest); s <= static_cast<double>(largest) * 1.0001; s *= std::sqrt(2.0))
    sets.push_back(s);
  for (const int64_t c : capacities)
    for (int k = -4; k <= 4; ++k) {
      const double s = static_cast<double>(c) * std::pow(2.0, k / 4.0);
      if (s >= static_cast<double>(smallest) && s <= static_cast<double>(largest)) sets.push_back(s);
    }
  sets.push_back(static_cast<double>(largest));
  std::sort(sets.begin(), sets.end());
  std::vector<int64_t> out;
  for (const double s : sets)
    if (out.empty() || s > 1.08 * static_cast<double>(out.back())) out.push_back(static_cast<int64_t>(s));
  out.back() = std::max(out.back(), largest);  // the largest set always measured
  if (out.size() >= 2 && out.back() < static_cast<int64_t>(1.08 * static_cast<double>(out[out.size() - 2])))
    out.erase(out.end() - 2);
  return out;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One repetition: a warm sweep (for a set the caches can hold), then `passes` timed
// read sweeps of each thread's share; then, `with_copy`, the same for a copy of the
// first half of the set into the second. A set beyond the outermost cache needs no
// warming, and is read once per repetition.
void bm_curve_point(benchmark::State& state, int64_t per_thread_floats, int64_t target_bytes, bool in_caches,
                    bool with_copy, const std::vector<CacheSweep>& caches) {
  DramSegments& segments = DramSegments::shared();
  float* base = segments.all();
  const int threads = omp_get_max_threads();
  const int64_t set_floats = per_thread_floats * threads;
  const double set_bytes = static_cast<double>(set_floats) * 4;
  const int64_t passes = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(target_bytes) / set_bytes));
  auto sweep = [&](int64_t reps) {
    float sink = 0;
#pragma omp parallel reduction(+ : sink)
    {
      const float* mine = base + omp_get_thread_num() * per_thread_floats;
      for (int64_t r = 0; r < reps; ++r) {
        asm volatile("" : : : "memory");  // identical sweeps: each must be done again
        sink += sum_floats(mine, per_thread_floats);
      }
    }
    return sink;
  };
  const int64_t half = set_floats / 2 / 16 * 16;
  auto copy = [&](int64_t reps) {
    for (int64_t r = 0; r < reps; ++r) {
      copy_kernel<false>(base, base + half, half);
      benchmark::ClobberMemory();
    }
  };
  for (auto _ : state) {
    if (in_caches) benchmark::DoNotOptimize(sweep(1));
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(sweep(passes));
    state.SetIterationTime(seconds_since(t0));
    if (!with_copy) continue;
    if (in_caches) copy(1);
    const auto c0 = std::chrono::steady_clock::now();
    copy(passes);
    state.counters[std::string(counter::kCurveCopyRate)] =
        2.0 * static_cast<double>(half) * 4 * static_cast<double>(passes) / seconds_since(c0);
  }
  state.counters[std::string(counter::kCurveReadBytes)] = set_bytes * static_cast<double>(passes);
  state.counters[std::string(counter::kWorkingSetBytes)] = set_bytes;
  state.counters[std::string(counter::kThreads)] = threads;
  for (const CacheSweep& c : caches)
    state.counters[fmt::format("{}L{}", counter::kCurveCapacityPrefix, c.cache.level)] = static_cast<double>(c.capacity_bytes);
  state.SetLabel(fmt::format("read and copy over {} threads x {} KiB", threads, per_thread_floats * 4 >> 10));
}

}  // namespace

int register_bandwidth_curve(const SuiteOptions& options) {
  const int threads = omp_get_max_threads();
  const std::vector<CacheSweep> caches = cache_sweeps();
  std::vector<int64_t> capacities;
  for (const CacheSweep& c : caches) capacities.push_back(c.capacity_bytes);
  // From 16 KiB per thread (inside any L1d of 32 KiB or more) to 3x the outermost
  // cache (past the 2x from which analysis takes a set to stream from memory, so that
  // the memory plateau has points), within the DRAM segments (the memory budget).
  const int64_t outer = outermost_cache_bytes();
  const int64_t all_bytes = static_cast<int64_t>(DramSegments::kSegments) * memory_budget().dram_array_bytes;
  const int64_t largest = std::min(all_bytes, std::max<int64_t>(int64_t{64} << 20, 3 * outer));
  const int64_t smallest = int64_t{16} << 10;
  // Bytes read per timed repetition: enough to amortise the parallel region at the
  // small sets; one pass at the large ones. With --quick, 36 sets took 6 s on the
  // 2-core development VM (32 MiB L3) while seven builds shared it (load 20).
  const int64_t target = options.quick ? int64_t{16} << 20 : int64_t{64} << 20;
  int registered = 0;
  const int64_t step = 128;  // floats: sum_floats' unit, and 512-byte aligned shares
  int64_t previous = 0;
  for (const int64_t set : curve_working_sets(smallest * threads, largest, capacities)) {
    const int64_t per_thread = std::max<int64_t>(step, set / 4 / threads / step * step);
    if (per_thread * threads * 4 > all_bytes || per_thread == previous) continue;
    previous = per_thread;
    const int64_t bytes = per_thread * threads * 4;
    const bool in_caches = outer <= 0 || bytes < outer;
    // --quick (the tests' runs): the sets from half the outermost cache on once, read
    // only: with a pretended 1 GiB L3 they stream some 60 GB otherwise.
    const bool large = outer > 0 && 2 * bytes >= outer;
    const int repetitions = options.quick ? (large ? 1 : 2) : 3;
    const bool with_copy = !(options.quick && large);
    benchmark::RegisterBenchmark(fmt::format("{}cpu/read/{}", model::kCurvePrefix, per_thread * threads * 4).c_str(),
                                 [per_thread, target, in_caches, with_copy, caches](benchmark::State& s) {
                                   bm_curve_point(s, per_thread, target, in_caches, with_copy, caches);
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
