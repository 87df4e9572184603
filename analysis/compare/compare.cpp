// Matching two results files' runs and judging each change; see analysis/compare/compare.h.
#include "analysis/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/model/results_model.h"
#include "analysis/stats/repetitions_to_decide.h"
#include "analysis/compare/compare_noise_floors.h"
#include "analysis/stats/statistics.h"

namespace lmroof::compare {

namespace {

// Sorted by key; a key twice in one file is an error (which of the two would we compare?).
std::vector<const RunTimes*> sorted_runs(const Side& side) {
  if (side.runs.empty()) throw std::invalid_argument(fmt::format("{}: /runs: holds no runs: nothing to compare", side.file));
  std::vector<const RunTimes*> out;
  out.reserve(side.runs.size());
  for (const auto& r : side.runs) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const RunTimes* a, const RunTimes* b) { return a->key < b->key; });
  for (size_t i = 1; i < out.size(); ++i)
    if (out[i - 1]->key == out[i]->key)
      throw std::invalid_argument(fmt::format("{}: /runs: \"{}\" and \"{}\" measured the same thing ({})", side.file,
                                              out[i - 1]->id, out[i]->id,
                                              out[i]->label.empty() ? describe(out[i]->key) : out[i]->label));
  return out;
}

// Slowest / fastest repetition (1 with fewer than two).
double repetition_spread(const std::vector<double>& samples) {
  if (samples.size() < 2) return 1;
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  return *lo > 0 ? *hi / *lo : 1;
}

SideNumbers numbers(const RunTimes& run) { return {run.median, run.samples.size(), run.roof_fraction}; }

