#include "analysis/stats/repetitions_to_decide.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/stats/statistics.h"

namespace lmroof::stats {

namespace {

constexpr int64_t kMostRepetitions = 1'000'000;  // beyond this the answer is "never", in practice

}  // namespace

std::optional<int64_t> repetitions_to_decide(std::span<const double> base, std::span<const double> next, double alpha,
                                             double power) {
  if (base.empty() || next.empty()) return std::nullopt;
  const double pairs = static_cast<double>(base.size()) * static_cast<double>(next.size());
  const double effect = mann_whitney_u(base, next).u / pairs - 0.5;  // P - 1/2
  if (effect == 0) return std::nullopt;
  const double z = normal_quantile(1 - alpha / 2) + normal_quantile(power);
  const double total = z * z / (12 * 0.25 * effect * effect);
  int64_t n = static_cast<int64_t>(std::ceil(std::min(total / 2, static_cast<double>(kMostRepetitions))));
  while (n < kMostRepetitions && smallest_u_test_p(static_cast<size_t>(n), static_cast<size_t>(n)) >= alpha) ++n;
  n = std::max<int64_t>(n, static_cast<int64_t>(std::max(base.size(), next.size())) + 1);
  return n;
}

}  // namespace lmroof::stats
