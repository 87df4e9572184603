#pragma once
// Summary statistics of repeated measurements, in one place: the analysis (time
// stats of a run), the claims checker (noise of a comparison) and the CLI use these.
#include <cstddef>
#include <cstdint>
#include <span>

#include "analysis/rules/rules.h"

namespace lmroof::stats {

// Each takes the samples as given (any order); an empty span gives 0.
double median(std::span<const double> samples);
double mean(std::span<const double> samples);
// Sample standard deviation (n - 1); 0 for fewer than two samples.
double stddev(std::span<const double> samples);
// Coefficient of variation: stddev / mean; 0 when the mean is not positive.
double cv(std::span<const double> samples);

struct Summary {
  double median = 0, min = 0, max = 0, mean = 0, cv = 0;
};
Summary summarize(std::span<const double> samples);

// ---- comparing two runs: the speedup, its interval and one noise figure -------------
//
// Every comparison of two runs' times (the report's key results and comparisons table,
// the claims checker, `lmroof check`) goes through estimate_speedup, so a comparison has
// one interval and one noise figure wherever it is shown. docs/claims.md#noise explains
// the choice of statistics.

struct SpeedupOptions {
  double confidence = rules::kConfidence;  // of the bootstrap interval, in (0, 1)
  int resamples = rules::kSpeedupResamples;  // bootstrap resamples
  // Fixed, so the same samples always give the same interval (results.json, the report
  // and `lmroof check` must agree to the last digit).
  uint64_t seed = rules::kBootstrapSeed;
  // The smallest noise reported: a timing is never trusted to better than this, whatever
  // the repetitions say (clock drift, frequency changes between runs).
  double noise_floor = rules::kNoiseFloor;
  // Fewer repetitions than this on either side give no interval (noise: infinite).
  int min_samples = rules::kMinSamplesForInterval;
};

struct SpeedupEstimate {
  int baseline_samples = 0, candidate_samples = 0;
  // median(baseline) / median(candidate): > 1 when the candidate is faster.
  double speedup = 0;
  // Percentile bootstrap interval of the ratio of medians (each side resampled on its
  // own), widened to at least speedup / (1 + noise_floor) .. speedup * (1 + noise_floor).
  double low = 0, high = 0;
  // The one noise figure: the interval's larger half-width, relative and symmetric in log
  // space, so [speedup / (1 + noise), speedup * (1 + noise)] contains [low, high].
  // Infinity when there is no interval (too few samples).
  double noise = 0;
  // Two-sided Mann-Whitney U test that the two time distributions are the same (exact
  // when there are no ties and the samples are small, else the normal approximation
  // with tie and continuity correction). 1 without samples.
  double p_value = 1;
  bool p_exact = false;
  // Hodges-Lehmann estimate of the ratio: the median of every baseline_i / candidate_j.
  double hodges_lehmann = 0;

  bool has_interval() const { return low > 0 && high > 0; }
};

// Times (seconds, > 0) of the baseline's and the candidate's repetitions, any order.
// Throws std::invalid_argument for an empty side or a sample that is not a positive
// finite number.
SpeedupEstimate estimate_speedup(std::span<const double> baseline, std::span<const double> candidate,
                                 const SpeedupOptions& options = {});

// Two-sided Mann-Whitney U test of x against y, as scipy.stats.mannwhitneyu(x, y)
// (method "auto", use_continuity=True; Google Benchmark's tools/compare.py uses it):
// exact when there are no ties and a side has at most 8 values, else the normal
// approximation with tie and continuity correction.
struct MannWhitney {
  double u = 0;        // U of x: pairs with x_i > y_j, ties counting 1/2 (scipy's `statistic`)
  double p_value = 1;  // two-sided; 1 for an empty side
  bool exact = false;
};
MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y);
// The p value alone; `exact` reports the method used.
double mann_whitney_p(std::span<const double> x, std::span<const double> y, bool* exact = nullptr);
// The smallest two-sided p the exact U test can give with n1 + n2 samples and no ties:
// 2 / C(n1 + n2, n1) (3 + 3: 0.1, so no change between them can pass p < 0.05).
double smallest_u_test_p(size_t n1, size_t n2);

// The standard normal quantile: z with Phi(z) = p, p in (0, 1) (the upper p-quantile
// is -normal_quantile(p)). Throws std::invalid_argument outside (0, 1).
double normal_quantile(double p);

// The percentile bootstrap interval of the median of one sample set (relative noise of a
// single run, for the adaptive repetition criterion): {low, high}.
struct Interval {
  double low = 0, high = 0;
};
Interval bootstrap_median_interval(std::span<const double> samples, double confidence = rules::kConfidence,
                                   int resamples = rules::kMedianIntervalResamples,
                                   uint64_t seed = rules::kBootstrapSeed);


}  // namespace lmroof::stats
