#pragma once
// The data cache levels as the OS describes them for cpu0: what the cache ceilings
// are sized from and what decides whether a run streams from DRAM.
#include <cstdint>

namespace lmroof::bench {

struct CacheLevel {
  int level = 0;
  int64_t bytes = 0;     // capacity of one instance; 0 when the OS does not say
  int shared_by = 1;     // logical CPUs sharing one instance
};

// Data (or unified) cache `level` (1, 2, 3) from /sys, sysconf as a fallback.
CacheLevel cache_level(int level);

// The capacity of `level` that `threads` threads use together (two threads on two
// private 1 MiB L2s: 2 MiB; on one shared 32 MiB L3: 32 MiB).
int64_t capacity_used_by(const CacheLevel& cache, int threads);

}  // namespace lmroof::bench
