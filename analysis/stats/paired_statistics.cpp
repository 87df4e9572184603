#include "analysis/stats/paired_statistics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/stats/statistics.h"

namespace lmroof::stats {

namespace {

// Every (v_i + v_j) / 2 with i <= j, sorted: n(n+1)/2 of them.
std::vector<double> sorted_walsh_averages(std::span<const double> values) {
  std::vector<double> walsh;
  walsh.reserve(values.size() * (values.size() + 1) / 2);
  for (size_t i = 0; i < values.size(); ++i)
    for (size_t j = i; j < values.size(); ++j) walsh.push_back((values[i] + values[j]) / 2);
  std::sort(walsh.begin(), walsh.end());
  return walsh;
}

}  // namespace

double hodges_lehmann(std::span<const double> values) {
  if (values.empty()) return 0;
  const std::vector<double> walsh = sorted_walsh_averages(values);
  return median(walsh);
}

int64_t signed_rank_lower_rank(int n, double confidence) {
  if (n <= 0) return 0;
  const double tail = (1 - confidence) / 2;
  const int64_t total = static_cast<int64_t>(n) * (n + 1) / 2;
  if (n > 200) {
    const double mean = total / 2.0;
    const double sd = std::sqrt(n * (n + 1.0) * (2.0 * n + 1) / 24);
    return std::max<int64_t>(0, static_cast<int64_t>(std::floor(mean + normal_quantile(tail) * sd + 0.5)));
  }
  // The null distribution of T+ (each rank 1..n counted with probability 1/2): the
  // number of subsets of {1..n} with each sum, as probabilities.
  std::vector<double> p(static_cast<size_t>(total) + 1, 0.0);
  p[0] = 1;
  int64_t reach = 0;
  for (int r = 1; r <= n; ++r) {
    reach += r;
    for (int64_t s = reach; s >= 0; --s) p[s] = (p[s] + (s >= r ? p[s - r] : 0.0)) / 2;
  }
  int64_t k = 0;
  double cumulative = 0;  // P(T+ <= k - 1) for the next k
  while (k <= total) {
    if (cumulative + p[k] > tail * (1 + 1e-12)) break;
    cumulative += p[k];
    ++k;
  }
  return k;  // P(T+ <= k - 1) <= tail < P(T+ <= k)
}

PairedEstimate estimate_paired_speedup(std::span<const double> baseline, std::span<const double> candidate,
                                       double confidence) {
  if (baseline.size() != candidate.size())
    throw std::invalid_argument("paired times: the two sides have different round counts");
  if (baseline.empty()) throw std::invalid_argument("paired times: no rounds");
  std::vector<double> log_ratios;
  for (size_t i = 0; i < baseline.size(); ++i) {
    if (!(baseline[i] > 0) || !(candidate[i] > 0) || !std::isfinite(baseline[i]) || !std::isfinite(candidate[i]))
      throw std::invalid_argument("paired times: a time is not a positive finite number");
    log_ratios.push_back(std::log(baseline[i] / candidate[i]));
  }
  PairedEstimate e;
  e.rounds = static_cast<int>(log_ratios.size());
  const std::vector<double> walsh = sorted_walsh_averages(log_ratios);
  e.speedup = std::exp(median(walsh));
  const int64_t k = signed_rank_lower_rank(e.rounds, confidence);
  if (k >= 1) {
    const auto m = static_cast<int64_t>(walsh.size());
    e.low = std::exp(walsh[static_cast<size_t>(k - 1)]);
    e.high = std::exp(walsh[static_cast<size_t>(m - k)]);
  }
  return e;
}

double floor_half_width(double low, double high) { return std::max(high, 1 / low) - 1; }

}  // namespace lmroof::stats
