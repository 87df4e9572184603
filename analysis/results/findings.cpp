#include "analysis/results/findings.h"

#include "analysis/results/warnings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/roofs/roof_choice.h"
#include "analysis/stats/statistics.h"

namespace lmroof {

namespace {

// 1e-6: the cost model sums its bytes and FLOPs in floating point, in another order on
// each side (a sliding layer through min(n, W)); no real difference in work is this small.
bool equal_work(double ratio) { return std::abs(ratio - 1) <= 1e-6; }

// "sliding vs full, context=2048": the dimensions in which the pair's comparisons
// differ (the full shape is in the run ids).
void name_controls(std::vector<IdentityControl>& controls, const std::vector<const model::Comparison*>& from,
                   const std::vector<model::Comparison>& all) {
  for (size_t i = 0; i < controls.size(); ++i) {
    std::string shape;
    for (const auto& [dim, value] : from[i]->shape) {
      bool varies = false;
      for (const model::Comparison& other : all)
        if (other.pair == from[i]->pair && other.shape.contains(dim) && other.shape.at(dim) != value) varies = true;
      if (varies) shape += fmt::format("{}{}={}", shape.empty() ? "" : " ", dim, value);
    }
    const model::Comparison& c = *from[i];
    // (the two sides of a less-work control may be one variant at two levels: "attn_softcap fused vs without")
    const std::string sides = c.candidate.variant == c.baseline.variant
                                  ? fmt::format("{} {} vs {}", c.candidate.variant, c.candidate.impl, c.baseline.impl)
                                  : fmt::format("{} vs {}", c.candidate.variant, c.baseline.variant);
    controls[i].label = sides + (shape.empty() ? "" : ", " + shape);
  }
}

// The strictly-less-work test: no more FLOPs and bytes on the baseline's side, and less
// of one by more than equal_work's tolerance. The ratios are candidate / baseline.
bool baseline_does_less(const model::Comparison& c) {
  return c.flops_ratio >= 1 && c.bytes_ratio >= 1 && (!equal_work(c.flops_ratio) || !equal_work(c.bytes_ratio));
}

std::vector<IdentityControl> controls_of(const model::Results& results, ControlKind kind) {
  std::vector<IdentityControl> out;
  std::vector<const model::Comparison*> from;
  for (const model::Comparison& c : results.comparisons) {
    const bool control =
        kind == ControlKind::identity ? is_identity_control(c) : is_less_work_control(c, results.catalogue);
    if (!control || !c.paired || !c.paired->has_interval()) continue;
    IdentityControl x{kind, c.pair, c.baseline.run, c.candidate.run, "", c.shape, *c.paired, std::nullopt, false};
    from.push_back(&c);
    if (const model::NoiseFloor* f = results.noise_floor(c.pair)) {
      x.floor = f->floor;
      const bool baseline_slower = *c.paired->low > 1 + f->floor;
      x.beyond_floor = baseline_slower || (kind == ControlKind::identity && *c.paired->high < 1 / (1 + f->floor));
    }
    out.push_back(x);
  }
  name_controls(out, from, results.comparisons);
  return out;
}

}  // namespace

bool is_identity_control(const model::Comparison& c) {
  return c.baseline.impl == c.candidate.impl && c.bytes_basis == model::BytesBasis::model && equal_work(c.bytes_ratio) &&
         equal_work(c.flops_ratio);
}

bool is_less_work_control(const model::Comparison& c, const model::Catalogue& catalogue) {
  const model::CataloguePair* pair = catalogue.find(c.pair);
  if (!pair || c.bytes_basis != model::BytesBasis::model || !baseline_does_less(c)) return false;
  return std::any_of(pair->comparisons.begin(), pair->comparisons.end(), [&](const model::ComparisonDef& d) {
    return d.less_work_control && d.baseline.variant == c.baseline.variant && d.baseline.impl == c.baseline.impl &&
           d.candidate.variant == c.candidate.variant && d.candidate.impl == c.candidate.impl;
  });
}

std::vector<IdentityControl> identity_controls(const model::Results& results) {
  return controls_of(results, ControlKind::identity);
}

std::vector<IdentityControl> less_work_controls(const model::Results& results) {
  return controls_of(results, ControlKind::less_work);
}

std::vector<IdentityControl> measurement_controls(const model::Results& results) {
  std::vector<IdentityControl> out = identity_controls(results);
  for (IdentityControl& c : less_work_controls(results)) out.push_back(std::move(c));
  return out;
}

std::set<std::string> untrustworthy_pairs(const std::vector<IdentityControl>& controls) {
  std::set<std::string> out;
  for (const auto& c : controls)
    if (c.beyond_floor) out.insert(c.pair);
  return out;
}

ComparisonEvidence comparison_evidence(const model::Results& results, const model::Comparison& c) {
  ComparisonEvidence e;
  if (const auto* f = results.noise_floor(c.pair)) e.floor = f->floor;
  if (c.paired && c.paired->has_interval()) {
    e.paired = true;
    e.speedup = c.paired->speedup;
    e.low = c.paired->low, e.high = c.paired->high;
    e.rounds = c.paired->rounds;
    e.sittings = c.paired->sittings;
  } else {
    e.speedup = c.speedup;
    e.low = c.speedup_low, e.high = c.speedup_high;
    e.rounds = c.repetitions;
  }
  if (!e.low || !e.high) return e;
  const bool within_floor = e.floor && *e.low >= 1 / (1 + *e.floor) && *e.high <= 1 + *e.floor;
  e.shown = within_floor ? Shown::within_noise
            : *e.low > 1 ? Shown::faster
            : *e.high < 1 ? Shown::slower
                          : Shown::within_noise;
  return e;
}

// A fault compares the run against the most generous roof it has (model::kindest_judgement):
// a run is not a fault only because one roof was measured low (its probes while a
// neighbour held the machine: a default run under a load of 15 put two naive decode runs
// at 116% of their best probe and 53% of the suite's read roof); a run above every roof
// it has still is.
std::vector<RoofFault> roof_faults(const model::Results& results) {
  std::vector<RoofFault> out;
  for (const auto& r : results.runs) {
    bool probed = false;
    const model::JudgedAgainst* kindest = model::kindest_judgement(r, &probed);
    if (kindest && kindest->fraction > model::kAboveRoofFault)
      out.push_back({r.id, *kindest->roof, kindest->fraction, probed});
  }
  return out;
}

std::vector<UnstableJudgement> unstable_judgements(const model::Results& results) {
  std::vector<UnstableJudgement> out;
  for (const auto& r : results.runs)
    if (r.judged_against && !r.judged_against->unstable_ceilings.empty())
      out.push_back({r.id, r.judged_against->unstable_ceilings});
  return out;
}

std::vector<std::string> unmeasurable_pairs(const std::vector<model::NoiseFloor>& floors) {
  std::vector<std::string> out;
  for (const auto& f : floors)
    if (!rules::floor_measurable(f.floor)) out.push_back(f.pair);
  return out;
}

model::PredictionErrors prediction_errors(const model::Results& results, double min_time_s) {
  model::PredictionErrors e;
  std::vector<double> errors;
  for (const auto& r : results.runs) {
    if (!r.predicted) continue;
    ++e.predicted;
    if (r.time_s.median < min_time_s) continue;
    ++e.long_runs;
    const double abs_error = std::abs(r.predicted->error);
    errors.push_back(abs_error);
    if (abs_error <= 0.25) ++e.within_25pct;
    if (abs_error >= std::abs(e.worst_error)) e.worst_error = r.predicted->error, e.worst_run = r.id;
  }
  if (!errors.empty()) e.median_abs_error = stats::median(errors);
  return e;
}

std::string roofs_that_moved(const std::vector<model::Ceiling>& ceilings) {
  std::string moved;
  for (const auto& c : ceilings)
    if (const auto drift = c.drift(); drift && *drift > rules::kNotableRoofDrift)
      moved += fmt::format("{}{} {:.0f}%", moved.empty() ? "" : ", ", c.name, 100 * *drift);
  return moved;
}

void decide(model::Results& results) {
  model::Findings f;
  f.controls = measurement_controls(results);
  f.untrustworthy_pairs = untrustworthy_pairs(f.controls);
  f.unmeasurable_pairs = unmeasurable_pairs(results.noise_floors);
  f.comparison_evidence.reserve(results.comparisons.size());
  for (const model::Comparison& c : results.comparisons) f.comparison_evidence.push_back(comparison_evidence(results, c));
  f.roof_faults = roof_faults(results);
  f.unstable_judgements = unstable_judgements(results);
  for (const model::Run& r : results.runs) {
    if (r.judged_against)
      if (auto level = judged_level(*r.judged_against)) f.judged_levels.emplace(r.id, std::move(*level));
    // The pair charts' whiskers: a bootstrap needs three repetitions (fewer: min-max).
    if (r.time_s.samples.size() >= 3) {
      const stats::Interval ci = stats::bootstrap_median_interval(r.time_s.samples);
      f.median_intervals.emplace(r.id, model::Interval{ci.low, ci.high});
    }
  }
  f.prediction_errors = prediction_errors(results);
  f.roofs_that_moved = roofs_that_moved(results.ceilings);
  f.contended_runs = contended_runs(results);
  f.contended_comparisons = contended_comparisons(results);
  f.disturbed_runs = disturbed_runs(results);
  f.busy = busy_text(results);
  f.warnings = measurement_warnings(results, f, results.claims);
  results.findings = std::move(f);
}

}  // namespace lmroof
