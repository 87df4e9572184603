#pragma once
// How many repetitions per side would let `lmroof compare` decide a change it could
// not: the speedup's interval excludes 1, but the Mann-Whitney U test cannot reject
// "same" with the repetitions at hand (3 + 3 can never give p below 0.1).
#include <cstdint>
#include <optional>
#include <span>

#include "analysis/rules/rules.h"
#include "analysis/stats/statistics.h"  // normal_quantile, smallest_u_test_p

namespace lmroof::stats {

// Repetitions per side for the two-sided U test at level `alpha` to detect the effect
// the samples show with probability `power`: Noether's (1987) sample size for the
// Wilcoxon-Mann-Whitney test, N = (z(1 - alpha/2) + z(power))^2 / (12 c (1 - c) (P - 1/2)^2)
// in all with equal sides (c = 1/2), where P = U / (n1 n2) is the observed probability
// that a base repetition is slower than a new one. Never fewer than the smallest n whose
// exact test can reach p < alpha at all (2 / C(2n, n) < alpha: 4 at 0.05), nor than
// the larger side has now plus one. nullopt when the samples show no effect (P = 1/2)
// or a side is empty.
std::optional<int64_t> repetitions_to_decide(std::span<const double> base, std::span<const double> next,
                                             double alpha = rules::kSignificance,
                                             double power = rules::kRepetitionsPower);

}  // namespace lmroof::stats
