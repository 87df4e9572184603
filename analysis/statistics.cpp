#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace lmroof::stats {

double median(std::span<const double> samples) {
  if (samples.empty()) return 0;
  std::vector<double> v(samples.begin(), samples.end());
  const size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  const double upper = v[n / 2];
  if (n % 2) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + n / 2);
  return 0.5 * (lower + upper);
}

double mean(std::span<const double> samples) {
  if (samples.empty()) return 0;
  return std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
}

double stddev(std::span<const double> samples) {
  if (samples.size() < 2) return 0;
  const double m = mean(samples);
  double sq = 0;
  for (double s : samples) sq += (s - m) * (s - m);
  return std::sqrt(sq / static_cast<double>(samples.size() - 1));
}

double cv(std::span<const double> samples) {
  const double m = mean(samples);
  return m > 0 ? stddev(samples) / m : 0.0;
}

Summary summarize(std::span<const double> samples) {
  if (samples.empty()) return {};
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  return {median(samples), *lo, *hi, mean(samples), cv(samples)};
}

}  // namespace lmroof::stats
