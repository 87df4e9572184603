#pragma once
// The data cache levels as the OS describes them for cpu0: what the cache ceilings
// are sized from and what decides whether a run streams from DRAM.
#include <cstdint>
#include <span>

namespace lmroof::bench {

// CacheLevel::shared_by of a level whose sharing the OS does not report and which
// is taken to be shared by every CPU (an L3 without /sys entries)
inline constexpr int kSharedByAll = 1 << 16;

struct CacheLevel {
  int level = 0;
  int64_t bytes = 0;     // capacity of one instance; 0 when neither the OS nor a measurement says
  int shared_by = 1;     // logical CPUs sharing one instance, or kSharedByAll
  const char* source = "none";  // "os" (/sys), "cpuid" (sysconf), "measured", "override" or "none"
};

// Data (or unified) cache `level` (1, 2, 3) from /sys, unless LMROOF_CACHE_SIZES names
// it: "L1=48K,L2=2M,L3=1G" (K, M, G: KiB, MiB, GiB; 0: no such level) replaces the
// capacity of one instance of each level it names, its sharing kept from /sys (else L1
// and L2 private, L3 shared by every CPU), source "override". For tests and for a
// machine whose OS misreports (docs/cost-model.md#memory-budget). Throws
// std::invalid_argument, one line, for a value it cannot read. Without /sys (some VMs):
// L1 and L2 from sysconf (CPUID's per-core values), and L3 measured, since the
// CPUID value a hypervisor passes can be the whole socket's (508 MiB on a 2-core
// Zen 5 guest whose L3 measures 32 MiB).
CacheLevel cache_level(int level);

// The last cache level's capacity from read rates over growing working sets
// (`bytes` ascending, `rates` in B/s): the set after which the rate drops the most.
// 0 when no level stands out: the fastest rate under 1.5x the largest set's (DRAM),
// or fewer than 3 points.
int64_t last_level_from_rates(std::span<const int64_t> bytes, std::span<const double> rates);

// The L3 capacity measured on this machine, once per process (about 0.4 s):
// last_level_from_rates over two-thread read sweeps of 4 MiB to 256 MiB, each
// size's best rate over three rounds.
int64_t measured_last_level_bytes();

// The capacity of `level` that `threads` threads use together (two threads on two
// private 1 MiB L2s: 2 MiB; on one shared 32 MiB L3: 32 MiB).
int64_t capacity_used_by(const CacheLevel& cache, int threads);

}  // namespace lmroof::bench
