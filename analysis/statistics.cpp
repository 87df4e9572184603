#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
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

Summary summarize(std::span<const double> samples) {
  if (samples.empty()) return {};
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  return {median(samples), *lo, *hi, mean(samples), cv(samples)};
}

namespace {

// splitmix64: a tiny generator with a fixed, documented sequence on every platform
// (std::uniform_int_distribution is not specified bit for bit).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n): the high half of a 64x64 multiply (bias < n / 2^64).
  size_t below(size_t n) { return static_cast<size_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }

 private:
  uint64_t state_;
};

void check_samples(std::span<const double> samples, const char* side) {
  if (samples.empty()) throw std::invalid_argument(std::string(side) + " has no samples");
  for (double s : samples)
    if (!(s > 0) || !std::isfinite(s))
      throw std::invalid_argument(std::string(side) + " has a sample that is not a positive number");
}

// Median of `n` draws with replacement from `samples`, using `scratch` as storage.
double resampled_median(std::span<const double> samples, Rng& rng, std::vector<double>& scratch) {
  scratch.resize(samples.size());
  for (double& v : scratch) v = samples[rng.below(samples.size())];
  return median(scratch);
}

// Linear interpolation between order statistics (the "type 7" quantile of R and numpy).
double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// Number of ways each U value arises for sample sizes m and n with no ties (U counts
// the pairs x_i > y_j): the recursion c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u).
std::vector<double> u_distribution(size_t m, size_t n) {
  // table[i][j]: counts for sizes (i, j); only the previous row is needed.
  std::vector<std::vector<double>> prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = {1.0};  // i = 0: U is 0 in one way
  for (size_t i = 1; i <= m; ++i) {
    cur[0] = {1.0};  // j = 0: U is 0 in one way
    for (size_t j = 1; j <= n; ++j) {
      std::vector<double> c(i * j + 1, 0.0);
      // the largest of all i + j values is an x (it beats all j y's) or a y
      for (size_t u = 0; u < prev[j].size(); ++u) c[u + j] += prev[j][u];
      for (size_t u = 0; u < cur[j - 1].size(); ++u) c[u] += cur[j - 1][u];
      cur[j] = std::move(c);
    }
    std::swap(prev, cur);
  }
  return prev[n];
}

}  // namespace

MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  MannWhitney r;
  const size_t m = x.size(), n = y.size();
  if (m == 0 || n == 0) return r;
  for (double v : x)
    if (std::isnan(v)) throw std::invalid_argument("Mann-Whitney U test: a sample is NaN");
  for (double v : y)
    if (std::isnan(v)) throw std::invalid_argument("Mann-Whitney U test: a sample is NaN");
  // Midranks of the pooled sample.
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(m + n);
  for (double v : x) pooled.emplace_back(v, 0);
  for (double v : y) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1 .. j
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) rank_sum_x += midrank;
    if (t > 1) ties = true, tie_term += t * t * t - t;
    i = j;
  }
  const double md = static_cast<double>(m), nd = static_cast<double>(n), total = md + nd;
  const double u = rank_sum_x - md * (md + 1) / 2;  // pairs with x_i > y_j (ties count 1/2)
  r.u = u;

  if (!ties && std::min(m, n) <= 8) {  // scipy's "auto": exact for a small side without ties
    const std::vector<double> counts = u_distribution(m, n);
    const double all = std::accumulate(counts.begin(), counts.end(), 0.0);
    const size_t k = static_cast<size_t>(std::llround(u));
    double lower = 0, upper = 0;
    for (size_t v = 0; v < counts.size(); ++v) {
      if (v <= k) lower += counts[v];
      if (v >= k) upper += counts[v];
    }
    r.exact = true;
    r.p_value = std::min(1.0, 2 * std::min(lower, upper) / all);
    return r;
  }
  const double mu = md * nd / 2;
  const double variance = md * nd / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (!(variance > 0)) return r;  // every value equal: p = 1
  const double z = std::max(0.0, std::abs(u - mu) - 0.5) / std::sqrt(variance);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

double mann_whitney_p(std::span<const double> x, std::span<const double> y, bool* exact) {
  const MannWhitney r = mann_whitney_u(x, y);
  if (exact) *exact = r.exact;
  return r.p_value;
}

Interval bootstrap_median_interval(std::span<const double> samples, double confidence, int resamples, uint64_t seed) {
  if (samples.empty()) return {};
  Rng rng(seed);
  std::vector<double> medians(static_cast<size_t>(std::max(1, resamples))), scratch;
  for (double& m : medians) m = resampled_median(samples, rng, scratch);
  std::sort(medians.begin(), medians.end());
  const double alpha = 1 - confidence;
  return {quantile_sorted(medians, alpha / 2), quantile_sorted(medians, 1 - alpha / 2)};
}

SpeedupEstimate estimate_speedup(std::span<const double> baseline, std::span<const double> candidate,
                                 const SpeedupOptions& options) {
  check_samples(baseline, "the baseline");
  check_samples(candidate, "the candidate");
  if (!(options.confidence > 0 && options.confidence < 1))
    throw std::invalid_argument("confidence must lie in (0, 1)");
  SpeedupEstimate e;
  e.baseline_samples = static_cast<int>(baseline.size());
  e.candidate_samples = static_cast<int>(candidate.size());
  e.speedup = median(baseline) / median(candidate);
  e.p_value = mann_whitney_p(baseline, candidate, &e.p_exact);

  std::vector<double> pairwise;
  pairwise.reserve(baseline.size() * candidate.size());
  for (double b : baseline)
    for (double c : candidate) pairwise.push_back(b / c);
  e.hodges_lehmann = median(pairwise);

  const int min_samples = std::max(2, options.min_samples);
  if (e.baseline_samples < min_samples || e.candidate_samples < min_samples) {
    e.noise = std::numeric_limits<double>::infinity();
    return e;
  }
  Rng rng(options.seed);
  std::vector<double> ratios(static_cast<size_t>(std::max(1, options.resamples))), scratch;
  for (double& r : ratios) {
    const double b = resampled_median(baseline, rng, scratch);
    r = b / resampled_median(candidate, rng, scratch);
  }
  std::sort(ratios.begin(), ratios.end());
  const double alpha = 1 - options.confidence;
  const double floor = 1 + std::max(0.0, options.noise_floor);
  e.low = std::min(quantile_sorted(ratios, alpha / 2), e.speedup / floor);
  e.high = std::max(quantile_sorted(ratios, 1 - alpha / 2), e.speedup * floor);
  e.noise = std::max(e.high / e.speedup, e.speedup / e.low) - 1;
  return e;
}

}  // namespace lmroof::stats
