#include "bench/memory_budget.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

#include "kernels/run_names/cost.h"

namespace lmroof::bench {

namespace {

// MemAvailable from /proc/meminfo in bytes; 0 when it cannot be read.
double mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

// The OpenBLAS sgemm ceiling's three matrices (bench/ceilings_cpu.cpp, 2048^2 floats).
constexpr int64_t kSgemmScratchBytes = int64_t{3} * 2048 * 2048 * 4;
// measured_last_level_bytes()'s sweep array, when the OS reports no L3 size.
constexpr int64_t kLastLevelProbeBytes = int64_t{256} << 20;

MemoryBudget compute_budget() {
  MemoryBudget b;
  const int64_t outer = outermost_cache_bytes();
  b.stream_rule_bytes = 4 * outer;
  const auto dram_resident = static_cast<int64_t>(kDramResidentOverOuterCache * static_cast<double>(outer));
  const int64_t cap = std::max(kDramArrayCapBytes, dram_resident);
  int64_t bytes = std::clamp(b.stream_rule_bytes, kDramArrayFloorBytes, std::max(kDramArrayFloorBytes, cap));
  b.dram_array_reason = bytes == b.stream_rule_bytes ? "4x the outermost cache (STREAM's rule)"
                        : bytes == kDramArrayFloorBytes ? "128 MiB, the floor"
                                                        : fmt::format("capped at {} (4x the outermost cache would be {})",
                                                                      readable_bytes(static_cast<double>(bytes)),
                                                                      readable_bytes(static_cast<double>(b.stream_rule_bytes)));
  if (const double available = available_memory_bytes(); available > 0) {
    const auto share = static_cast<int64_t>(kAvailableShareForArrays * available / kDramArrays);
    if (share < bytes) {
      bytes = std::max(share, kDramArrayFloorBytes);
      b.dram_array_reason = fmt::format("{} of the {} available, in {} arrays (4x the outermost cache would be {})",
                                        kAvailableShareForArrays, readable_bytes(available), kDramArrays,
                                        readable_bytes(static_cast<double>(b.stream_rule_bytes)));
    }
  }
  b.dram_array_bytes = bytes;
  int64_t scratch = kSgemmScratchBytes;
  for (const CacheSweep& s : cache_sweeps()) {
    scratch = std::max(scratch, s.per_thread_bytes * omp_get_max_threads());
    if (s.cache.level == 3 && std::string_view(s.cache.source) == "measured") scratch = std::max(scratch, kLastLevelProbeBytes);
  }
  b.cache_scratch_bytes = scratch;
  return b;
}

}  // namespace

int64_t outermost_cache_bytes() {
  static const int64_t bytes = [] {
    const int threads = omp_get_max_threads();
    for (int level = 3; level >= 1; --level)
      if (const CacheLevel c = cache_level(level); c.bytes > 0) return capacity_used_by(c, threads);
    return int64_t{0};
  }();
  return bytes;
}

double available_memory_bytes() {
  // LMROOF_MEMORY_LIMIT (bytes) replaces the machine's limit: a share of a shared
  // machine, or a test that must refuse the same shape on any host.
  if (const char* limit = std::getenv("LMROOF_MEMORY_LIMIT"); limit && *limit) {
    char* end = nullptr;
    const double bytes = std::strtod(limit, &end);
    const std::string shown = std::string(limit).substr(0, 40);
    if (end == limit || *end != '\0' || !std::isfinite(bytes))
      throw std::invalid_argument(fmt::format("LMROOF_MEMORY_LIMIT='{}' is not a number of bytes", shown));
    // Below one byte nothing fits and the limit would print as "0.0 kB"; at 1e18 (an
    // exabyte, far past any host's memory) byte counts near int64's 9.2e18 come close.
    if (!(bytes >= 1))
      throw std::invalid_argument(fmt::format("LMROOF_MEMORY_LIMIT='{}' is less than one byte", shown));
    if (bytes >= 1e18)
      throw std::invalid_argument(fmt::format("LMROOF_MEMORY_LIMIT='{}' is 1e18 bytes or more (an exabyte)", shown));
    return bytes;
  }
  return mem_available_bytes();
}

std::vector<CacheSweep> cache_sweeps() {
  // Half of what the threads' share of each level holds, so the sweep fits with room
  // for the stack, the code and the other thread's lines. L3: 4x the L2's per-thread
  // share (or an eighth of the L3, if more), half at most. A shared L3's capacity is
  // what the threads' placement gives them: on the Zen 5 guest it was 64 MiB (one L3
  // per vCPU) or 32 MiB (one for both) from one minute to the next, and its measured
  // size 32, 48 or 64 MiB. Half of 64 MiB fills the 32 MiB state: alternated in one
  // process (12 rounds, 2 threads), 2 x 16 MiB read at a median 126 GB/s, 2 x 8 MiB
  // at 150 and 2 x 4 MiB at 161; against 137 GB/s so measured, MQA decode (naive, 8
  // MiB of K/V, fits either state) sat at 107-112% of the L3 roof.
  const int threads = omp_get_max_threads();
  std::vector<CacheSweep> out;
  int64_t previous_per_thread = 0;
  for (int level = 1; level <= 3; ++level) {
    const CacheLevel cache = cache_level(level);
    if (cache.bytes <= 0) continue;  // not reported: no roof for that level (never a guessed one)
    const int64_t capacity = capacity_used_by(cache, threads);
    int64_t per_thread = capacity / 2 / threads;
    if (level == 3) per_thread = std::min(per_thread, std::max(4 * previous_per_thread, capacity / 8 / threads));
    previous_per_thread = capacity / threads;
    out.push_back({cache, capacity, per_thread});
  }
  return out;
}

int64_t process_base_bytes() {
  long size_pages = 0, resident_pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &size_pages, &resident_pages) != 2) resident_pages = 0;
    std::fclose(f);
  }
  return kProcessBaseBytes + static_cast<int64_t>(resident_pages) * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