RunChange judge(const RunTimes& base, const RunTimes& next, const Options& options, bool same_machine) {
  RunChange c;
  c.key = next.key;
  c.id = next.id;
  c.label = next.label.empty() ? describe(next.key) : next.label;
  c.base = numbers(base);
  c.next = numbers(next);
  if (base.roof_fraction && next.roof_fraction) c.roof_fraction_change = *next.roof_fraction - *base.roof_fraction;
  if (base.level && next.level && *base.level != *next.level)
    c.level_change = base.judged_rate && next.judged_rate
                         ? fmt::format("judged at {} in base, {} in new (roof {:.4g} -> {:.4g} G/s)", *base.level,
                                       *next.level, *base.judged_rate / 1e9, *next.judged_rate / 1e9)
                         : fmt::format("judged at {} in base, {} in new", *base.level, *next.level);
  // The speedup and its interval both come from the repetition samples (the ratio
  // of their medians), so the estimate always lies inside its interval.
  // One statistics for every comparison lmroof makes (analysis/stats/statistics.h): the same
  // estimate the claims and the report use, with this command's confidence and seed.
  stats::SpeedupOptions so;
  so.confidence = options.confidence;
  so.resamples = options.resamples;
  so.seed = options.seed;
  so.min_samples = rules::kCompareMinSamples;
  const stats::SpeedupEstimate interval = stats::estimate_speedup(base.samples, next.samples, so);
  c.speedup = interval.speedup;
  double low = interval.has_interval() ? interval.low : interval.speedup;
  double high = interval.has_interval() ? interval.high : interval.speedup;
  // A shared machine's DRAM bandwidth can move between two runs by more than either
  // run's repetitions show (on the development VM, 2x within seconds); the probes
  // taken next to each run measure it. Across machines the probes differ by design.
  const double unwidened_low = low, unwidened_high = high;
  if (same_machine && base.probe_read && next.probe_read && *base.probe_read > 0 && *next.probe_read > 0) {
    c.machine_drift = model::drift_between(*base.probe_read, *next.probe_read);
    model::widen_for_drift(interval.speedup, *base.probe_read, *next.probe_read, low, high);  // the side it can explain
  }
  c.speedup_low = low;
  c.speedup_high = high;
  const auto test = stats::mann_whitney_u(base.samples, next.samples);
  c.p_value = test.p_value;
  c.u = test.u;
  c.exact_test = test.exact;

  // A change is real when the test rejects "same distribution" and the interval of
  // the speedup excludes 1; both are needed, so a shift in one outlier is not enough.
  // With fewer than 2 repetitions on a side there is no interval: the estimate stands for it.
  const bool significant = base.samples.size() >= 2 && next.samples.size() >= 2 && test.p_value < options.alpha;
  const bool excludes_one = low > 1 || high < 1;
  if (significant && low > 1) c.verdict = Verdict::faster;
  else if (significant && high < 1) c.verdict = Verdict::slower;
  else if (excludes_one) c.verdict = Verdict::undecided;
  else c.verdict = Verdict::same;
  if (c.verdict == Verdict::same && significant && (unwidened_low > 1 || unwidened_high < 1))
    c.note = fmt::format("the machine's DRAM read bandwidth moved by {:.1f}% between the two runs (their probes), as much "
                         "as this change: rerun both, alternated, on a steadier machine",
                         *c.machine_drift * 100);
  // The smallest p the test can give is 2 / C(n1 + n2, n1): with 3 + 3 repetitions
  // it is 0.1, so no change could ever be called real.
  const bool cannot_reach = stats::smallest_u_test_p(base.samples.size(), next.samples.size()) >= options.alpha;
  if (c.verdict == Verdict::undecided) {
    c.repetitions_to_decide = stats::repetitions_to_decide(base.samples, next.samples, options.alpha);
    const std::string why =
        cannot_reach ? fmt::format("{} and {} repetitions cannot reach p < {}", base.samples.size(), next.samples.size(),
                                   options.alpha)
                     : fmt::format("the U test does not confirm it (p = {:.2g})", test.p_value);
    c.note = fmt::format("the interval excludes 1 but {}: about {} repetitions per side would decide it (Noether's "
                         "sample size for the U test at this effect, 80% power)",
                         why, c.repetitions_to_decide ? std::to_string(*c.repetitions_to_decide) : std::string("more"));
  } else if (c.verdict == Verdict::same && !significant && cannot_reach) {
    c.note = fmt::format("{} and {} repetitions cannot reach p < {} (5 or more recommended)", base.samples.size(),
                         next.samples.size(), options.alpha);
  }
  // Two files' runs are never timed in paired rounds: the estimate is their medians'
  // ratio (unpaired), and a median of disturbed repetitions (rules::kDisturbedSpread)
  // may stand for the disturbance. A change resting on one is not called (issue #45).
  for (const auto& [name, side] : {std::pair{"base", &base}, std::pair{"new", &next}}) {
    const double spread = repetition_spread(side->samples);
    if (spread <= rules::kDisturbedSpread) continue;
    if (c.verdict == Verdict::faster || c.verdict == Verdict::slower) c.verdict = Verdict::undecided;
    c.note = fmt::format("{}{}'s repetitions are disturbed (its slowest took {:.3g}x its fastest, beyond {:g}x): an "
                         "unpaired ratio of medians cannot tell the change from the disturbance; rerun on a quieter machine",
                         c.note.empty() ? "" : c.note + "; ", name, spread, rules::kDisturbedSpread);
  }
  c.regression = c.verdict == Verdict::slower && 1 / interval.speedup - 1 > options.threshold;
  return c;
}

RunChange only(const RunTimes& run, Verdict verdict) {
  RunChange c;
  c.key = run.key;
  c.id = run.id;
  c.label = run.label.empty() ? describe(run.key) : run.label;
  (verdict == Verdict::only_base ? c.base : c.next) = numbers(run);
  c.verdict = verdict;
  return c;
}

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json side_json(const std::optional<SideNumbers>& s) {
  if (!s) return nullptr;
  return {{"median_s", s->median}, {"samples", s->samples}, {"roof_fraction", optional_number(s->roof_fraction)}};
}

}  // namespace

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::same: return "same";
    case Verdict::undecided: return "undecided";
    case Verdict::only_base: return "only in base";
    case Verdict::only_new: return "only in new";
  }
  return "same";
}

std::string describe(const RunKey& key) {
  std::string out = fmt::format("{}/{}/{}/{}/{}", key.pair, key.variant, key.impl, key.backend, key.dtype);
  for (const auto& [name, value] : key.shape) out += fmt::format(" {}={}", name, value);
  return out;
}

size_t Report::count(Verdict verdict) const {
  return static_cast<size_t>(std::count_if(runs.begin(), runs.end(), [&](const RunChange& c) { return c.verdict == verdict; }));
}

std::vector<const RunChange*> Report::regressions() const {
  std::vector<const RunChange*> out;
  for (const auto& c : runs)
    if (c.regression) out.push_back(&c);
  return out;
}

