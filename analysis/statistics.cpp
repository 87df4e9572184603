#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
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

// ---- speedup interval and U test ---------------------------------------------------
namespace {

// Linear interpolation between order statistics (numpy's default "linear").
double quantile_sorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

void check_times(std::span<const double> samples, const char* side) {
  if (samples.empty()) throw std::invalid_argument(std::string("speedup_interval: no ") + side + " samples");
  for (double s : samples)
    if (!std::isfinite(s) || s <= 0)
      throw std::invalid_argument(std::string("speedup_interval: a ") + side + " sample is " + std::to_string(s) +
                                  ", expected a positive time");
}

// P(U >= u) under H0 for samples of sizes m and n without ties: the counts of U are
// the coefficients of the Gaussian binomial [m+n choose m]_q, built as
// prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), each step again a Gaussian binomial.
double exact_upper_tail(double u, size_t m, size_t n) {
  if (m > n) std::swap(m, n);
  const size_t max_u = m * n;
  std::vector<long double> c(max_u + 1, 0.0L);
  c[0] = 1;
  size_t degree = 0;
  for (size_t i = 1; i <= m; ++i) {
    const size_t shift = n + i;
    degree += n;  // [n+i choose i] has degree i*n
    for (size_t k = degree; k >= shift; --k) c[k] -= c[k - shift];
    for (size_t k = i; k <= degree; ++k) c[k] += c[k - i];
  }
  long double total = 0, tail = 0;
  for (size_t k = 0; k <= max_u; ++k) {
    total += c[k];
    if (static_cast<double>(k) >= u) tail += c[k];
  }
  return static_cast<double>(tail / total);
}

}  // namespace

Interval speedup_interval(std::span<const double> base, std::span<const double> next, double confidence, int resamples,
                          uint64_t seed) {
  check_times(base, "base");
  check_times(next, "new");
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("speedup_interval: confidence must be in (0, 1)");
  if (resamples < 1) throw std::invalid_argument("speedup_interval: resamples must be at least 1");

  std::vector<double> a(base.begin(), base.end()), b(next.begin(), next.end());
  Interval out;
  out.estimate = median(a) / median(b);

  // A fixed generator and our own index mapping (not std::uniform_int_distribution,
  // whose output differs between standard libraries): the same files give the same
  // interval everywhere.
  std::mt19937_64 rng(seed);
  auto draw = [&](std::span<const double> from, std::vector<double>& into) {
    for (double& x : into) x = from[rng() % from.size()];
  };
  std::vector<double> ratios(static_cast<size_t>(resamples));
  for (double& r : ratios) {
    draw(base, a);
    draw(next, b);
    r = median(a) / median(b);
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - confidence) / 2;
  out.low = quantile_sorted(ratios, tail);
  out.high = quantile_sorted(ratios, 1 - tail);
  return out;
}

MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("mann_whitney_u: both samples need at least one value");
  const size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;
  struct Item {
    double value;
    bool first;
  };
  std::vector<Item> all;
  all.reserve(n);
  for (double v : x) all.push_back({v, true});
  for (double v : y) all.push_back({v, false});
  for (const Item& it : all)
    if (std::isnan(it.value)) throw std::invalid_argument("mann_whitney_u: a sample is NaN");
  std::sort(all.begin(), all.end(), [](const Item& a, const Item& b) { return a.value < b.value; });

  // Mid-ranks for ties; the tie term sum(t^3 - t) corrects the variance.
  double rank_sum_x = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].value == all[i].value) ++j;
    const double t = static_cast<double>(j - i);
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (all[k].first) rank_sum_x += rank;
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }

  MannWhitney out;
  const double nn1 = static_cast<double>(n1), nn2 = static_cast<double>(n2), nn = static_cast<double>(n);
  out.u = rank_sum_x - nn1 * (nn1 + 1) / 2;
  const double u_big = std::max(out.u, nn1 * nn2 - out.u);
  out.exact = !(n1 > 8 && n2 > 8) && !ties;
  if (out.exact) {
    out.p_value = std::min(1.0, 2 * exact_upper_tail(u_big, n1, n2));
    return out;
  }
  const double sd = std::sqrt(nn1 * nn2 / 12 * ((nn + 1) - tie_term / (nn * (nn - 1))));
  if (!(sd > 0)) {  // every value equal: no evidence of any difference
    out.p_value = 1;
    return out;
  }
  const double z = (u_big - nn1 * nn2 / 2 - 0.5) / sd;
  out.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));  // 2 * P(Z > z)
  return out;
}

Summary summarize(std::span<const double> samples) {
  if (samples.empty()) return {};
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  return {median(samples), *lo, *hi, mean(samples), cv(samples)};
}

}  // namespace lmroof::stats
