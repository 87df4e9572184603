// The statistics that decide verdicts (analysis/stats/statistics.h): the Mann-Whitney U test
// against values enumerated by hand (every split of the pooled sample, see the comments)
// and the bootstrap interval of a speedup against cases whose answer is known.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "analysis/stats/statistics.h"

namespace lmroof::stats {
namespace {

TEST(MannWhitney, CompleteSeparationOfFiveAgainstFiveIsTwoOf252) {
  // U = 0 (or 25) arises in 1 of C(10, 5) = 252 splits each way: p = 2 / 252.
  const std::vector<double> x = {1, 2, 3, 4, 5}, y = {6, 7, 8, 9, 10};
  bool exact = false;
  EXPECT_NEAR(mann_whitney_p(x, y, &exact), 2.0 / 252, 1e-12);
  EXPECT_TRUE(exact);
  EXPECT_NEAR(mann_whitney_p(y, x), 2.0 / 252, 1e-12);  // symmetric
}

TEST(MannWhitney, ThreeAgainstThreeCanNeverReachFivePercent) {
  // The most extreme split has p = 2 / C(6, 3) = 0.1: three repetitions cannot decide.
  const std::vector<double> x = {1, 2, 3}, y = {10, 20, 30};
  EXPECT_NEAR(mann_whitney_p(x, y), 0.1, 1e-12);
}

TEST(MannWhitney, SmallestPIsTwoOverTheBinomial) {
  // One function for compare's "cannot reach p < alpha" and repetitions_to_decide's floor.
  EXPECT_NEAR(stats::smallest_u_test_p(3, 3), 0.1, 1e-15);        // 2 / C(6, 3) = 2 / 20
  EXPECT_NEAR(stats::smallest_u_test_p(5, 5), 2.0 / 252, 1e-15);  // 2 / C(10, 5)
  EXPECT_NEAR(stats::smallest_u_test_p(2, 4), 2.0 / 15, 1e-15);   // 2 / C(6, 2)
  EXPECT_NEAR(stats::smallest_u_test_p(4, 2), 2.0 / 15, 1e-15);
}

TEST(NormalQuantile, UpperQuantileIsTheNegatedLowerOne) {
  // The paired interval's large-n path uses -normal_quantile(tail) as the upper quantile.
  EXPECT_NEAR(-stats::normal_quantile(0.025), 1.959963984540054, 1e-9);
  EXPECT_NEAR(-stats::normal_quantile(0.005), 2.5758293035489004, 1e-9);
}

TEST(MannWhitney, ExactDistributionMatchesEnumeration) {
  // Enumerated over all C(9, 5) = 126 and C(15, 7) = 6435 splits (python itertools):
  // U = 4 -> p = 24 / 126; U = 14 -> p = 0.1205905205905206.
  const std::vector<double> x = {1.1, 2.3, 3.7, 4.2, 5.9}, y = {2.0, 6.1, 7.4, 8.8};
  EXPECT_NEAR(mann_whitney_p(x, y), 24.0 / 126, 1e-12);
  const std::vector<double> a = {1.5, 2.5, 3.0, 3.5, 4.0, 5.5, 6.0}, b = {2.0, 3.2, 4.5, 5.0, 6.5, 7.0, 7.5, 8.0};
  EXPECT_NEAR(mann_whitney_p(a, b), 0.1205905205905206, 1e-12);
}

TEST(MannWhitney, TiesUseTheNormalApproximationWithTieCorrection) {
  // x = {1,2,2,3,4,5}, y = {3,4,4,5,6,7,8}: U = 6, mean 21, tie groups 2,2,3,2 give
  // sum(t^3 - t) = 36, variance 42/12 * (14 - 36/156), z = (15 - 0.5) / sd,
  // p = erfc(z / sqrt 2) = 0.0364709007712748.
  const std::vector<double> x = {1, 2, 2, 3, 4, 5}, y = {3, 4, 4, 5, 6, 7, 8};
  bool exact = true;
  EXPECT_NEAR(mann_whitney_p(x, y, &exact), 0.0364709007712748, 1e-12);
  EXPECT_FALSE(exact);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  // 30 against 30, y shifted by 10.5: U = 190, p = 0.00012477053789099963.
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) x.push_back(i), y.push_back(i + 10.5);
  bool exact = true;
  EXPECT_NEAR(mann_whitney_p(x, y, &exact), 0.00012477053789099963, 1e-12);
  EXPECT_FALSE(exact);
}

TEST(MannWhitney, IdenticalSamplesGiveOne) {
  const std::vector<double> x = {2, 2, 2}, y = {2, 2, 2, 2};
  EXPECT_EQ(mann_whitney_p(x, y), 1.0);
}

TEST(EstimateSpeedup, ConstantSamplesGiveTheRatioAndOnlyTheNoiseFloor) {
  const std::vector<double> base(5, 2e-3), cand(5, 1e-3);
  const SpeedupEstimate e = estimate_speedup(base, cand);
  EXPECT_DOUBLE_EQ(e.speedup, 2.0);
  EXPECT_DOUBLE_EQ(e.hodges_lehmann, 2.0);
  EXPECT_NEAR(e.low, 2.0 / 1.01, 1e-12);
  EXPECT_NEAR(e.high, 2.0 * 1.01, 1e-12);
  EXPECT_NEAR(e.noise, 0.01, 1e-12);
  EXPECT_TRUE(e.has_interval());
}

TEST(EstimateSpeedup, HodgesLehmannIsTheMedianOfPairwiseRatios) {
  // Ratios 1.818, 2, 2, 2.182, 2.2, 2.4: median (2 + 2.182) / 2.
  const std::vector<double> base = {2.0, 2.2, 2.4}, cand = {1.0, 1.1};
  EXPECT_NEAR(estimate_speedup(base, cand).hodges_lehmann, (2.0 + 2.4 / 1.1) / 2, 1e-12);
}

TEST(EstimateSpeedup, IntervalContainsTheSpeedupAndIsDeterministic) {
  const std::vector<double> base = {4.1, 4.0, 4.3, 3.9, 5.6, 4.2, 4.0, 4.4, 4.1};
  const std::vector<double> cand = {1.02, 1.0, 0.98, 1.3, 1.01, 0.99, 1.05, 1.0, 1.0};
  const SpeedupEstimate a = estimate_speedup(base, cand), b = estimate_speedup(base, cand);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_LT(a.low, a.speedup);
  EXPECT_GT(a.high, a.speedup);
  EXPECT_GE(a.speedup * (1 + a.noise), a.high * (1 - 1e-12));
  EXPECT_LE(a.speedup / (1 + a.noise), a.low * (1 + 1e-12));
  // One outlier on each side does not make a 4x effect uncertain: the interval stays
  // well above 3 (the min-max envelope would reach 3.9 / 1.3 = 3.0).
  EXPECT_GT(a.low, 3.5);
  EXPECT_LT(a.p_value, 0.001);
}

TEST(EstimateSpeedup, MoreRepetitionsNarrowTheInterval) {
  // The same two spreads, sampled 5 and 40 times.
  auto spread = [](int n, double centre) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(centre * (1 + 0.2 * ((i * 7) % n) / n - 0.1));
    return v;
  };
  const SpeedupEstimate few = estimate_speedup(spread(5, 2), spread(5, 1));
  const SpeedupEstimate many = estimate_speedup(spread(40, 2), spread(40, 1));
  EXPECT_LT(many.noise, few.noise);
}

