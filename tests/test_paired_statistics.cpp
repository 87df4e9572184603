// The paired statistics that decide verdicts (analysis/stats/paired_statistics.h): the
// Hodges-Lehmann estimate of per-round log-ratios and its Wilcoxon signed-rank
// interval, against NumPy / SciPy. The reference values came from this script
// (NumPy 1.24.2, SciPy 1.10.1, /usr/bin/python3 on the development machine):
//
//   import itertools, numpy as np
//   from scipy.stats import wilcoxon
//   def lower_rank(n, conf=0.95):
//       # P(T+ <= t) by enumerating all 2^n sign patterns of the ranks 1..n
//       sums = np.array([sum(r for r, s in zip(range(1, n + 1), signs) if s)
//                        for signs in itertools.product([0, 1], repeat=n)])
//       k = 0
//       while np.mean(sums <= k) <= (1 - conf) / 2: k += 1
//       return k  # largest k with P(T+ <= k - 1) <= (1 - conf) / 2
//   for n in (5, 6, 8, 10, 12, 16): print(n, lower_rank(n))   # 0 1 4 9 14 30
//   base = np.array([10.2, 10.9, 10.4, 11.8, 10.1, 10.6, 10.3, 12.0, 10.5, 10.7])
//   cand = np.array([9.1, 9.8, 9.6, 10.3, 9.4, 9.0, 9.7, 10.2, 9.9, 9.3])
//   d = np.log(base / cand)
//   w = np.sort([(d[i] + d[j]) / 2 for i in range(10) for j in range(i, 10)])
//   k = lower_rank(10)
//   print(np.exp(np.median(w)), np.exp(w[k - 1]), np.exp(w[len(w) - k]))
//   # 1.1165536634782842 1.0788916035443883 1.1489762922473727
//   # SciPy's exact signed-rank test puts the ends where they are: the log-ratios
//   # shifted by a value just inside the interval give p = 0.0645, just outside 0.0488.
//   print(wilcoxon(d - (w[k - 1] + 1e-9), method='exact').pvalue,
//         wilcoxon(d - (w[k - 1] - 1e-9), method='exact').pvalue)
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/stats/paired_statistics.h"

namespace lmroof::stats {
namespace {

TEST(PairedStatistics, SignedRankCriticalRanksMatchEnumeration) {
  EXPECT_EQ(signed_rank_lower_rank(5, 0.95), 0);  // 5 rounds give no 95% interval
  EXPECT_EQ(signed_rank_lower_rank(6, 0.95), 1);
  EXPECT_EQ(signed_rank_lower_rank(8, 0.95), 4);
  EXPECT_EQ(signed_rank_lower_rank(10, 0.95), 9);
  EXPECT_EQ(signed_rank_lower_rank(12, 0.95), 14);
  EXPECT_EQ(signed_rank_lower_rank(16, 0.95), 30);
}

TEST(PairedStatistics, HodgesLehmannAndIntervalMatchNumPy) {
  const std::vector<double> base = {10.2, 10.9, 10.4, 11.8, 10.1, 10.6, 10.3, 12.0, 10.5, 10.7};
  const std::vector<double> cand = {9.1, 9.8, 9.6, 10.3, 9.4, 9.0, 9.7, 10.2, 9.9, 9.3};
  const PairedEstimate e = estimate_paired_speedup(base, cand);
  EXPECT_EQ(e.rounds, 10);
  EXPECT_NEAR(e.speedup, 1.1165536634782842, 1e-12);
  ASSERT_TRUE(e.low && e.high);
  EXPECT_NEAR(*e.low, 1.0788916035443883, 1e-12);
  EXPECT_NEAR(*e.high, 1.1489762922473727, 1e-12);
}

TEST(PairedStatistics, DriftCommonToBothSidesCancels) {
  // The machine slows by up to 2.5x over the rounds; the candidate is always 20% faster.
  std::vector<double> base, cand;
  for (int i = 0; i < 10; ++i) {
    const double machine = 1.0 + 0.15 * i;
    base.push_back(1.2 * machine * (1 + 0.001 * (i % 3)));
    cand.push_back(1.0 * machine);
  }
  const PairedEstimate e = estimate_paired_speedup(base, cand);
  EXPECT_NEAR(e.speedup, 1.2012, 1e-3);
  ASSERT_TRUE(e.low && e.high);
  EXPECT_GT(*e.low, 1.19);
  EXPECT_LT(*e.high, 1.21);
}

TEST(PairedStatistics, TooFewRoundsGiveNoInterval) {
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {1, 1, 1, 1, 1};
  const PairedEstimate e = estimate_paired_speedup(a, b);
  EXPECT_FALSE(e.low || e.high);
  EXPECT_GT(e.speedup, 0);
}

TEST(PairedStatistics, RejectsBadInput) {
  const std::vector<double> a = {1, 2}, b = {1}, bad = {1, -1};
  EXPECT_THROW(estimate_paired_speedup(a, b), std::invalid_argument);
  EXPECT_THROW(estimate_paired_speedup(a, bad), std::invalid_argument);
  EXPECT_THROW(estimate_paired_speedup(std::vector<double>{}, std::vector<double>{}), std::invalid_argument);
}

TEST(PairedStatistics, FloorHalfWidthIsTheLargerSide) {
  EXPECT_NEAR(floor_half_width(0.98, 1.01), 1 / 0.98 - 1, 1e-15);
  EXPECT_NEAR(floor_half_width(0.999, 1.03), 0.03, 1e-15);
}

}  // namespace
}  // namespace lmroof::stats
