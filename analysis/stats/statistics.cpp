#include "analysis/stats/statistics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace lmroof::stats {

namespace {

// The median of v[0, n), reordering it: an insertion sort for the handful of repetitions
// a run has, nth_element beyond. Every path gives the same order statistics, so the same
// value to the last bit.
double median_in_place(double* v, size_t n) {
  if (n == 0) return 0;
  if (n <= 16) {
    for (size_t i = 1; i < n; ++i) {
      const double x = v[i];
      size_t j = i;
      for (; j > 0 && x < v[j - 1]; --j) v[j] = v[j - 1];
      v[j] = x;
    }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  }
  std::nth_element(v, v + n / 2, v + n);
  const double upper = v[n / 2];
  if (n % 2) return upper;
  const double lower = *std::max_element(v, v + n / 2);
  return 0.5 * (lower + upper);
}

}  // namespace

double median(std::span<const double> samples) {
  const size_t n = samples.size();
  if (n <= 16) {  // no allocation for a run's repetitions (the bootstrap calls this a lot)
    double v[16];
    std::copy(samples.begin(), samples.end(), v);
    return median_in_place(v, n);
  }
  std::vector<double> v(samples.begin(), samples.end());
  return median_in_place(v.data(), n);
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

// Medians of `n` draws with replacement from `samples` (n = samples.size()). A draw is
// an index into `samples`; the resample's median is the value at the middle rank of the
// drawn ranks, so a resample is counted by rank instead of copied and sorted: the same
// value to the last bit as sorting the drawn values, without an allocation or a sort.
class Resampler {
 public:
  explicit Resampler(std::span<const double> samples) : sorted_(samples.begin(), samples.end()) {
    const size_t n = samples.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return samples[a] < samples[b]; });
    rank_.resize(n);
    for (size_t r = 0; r < n; ++r) rank_[order[r]] = static_cast<uint32_t>(r), sorted_[r] = samples[order[r]];
    counts_.assign(n, 0);
  }

  // A fresh resample, drawn with `rng`.
  double median(Rng& rng) {
    const size_t n = sorted_.size();
    if (n == 0) return 0;
    std::fill(counts_.begin(), counts_.end(), 0u);
    for (size_t k = 0; k < n; ++k) ++counts_[rank_[rng.below(n)]];
    return counted_median();
  }

  // The resample of these draws (indices into the samples, n of them).
  double median(std::span<const uint8_t> draws) {
    std::fill(counts_.begin(), counts_.end(), 0u);
    for (uint8_t i : draws) ++counts_[rank_[i]];
    return counted_median();
  }

 private:
  // The values at positions n/2 (and n/2 - 1 for even n) of the sorted resample.
  double counted_median() const {
    const size_t n = sorted_.size();
    if (n == 0) return 0;
    const size_t upper_pos = n / 2;
    size_t seen = 0, r = 0;
    double lower = 0;
    const bool even = n % 2 == 0;
    for (;; ++r) {
      const size_t next = seen + counts_[r];
      if (even && seen <= upper_pos - 1 && upper_pos - 1 < next) lower = sorted_[r];
      if (upper_pos < next) break;
      seen = next;
    }
    return even ? 0.5 * (lower + sorted_[r]) : sorted_[r];
  }

  std::vector<double> sorted_;
  std::vector<uint32_t> rank_;
  std::vector<uint32_t> counts_;
};

// The bootstrap's draws do not depend on the data: with its fixed seed, resample k of
// a side of n samples draws the same indices whatever the samples are. A DrawPlan holds
// them, made once per thread for each set of sizes, as each resample's multiset of
// drawn indices (a run's few repetitions give few distinct ones: 126 for 5 samples), so
// estimating a speedup computes each distinct multiset's median once and looks the
// resamples up instead of drawing 10 numbers per resample: the same medians, the same
// ratios, the same interval to the last bit, for the 20,000 comparisons of a 50,000-run
// `lmroof check` at a fraction of the cost.
struct DrawPlan {
  std::vector<std::vector<uint8_t>> multisets[2];  // sorted drawn indices, distinct
  std::vector<uint32_t> resample[2];                // each resample's multiset
};

// Sides of more samples are resampled directly (their multisets hardly repeat), and a
// thread keeps at most this many plans (each some 100 KB), so a file whose runs have
// every repetition count from 2 to 16 costs rebuilt plans, never unbounded memory.
constexpr size_t kPlanMaxSamples = 16;
constexpr size_t kMaxPlans = 32;

