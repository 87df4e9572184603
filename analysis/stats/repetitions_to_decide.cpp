#include "analysis/stats/repetitions_to_decide.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/stats/statistics.h"

namespace lmroof::stats {

namespace {

// The smallest p the exact two-sided test can give with n + n samples: 2 / C(2n, n).
double smallest_p(int64_t n) {
  double c = 1;
  for (int64_t i = 1; i <= n; ++i) c = c * static_cast<double>(n + i) / static_cast<double>(i);
  return 2 / c;
}

constexpr int64_t kMostRepetitions = 1'000'000;  // beyond this the answer is "never", in practice

}  // namespace

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_quantile: p must lie in (0, 1)");
  // Bisection on Phi(z) = erfc(-z / sqrt 2) / 2: 200 halvings of [-40, 40] reach double precision.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

std::optional<int64_t> repetitions_to_decide(std::span<const double> base, std::span<const double> next, double alpha,
                                             double power) {
  if (base.empty() || next.empty()) return std::nullopt;
  const double pairs = static_cast<double>(base.size()) * static_cast<double>(next.size());
  const double effect = mann_whitney_u(base, next).u / pairs - 0.5;  // P - 1/2
  if (effect == 0) return std::nullopt;
  const double z = normal_quantile(1 - alpha / 2) + normal_quantile(power);
  const double total = z * z / (12 * 0.25 * effect * effect);
  int64_t n = static_cast<int64_t>(std::ceil(std::min(total / 2, static_cast<double>(kMostRepetitions))));
  while (n < kMostRepetitions && smallest_p(n) >= alpha) ++n;
  n = std::max<int64_t>(n, static_cast<int64_t>(std::max(base.size(), next.size())) + 1);
  return n;
}

}  // namespace lmroof::stats
