#pragma once
// Statistics of paired, interleaved measurements (bench/paired_rounds.h): round i timed
// the baseline and the candidate back to back, so drift common to both sides (the
// machine's DRAM rate, its clock, a neighbour's load) cancels in the round's ratio.
// The speedup is estimated from the per-round log-ratios d_i = ln(baseline_i /
// candidate_i): the Hodges-Lehmann estimate (the median of the Walsh averages
// (d_i + d_j) / 2, i <= j) with the distribution-free interval that inverts the
// Wilcoxon signed-rank test (Hollander & Wolfe, Nonparametric Statistical Methods,
// ch. 3.2): exact for the round counts lmroof takes. docs/claims.md#paired explains
// the choice.
#include <cstdint>
#include <optional>
#include <span>

#include "analysis/rules/rules.h"

namespace lmroof::stats {

struct PairedEstimate {
  int rounds = 0;
  // exp(Hodges-Lehmann estimate of the log-ratios): > 1 when the candidate is faster.
  double speedup = 0;
  // exp of the Wilcoxon signed-rank interval's ends; absent when too few rounds give
  // one (at 95%, fewer than 6: even all signs alike have probability 2 / 2^n > 5%).
  // The statistic is discrete, so the interval covers at least `confidence`.
  std::optional<double> low, high;
};

// Times (seconds, > 0) of the two sides, one entry per round, in round order; the spans
// have the same length. Throws std::invalid_argument for mismatched lengths, no rounds
// or a time that is not a positive finite number.
PairedEstimate estimate_paired_speedup(std::span<const double> baseline, std::span<const double> candidate,
                                       double confidence = rules::kConfidence);

// The Hodges-Lehmann estimate of a sample's centre: the median of its Walsh averages.
double hodges_lehmann(std::span<const double> values);

// The rank k (1-based) of the Walsh average at the lower end of the signed-rank
// interval: the largest k with P(T+ <= k - 1) <= (1 - confidence) / 2 under the null
// (T+: the signed-rank statistic of n values, symmetric about 0); 0 when there is none.
// The upper end is the (n(n+1)/2 + 1 - k)-th. Exact for n <= 200, the normal
// approximation with continuity correction above.
int64_t signed_rank_lower_rank(int n, double confidence);

// The relative half-width x of an interval [low, high] of a ratio around 1, as "±x":
// max(high, 1 / low) - 1.
double floor_half_width(double low, double high);

}  // namespace lmroof::stats