// `sizes`: the samples of each side, resampled in turn (baseline, then candidate) from
// one generator; {n, 0} for a single side.
const DrawPlan& draw_plan(std::array<size_t, 2> sizes, size_t resamples, uint64_t seed) {
  using Key = std::tuple<size_t, size_t, size_t, uint64_t>;
  thread_local std::map<Key, DrawPlan> plans;
  const Key key{sizes[0], sizes[1], resamples, seed};
  if (auto it = plans.find(key); it != plans.end()) return it->second;
  if (plans.size() >= kMaxPlans) plans.clear();  // callers hold no plan across calls
  DrawPlan plan;
  Rng rng(seed);
  std::map<std::string, uint32_t> ids[2];  // by the multiset's bytes
  std::vector<uint8_t> draws;
  for (size_t k = 0; k < resamples; ++k)
    for (size_t side = 0; side < 2 && sizes[side] > 0; ++side) {
      draws.resize(sizes[side]);
      for (auto& d : draws) d = static_cast<uint8_t>(rng.below(sizes[side]));
      std::sort(draws.begin(), draws.end());  // a resample's median depends on the multiset only
      const auto [it, fresh] = ids[side].try_emplace(std::string(draws.begin(), draws.end()),
                                                     static_cast<uint32_t>(plan.multisets[side].size()));
      if (fresh) plan.multisets[side].push_back(draws);
      plan.resample[side].push_back(it->second);
    }
  return plans.emplace(key, std::move(plan)).first->second;
}

// The median of every distinct multiset of `plan`'s side `side`.
std::vector<double> planned_medians(const DrawPlan& plan, size_t side, Resampler& resampler) {
  std::vector<double> out;
  out.reserve(plan.multisets[side].size());
  for (const auto& draws : plan.multisets[side]) out.push_back(resampler.median(draws));
  return out;
}

// Resample medians as counts: a side's distinct median values ("levels", ascending)
// and, for each multiset of a DrawPlan, the level of its median. A run's 5 samples give
// at most 5 levels, so 2,000 resamples fall into a few cells.
struct Levels {
  std::vector<double> values;
  std::vector<uint32_t> of;  // per multiset
};

Levels levels_of(const std::vector<double>& medians) {
  Levels l;
  l.values = medians;
  std::sort(l.values.begin(), l.values.end());
  l.values.erase(std::unique(l.values.begin(), l.values.end()), l.values.end());
  l.of.reserve(medians.size());
  for (double m : medians)
    l.of.push_back(static_cast<uint32_t>(std::lower_bound(l.values.begin(), l.values.end(), m) - l.values.begin()));
  return l;
}

// The quantiles q_low < q_high of a multiset given as (value, count) cells sorted by
// value: the type 7 quantiles of the sorted values the cells stand for, the same
// arithmetic as quantile_pair below, so the same numbers.
std::pair<double, double> counted_quantile_pair(const std::vector<std::pair<double, size_t>>& cells, double q_low,
                                                double q_high) {
  size_t n = 0;
  for (const auto& c : cells) n += c.second;
  if (n == 0) return {0, 0};
  auto order_statistic = [&](size_t i) {  // the i-th smallest, from 0
    size_t seen = 0;
    for (const auto& [value, count] : cells) {
      seen += count;
      if (i < seen) return value;
    }
    return cells.back().first;
  };
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(n - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, n - 1);
    const double a = order_statistic(lo), b = order_statistic(hi);
    return a + (pos - static_cast<double>(lo)) * (b - a);
  };
  return {at(q_low), at(q_high)};
}

// The quantiles q_low < q_high of `values` (which it reorders), each by linear
// interpolation between order statistics (the "type 7" quantile of R and numpy). The
// order statistics are found by selection, not a full sort: the same numbers.
std::pair<double, double> quantile_pair(std::vector<double>& values, double q_low, double q_high) {
  if (values.empty()) return {0, 0};
  const size_t n = values.size();
  auto at = [&](double q, size_t from) {
    const double pos = q * static_cast<double>(n - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, n - 1);
    std::nth_element(values.begin() + static_cast<std::ptrdiff_t>(std::min(from, lo)),
                     values.begin() + static_cast<std::ptrdiff_t>(lo), values.end());
    const double a = values[lo];
    const double b = hi == lo ? a : *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(hi), values.end());
    return std::pair{a + (pos - static_cast<double>(lo)) * (b - a), lo};
  };
  const auto [low, lo_index] = at(q_low, 0);
  // Everything from lo_index on is >= values[lo_index]: the upper quantile lies there.
  return {low, at(q_high, lo_index).first};
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
    // Every comparison of two runs asks for the same few sizes: computed once per thread.
    thread_local std::map<std::pair<size_t, size_t>, std::vector<double>> distributions;
    auto it = distributions.find({m, n});
    if (it == distributions.end()) it = distributions.emplace(std::pair{m, n}, u_distribution(m, n)).first;
    const std::vector<double>& counts = it->second;
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