double MemoryBudget::ceilings_peak_bytes() const {
  return static_cast<double>(process_base_bytes() + kDramArrays * dram_array_bytes + cache_scratch_bytes);
}

double MemoryBudget::run_peak_bytes(double largest_run_bytes) const {
  return std::max(ceilings_peak_bytes(),
                  static_cast<double>(process_base_bytes() + kDramArrays * dram_array_bytes) + 2 * largest_run_bytes);
}

const MemoryBudget& memory_budget() {
  static const MemoryBudget budget = compute_budget();
  return budget;
}

std::string readable_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e5) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (bytes >= 100) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);  // "0.0 kB" would hide a limit of a few bytes
}

void check_peak_fits(double peak_bytes, const std::string& what) {
  const bool limited = std::getenv("LMROOF_MEMORY_LIMIT") && *std::getenv("LMROOF_MEMORY_LIMIT");
  const double available = available_memory_bytes();
  if (available > 0 && peak_bytes > available)
    throw std::invalid_argument(fmt::format("{} would hold up to {}, more than the {} of {}", what,
                                            readable_bytes(peak_bytes), readable_bytes(available),
                                            limited ? "LMROOF_MEMORY_LIMIT" : "memory available on this host (MemAvailable)"));
}

std::string peak_summary(double peak_bytes) {
  const MemoryBudget& b = memory_budget();
  return fmt::format("will hold at most {} (DRAM arrays {} x {}: {})", readable_bytes(peak_bytes), kDramArrays,
                     readable_bytes(static_cast<double>(b.dram_array_bytes)), b.dram_array_reason);
}

std::string peak_line(double peak_bytes, const std::string& what) {
  return fmt::format("lmroof: {} {}", what, peak_summary(peak_bytes));
}

}  // namespace lmroof::bench
