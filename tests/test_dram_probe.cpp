// The DRAM probe taken after each repetition of a DRAM-resident CPU run
// (bench/dram_probe.h): which runs get one, and that it measures something.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/cache_levels.h"
#include "bench/dram_probe.h"
#include "bench/dram_segments.h"
#include "bench/memory_budget.h"

namespace lmroof::bench {
namespace {

TEST(DramProbe, OnlyRunsOverTwiceTheOutermostCacheStreamFromDram) {
  const CacheLevel l3 = cache_level(3);
  if (l3.bytes <= 0) GTEST_SKIP() << "the OS reports no L3 size: no run is probed";
  const double outer = static_cast<double>(capacity_used_by(l3, omp_get_max_threads()));  // as the suite runs
  EXPECT_FALSE(streams_from_dram(outer / 2));
  EXPECT_FALSE(streams_from_dram(0));
  EXPECT_TRUE(streams_from_dram(64 * outer));
}

TEST(DramProbe, MeasuresPositiveFiniteBandwidths) {
  const DramProbe p = probe_dram();
  EXPECT_GT(p.read_bytes_per_s, 1e8);  // 0.1 GB/s: any machine that runs the suite does more
  EXPECT_GT(p.copy_nt_bytes_per_s, 1e8);
  EXPECT_LT(p.read_bytes_per_s, 1e14);  // 100 TB/s: a timer or byte-count bug
  EXPECT_LT(p.copy_nt_bytes_per_s, 1e14);
}

// STREAM's rule (4x the outermost cache) within the memory budget
// (bench/memory_budget.h): capped at max(1 GiB, 2x the cache), and at a share of the
// memory available, never below 128 MiB.
TEST(DramProbe, ArraysFollowStreamsRuleWithinTheBudget) {
  EXPECT_GE(dram_array_bytes(), kDramArrayFloorBytes);
  const int64_t outer = outermost_cache_bytes();
  const double share = kAvailableShareForArrays * available_memory_bytes() / kDramArrays;
  const double expected = std::max(static_cast<double>(kDramArrayFloorBytes),
                                   std::min({static_cast<double>(4 * outer),
                                             static_cast<double>(std::max(kDramArrayCapBytes, 2 * outer)),
                                             share > 0 ? share : 1e300}));
  // MemAvailable moves between the budget's reading and this one: 1% slack
  EXPECT_NEAR(static_cast<double>(dram_array_bytes()), expected, 0.01 * expected);
}

// Every DRAM roof sweep takes the least recently swept segment, so a segment comes
// back only after the other: a whole segment (2x the outermost cache at least) of
// other traffic lies between two uses of any one.
TEST(DramSegments, EachSweepTakesTheLeastRecentlySweptSegment) {
  DramSegments& segments = DramSegments::shared();
  const int threads = omp_get_max_threads();
  EXPECT_EQ(segments.floats() % (128 * threads), 0);
  EXPECT_GT(segments.floats(), dram_array_bytes() / 4 - 128 * threads);
  EXPECT_LE(segments.floats(), dram_array_bytes() / 4);
  std::vector<float*> seen;
  for (int i = 0; i < DramSegments::kSegments; ++i) seen.push_back(segments.next());
  for (int i = 0; i < DramSegments::kSegments; ++i)
    for (int j = 0; j < DramSegments::kSegments; ++j)
      if (i != j) {
        EXPECT_GE(std::abs(seen[i] - seen[j]), segments.floats()) << i << " and " << j << " overlap";
      }
  for (int i = 0; i < DramSegments::kSegments; ++i) EXPECT_EQ(segments.next(), seen[i]) << "the cycle is not the same";
  // what the sweeps read: the fill, still there after probes copied segments into others
  (void)probe_dram();
  const float* a = segments.next();
  EXPECT_FLOAT_EQ(a[0], 1e-3f);
  EXPECT_FLOAT_EQ(a[segments.floats() - 1], 1e-3f * static_cast<float>(1 + (segments.floats() - 1) % 97));
}

// Read rates of session 8's Zen 5 VM (no /sys cache entries; CPUID said 508 MiB of
// L3), GB/s at 4 ... 256 MiB, in its two states: both threads on one 32 MiB L3 with
// DRAM at ~33 GB/s, and later each on its own (64 MiB in all, DRAM at ~77 GB/s);
// rounded, and the 6 and 192 MiB points interpolated (the sweeps did not take them).
TEST(CacheLevels, LastLevelIsWhereTheRateDropsMost) {
  const std::vector<int64_t> mib = {4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256};
  std::vector<int64_t> bytes;
  for (int64_t m : mib) bytes.push_back(m << 20);
  const std::vector<double> one_l3 = {155, 160, 156, 166, 158, 147, 118, 60, 46, 37, 34, 34, 33};
  EXPECT_EQ(last_level_from_rates(bytes, one_l3), int64_t{32} << 20);
  const std::vector<double> two_l3 = {172, 175, 181, 188, 190, 193, 188, 166, 161, 123, 95, 80, 79};
  EXPECT_EQ(last_level_from_rates(bytes, two_l3), int64_t{64} << 20);
  // a slower point inside the cache does not end it early
  std::vector<double> dip = one_l3;
  dip[2] = 120;
  EXPECT_EQ(last_level_from_rates(bytes, dip), int64_t{32} << 20);
}

TEST(CacheLevels, NoLastLevelWhereNoStepStandsOut) {
  const std::vector<int64_t> bytes = {4 << 20, 8 << 20, 16 << 20, 32 << 20};
  EXPECT_EQ(last_level_from_rates(bytes, std::vector<double>{40, 39, 41, 38}), 0);  // all DRAM (or all cache)
  EXPECT_EQ(last_level_from_rates(bytes, std::vector<double>{0, 0, 0, 0}), 0);
  EXPECT_EQ(last_level_from_rates(std::vector<int64_t>{4 << 20, 8 << 20}, std::vector<double>{100, 30}), 0);
  EXPECT_EQ(last_level_from_rates(bytes, std::vector<double>{100, 30}), 0);  // sizes and rates disagree
}

TEST(CacheLevels, EveryLevelSaysWhereItsSizeCameFrom) {
  for (int level = 1; level <= 3; ++level) {
    const CacheLevel c = cache_level(level);
    const std::string source = c.source;
    EXPECT_TRUE(source == "os" || source == "cpuid" || source == "measured" || source == "none") << source;
    EXPECT_EQ(c.bytes > 0, source != "none") << "L" << level;
  }
}

TEST(CacheLevels, CapacityUsedCountsTheInstancesTheThreadsUse) {
  CacheLevel private_l2{2, 1 << 20, 1};
  EXPECT_EQ(capacity_used_by(private_l2, 2), 2 << 20);
  CacheLevel shared_l3{3, 32 << 20, 2};
  EXPECT_EQ(capacity_used_by(shared_l3, 2), 32 << 20);
  CacheLevel per_ccx{3, 32 << 20, 8};
  EXPECT_EQ(capacity_used_by(per_ccx, 16), int64_t{64} << 20);
}

}  // namespace
}  // namespace lmroof::bench
