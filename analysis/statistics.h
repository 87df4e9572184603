#pragma once
// Summary statistics of repeated measurements, in one place: the analysis (time
// stats of a run), the claims checker (noise of a comparison) and the CLI use these.
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

}  // namespace lmroof::stats