Report compare(const Side& base, const Side& next, const Options& options) {
  if (!(options.threshold >= 0) || !std::isfinite(options.threshold))
    throw std::invalid_argument(fmt::format("--threshold: must be a non-negative fraction (is {})", options.threshold));
  const auto a = sorted_runs(base);
  const auto b = sorted_runs(next);

  Report report;
  report.base = {base.file, base.machine, base.date, {}, base.noise_floors};
  report.next = {next.file, next.machine, next.date, {}, next.noise_floors};
  report.options = options;
  report.same_machine = base.machine == next.machine;
  size_t i = 0, j = 0, matched = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i]->key < b[j]->key)) {
      report.runs.push_back(only(*a[i++], Verdict::only_base));
    } else if (i == a.size() || b[j]->key < a[i]->key) {
      report.runs.push_back(only(*b[j++], Verdict::only_new));
    } else {
      report.runs.push_back(judge(*a[i++], *b[j++], options, report.same_machine));
      apply_noise_floors(report.runs.back(), base, next);
      ++matched;
    }
  }
  if (matched == 0)
    throw std::invalid_argument(fmt::format("{}: /runs: none of its {} runs matches one of the {} runs of {} "
                                            "(matched by pair/variant/impl/backend/dtype/shape)",
                                            next.file, b.size(), a.size(), base.file));

  if (!report.same_machine)
    report.warnings.push_back(fmt::format(
        "different machines: base ran on {}, new on {}; times are not comparable across machines, so read the "
        "change in roof fraction, not the speedup", base.machine, next.machine));
  return report;
}

nlohmann::json to_json(const Report& report) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& c : report.runs) {
    nlohmann::json speedup = nullptr;
    if (c.speedup)
      speedup = {{"estimate", *c.speedup}, {"low", optional_number(c.speedup_low)}, {"high", optional_number(c.speedup_high)},
                 {"estimator", kUnpairedMedians}};
    runs.push_back({{"id", c.id},
                    {"label", c.label},
                    {"pair", c.key.pair},
                    {"variant", c.key.variant},
                    {"impl", c.key.impl},
                    {"backend", c.key.backend},
                    {"dtype", c.key.dtype},
                    {"shape", c.key.shape},
                    {"base", side_json(c.base)},
                    {"new", side_json(c.next)},
                    {"speedup", speedup},
                    {"p_value", optional_number(c.p_value)},
                    {"u", optional_number(c.u)},
                    {"test", c.exact_test ? nlohmann::json(*c.exact_test ? "exact" : "asymptotic") : nlohmann::json(nullptr)},
                    {"roof_fraction_change", optional_number(c.roof_fraction_change)},
                    {"machine_drift", optional_number(c.machine_drift)},
                    {"level_change", c.level_change ? nlohmann::json(*c.level_change) : nlohmann::json(nullptr)},
                    {"verdict", to_string(c.verdict)},
                    {"regression", c.regression},
                    {"note", c.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.note)},
                    {"repetitions_to_decide", c.repetitions_to_decide ? nlohmann::json(*c.repetitions_to_decide)
                                                                      : nlohmann::json(nullptr)}});
  }
  nlohmann::json regressions = nlohmann::json::array();
  for (const auto* c : report.regressions()) regressions.push_back(c->id);
  auto side = [](const Side& s) { return nlohmann::json{{"file", s.file}, {"machine", s.machine}, {"date", s.date}}; };
  return {{"schema", kCompareSchema},
          {"base", side(report.base)},
          {"new", side(report.next)},
          {"same_machine", report.same_machine},
          {"warnings", report.warnings},
          {"options",
           {{"threshold", report.options.threshold},
            {"alpha", report.options.alpha},
            {"confidence", report.options.confidence},
            {"resamples", report.options.resamples},
            {"seed", report.options.seed}}},
          {"summary",
           {{"faster", report.count(Verdict::faster)},
            {"slower", report.count(Verdict::slower)},
            {"same", report.count(Verdict::same)},
            {"undecided", report.count(Verdict::undecided)},
            {"only_in_base", report.count(Verdict::only_base)},
            {"only_in_new", report.count(Verdict::only_new)},
            {"regressions", regressions}}},
          {"runs", runs}};
}

}  // namespace lmroof::compare