double smallest_u_test_p(size_t n1, size_t n2) {
  double c = 1;  // C(n1 + n2, n1), as a double: it overflows no integer for large sides
  for (size_t i = 1; i <= n1; ++i) c = c * static_cast<double>(n2 + i) / static_cast<double>(i);
  return 2 / c;
}

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

double mann_whitney_p(std::span<const double> x, std::span<const double> y, bool* exact) {
  const MannWhitney r = mann_whitney_u(x, y);
  if (exact) *exact = r.exact;
  return r.p_value;
}

Interval bootstrap_median_interval(std::span<const double> samples, double confidence, int resamples, uint64_t seed) {
  if (samples.empty()) return {};
  Rng rng(seed);
  Resampler resampler(samples);
  std::vector<double> medians(static_cast<size_t>(std::max(1, resamples)));
  const double alpha = 1 - confidence;
  if (samples.size() <= kPlanMaxSamples) {
    // Counted: how many resamples have each median level.
    const DrawPlan& plan = draw_plan({samples.size(), 0}, medians.size(), seed);
    const Levels levels = levels_of(planned_medians(plan, 0, resampler));
    std::vector<std::pair<double, size_t>> cells;
    for (double v : levels.values) cells.emplace_back(v, 0);
    for (uint32_t id : plan.resample[0]) ++cells[levels.of[id]].second;
    const auto [low, high] = counted_quantile_pair(cells, alpha / 2, 1 - alpha / 2);
    return {low, high};
  }
  for (double& m : medians) m = resampler.median(rng);
  const auto [low, high] = quantile_pair(medians, alpha / 2, 1 - alpha / 2);
  return {low, high};
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
  Resampler base(baseline), cand(candidate);
  std::vector<double> ratios(static_cast<size_t>(std::max(1, options.resamples)));
  const double alpha = 1 - options.confidence;
  std::pair<double, double> q{0, 0};
  if (baseline.size() <= kPlanMaxSamples && candidate.size() <= kPlanMaxSamples) {
    const DrawPlan& plan = draw_plan({baseline.size(), candidate.size()}, ratios.size(), options.seed);
    const Levels b = levels_of(planned_medians(plan, 0, base)), c = levels_of(planned_medians(plan, 1, cand));
    const size_t cells = b.values.size() * c.values.size();
    if (cells <= ratios.size() / 4) {
      // Counted: how many resamples fall in each (baseline level, candidate level) cell.
      std::vector<size_t> count(cells, 0);
      for (size_t k = 0; k < ratios.size(); ++k)
        ++count[b.of[plan.resample[0][k]] * c.values.size() + c.of[plan.resample[1][k]]];
      std::vector<std::pair<double, size_t>> ratio_cells;
      for (size_t i = 0; i < cells; ++i)
        if (count[i]) ratio_cells.emplace_back(b.values[i / c.values.size()] / c.values[i % c.values.size()], count[i]);
      std::sort(ratio_cells.begin(), ratio_cells.end());
      q = counted_quantile_pair(ratio_cells, alpha / 2, 1 - alpha / 2);
    } else {
      for (size_t k = 0; k < ratios.size(); ++k)
        ratios[k] = b.values[b.of[plan.resample[0][k]]] / c.values[c.of[plan.resample[1][k]]];
      q = quantile_pair(ratios, alpha / 2, 1 - alpha / 2);
    }
  } else {
    for (double& r : ratios) {
      const double b = base.median(rng);
      r = b / cand.median(rng);
    }
    q = quantile_pair(ratios, alpha / 2, 1 - alpha / 2);
  }
  const double floor = 1 + std::max(0.0, options.noise_floor);
  const auto [q_low, q_high] = q;
  e.low = std::min(q_low, e.speedup / floor);
  e.high = std::max(q_high, e.speedup * floor);
  e.noise = std::max(e.high / e.speedup, e.speedup / e.low) - 1;
  return e;
}

}  // namespace lmroof::stats