TEST(EstimateSpeedup, TooFewSamplesGiveNoInterval) {
  const std::vector<double> base = {2.0, 2.1}, cand = {1.0, 1.0, 1.1};
  const SpeedupEstimate e = estimate_speedup(base, cand);
  EXPECT_FALSE(e.has_interval());
  EXPECT_TRUE(std::isinf(e.noise));
  EXPECT_NEAR(e.speedup, 2.05, 1e-12);
}

TEST(EstimateSpeedup, RejectsEmptyAndNonPositiveSamples) {
  const std::vector<double> ok = {1.0, 1.0, 1.0}, empty, bad = {1.0, 0.0, 1.0};
  EXPECT_THROW(estimate_speedup(empty, ok), std::invalid_argument);
  EXPECT_THROW(estimate_speedup(ok, bad), std::invalid_argument);
  EXPECT_THROW(estimate_speedup(ok, {std::vector<double>{NAN, 1.0, 1.0}}), std::invalid_argument);
}

TEST(BootstrapMedian, ConstantSamplesGiveAPointAndSpreadGivesAnInterval) {
  const std::vector<double> same(7, 3.0);
  const Interval i = bootstrap_median_interval(same);
  EXPECT_EQ(i.low, 3.0);
  EXPECT_EQ(i.high, 3.0);
  const std::vector<double> spread = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const Interval j = bootstrap_median_interval(spread);
  EXPECT_LT(j.low, 5.0);
  EXPECT_GT(j.high, 5.0);
  EXPECT_GE(j.low, 1.0);
  EXPECT_LE(j.high, 9.0);
}

