// The DRAM probe taken after each repetition of a DRAM-resident CPU run
// (bench/dram_probe.h): which runs get one, and that it measures something.
#include <gtest/gtest.h>
#include <omp.h>

#include "bench/cache_levels.h"
#include "bench/dram_probe.h"

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
