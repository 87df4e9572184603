#pragma once
// Summary statistics of repeated measurements, in one place: the analysis (time
// stats of a run), the claims checker (noise of a comparison) and the CLI use these.
#include <cstdint>
#include <span>

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

// ---- is a change between two sets of repetition timings real? ---------------------
// The two statistics `lmroof compare` reports per run: a bootstrap interval of the
// ratio of medians, and the two-sided Mann-Whitney U test Google Benchmark's
// tools/compare.py uses (scipy.stats.mannwhitneyu, method "auto").

struct Interval {
  double estimate = 0;  // the statistic on the samples themselves
  double low = 0, high = 0;
};

// base median / new median (> 1: `next` is faster) with a percentile bootstrap
// interval: each side resampled with replacement `resamples` times. Deterministic
// for a given seed. Throws std::invalid_argument for an empty side, a non-positive
// or non-finite sample, confidence outside (0, 1) or resamples < 1.
Interval speedup_interval(std::span<const double> base, std::span<const double> next, double confidence = 0.95,
                          int resamples = 2000, uint64_t seed = 0x5eed);

struct MannWhitney {
  double u = 0;        // U of the first sample (scipy's `statistic`)
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (no ties, a side of <= 8), else normal with continuity and tie correction
};

// Two-sided Mann-Whitney U test, as scipy.stats.mannwhitneyu(x, y) (method "auto",
// use_continuity=True). Throws std::invalid_argument for an empty side or a NaN.
MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y);

}  // namespace lmroof::stats