// ---- the bootstrap, exactly as documented --------------------------------------------
//
// The interval is part of results.json, the report and `lmroof check`, which must agree
// to the last digit, so the fast paths in statistics.cpp (counting draws by rank, the
// data-independent draw plan, selecting quantiles instead of sorting) must give the
// numbers of the plain algorithm: splitmix64 from the fixed seed, each resample drawn
// side by side (baseline, then candidate), its median sorted out, the ratios sorted and
// the type 7 quantiles read off. This is that algorithm, compared bit for bit.
namespace reference {

struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return static_cast<size_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }
};

double sorted_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double resampled_median(const std::vector<double>& samples, Rng& rng) {
  std::vector<double> v(samples.size());
  for (double& x : v) x = samples[rng.below(samples.size())];
  return sorted_median(v);
}

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// {low, high} before the noise floor widens them.
std::pair<double, double> speedup_interval(const std::vector<double>& b, const std::vector<double>& c) {
  const SpeedupOptions o;
  Rng rng{o.seed};
  std::vector<double> ratios(static_cast<size_t>(o.resamples));
  for (double& r : ratios) {
    const double x = resampled_median(b, rng);
    r = x / resampled_median(c, rng);
  }
  std::sort(ratios.begin(), ratios.end());
  const double alpha = 1 - o.confidence;
  return {quantile(ratios, alpha / 2), quantile(ratios, 1 - alpha / 2)};
}

Interval median_interval(const std::vector<double>& samples) {
  Rng rng{0x6c6d726f6f66ULL};
  std::vector<double> medians(1000);
  for (double& m : medians) m = resampled_median(samples, rng);
  std::sort(medians.begin(), medians.end());
  const double alpha = 1 - 0.95;
  return {quantile(medians, alpha / 2), quantile(medians, 1 - alpha / 2)};
}

}  // namespace reference

TEST(EstimateSpeedup, BitForBitTheDocumentedBootstrap) {
  std::mt19937_64 gen(20261130);
  std::uniform_real_distribution<double> time(1e-4, 2e-4);
  int compared = 0;
  for (size_t nb : {3u, 4u, 5u, 6u, 9u, 10u, 16u, 17u, 70u})
    for (size_t nc : {3u, 5u, 8u, 65u}) {
      for (int trial = 0; trial < 3; ++trial) {
        std::vector<double> b(nb), c(nc);
        for (double& x : b) x = time(gen);
        for (double& x : c) x = time(gen);
        if (trial == 2) b[1] = b[0], c[nc - 1] = c[0];  // ties
        const SpeedupEstimate e = estimate_speedup(b, c);
        const auto [low, high] = reference::speedup_interval(b, c);
        const double speedup = reference::sorted_median(b) / reference::sorted_median(c);
        ASSERT_EQ(e.speedup, speedup) << nb << " vs " << nc;
        const double floor = 1 + SpeedupOptions{}.noise_floor;
        ASSERT_EQ(e.low, std::min(low, speedup / floor)) << nb << " vs " << nc << ", trial " << trial;
        ASSERT_EQ(e.high, std::max(high, speedup * floor)) << nb << " vs " << nc << ", trial " << trial;
        const Interval i = bootstrap_median_interval(b);
        const Interval want = reference::median_interval(b);
        ASSERT_EQ(i.low, want.low) << nb;
        ASSERT_EQ(i.high, want.high) << nb;
        ASSERT_EQ(median(b), reference::sorted_median(b));
        ++compared;
      }
    }
  EXPECT_EQ(compared, 108);
}

}  // namespace
}  // namespace lmroof::stats
