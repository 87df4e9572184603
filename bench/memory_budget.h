#pragma once
// The memory lmroof's own buffers may hold (issue #34): the DRAM arrays the DRAM roofs,
// the probes and the bandwidth curve stream, and the scratch of the cache ceilings, sized
// by a budget that does not grow with the cache size alone (docs/cost-model.md#memory-budget).
//
// The DRAM arrays: kDramArrays arrays of dram_array_bytes() each, where
//   dram_array_bytes = clamp(4 x outermost cache,               STREAM's rule
//                            at least kDramArrayFloorBytes,      128 MiB
//                            at most max(kDramArrayCapBytes, 2 x outermost cache))
//   and never more than kAvailableShareForArrays of the memory available / kDramArrays.
// The cap is the fixed part: 1 GiB per array on the 480 MiB-L3 VM of issue #34 (was 1.9
// GiB, six of them: 17.9 GB resident). It gives way up to 2 x the outermost cache (the
// working set from which analysis takes a run to stream from DRAM,
// kDramResidentOverOuterCache), as an array inside the cache measures the cache, and is
// then bounded by the memory available alone.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/cache_levels.h"

namespace lmroof::bench {

inline constexpr int kDramArrays = 2;
inline constexpr int64_t kDramArrayFloorBytes = int64_t{128} << 20;
inline constexpr int64_t kDramArrayCapBytes = int64_t{1} << 30;
// The DRAM arrays may take at most this share of the memory available (MemAvailable, or
// LMROOF_MEMORY_LIMIT): the rest is the suite's, and that of a second lmroof (ctest -j 2)
// or of whatever else shares the machine.
inline constexpr double kAvailableShareForArrays = 0.25;
// What the process holds besides its buffers (code, libraries, OpenMP and BLAS thread
// stacks, the catalogue): `lmroof list` peaks at about 20 MB resident; twice that.
inline constexpr int64_t kProcessBaseBytes = int64_t{48} << 20;
// The process's own part of a peak: what it holds resident when asked (its code and the
// libraries as loaded: a CUDA build maps cuBLAS, cuBLASLt and CUPTI, about 190 MB more
// than a CPU build, measured by tests/e2e/memory_budget.sh) plus kProcessBaseBytes for
// what comes later. Read each time, never cached: it is asked before measuring.
int64_t process_base_bytes();

// The outermost cache the threads use together (0 when none is known).
int64_t outermost_cache_bytes();

// Memory available to lmroof: LMROOF_MEMORY_LIMIT (bytes) when set, else MemAvailable;
// 0 when neither can be read. Throws std::invalid_argument for a bad LMROOF_MEMORY_LIMIT.
double available_memory_bytes();

struct MemoryBudget {
  int64_t dram_array_bytes = 0;   // each of kDramArrays
  int64_t stream_rule_bytes = 0;  // 4 x the outermost cache: what STREAM's rule asks
  std::string dram_array_reason;  // how dram_array_bytes was chosen, one clause
  int64_t cache_scratch_bytes = 0;  // the largest buffer a ceiling allocates for itself
  // Peak of `lmroof ceilings`: base + DRAM arrays + the largest ceiling scratch.
  double ceilings_peak_bytes() const;
  // Peak of a run: the ceilings' peak, or the DRAM arrays + twice the largest run's
  // footprint (paired rounds hold two workloads), whichever is larger.
  double run_peak_bytes(double largest_run_bytes) const;
};

// A cache ceiling's read sweep (bench/ceilings_cpu.cpp): each thread reads its own
// buffer of per_thread bytes, which fits its share of `cache` (capacity_bytes for all
// the threads together).
struct CacheSweep {
  CacheLevel cache;
  int64_t capacity_bytes = 0;
  int64_t per_thread_bytes = 0;
};
// One per level the OS (or LMROOF_CACHE_SIZES) reports, L1 first.
std::vector<CacheSweep> cache_sweeps();

// Computed once per process (the cache sizes and the memory available at first use).
const MemoryBudget& memory_budget();

// "0.1 MB", "512.0 MB", "17.90 GB": bytes a person can read (decimal units).
std::string readable_bytes(double bytes);

// Refuses (std::invalid_argument, one line) when `peak_bytes` exceeds the memory
// available; `what` names the command ("lmroof ceilings").
void check_peak_fits(double peak_bytes, const std::string& what);

// The line `lmroof ceilings` prints before measuring: "lmroof: WHAT " + peak_summary.
std::string peak_line(double peak_bytes, const std::string& what);
// "will hold at most 2.49 GB (DRAM arrays 2 x 1.07 GB: capped at ...)": `lmroof run`
// adds it to its line announcing the runs.
std::string peak_summary(double peak_bytes);

}  // namespace lmroof::bench
