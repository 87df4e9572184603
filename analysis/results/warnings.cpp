#include "analysis/results/warnings.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/numbers/numbers.h"
#include "analysis/rules/rules.h"

namespace lmroof {

namespace {

// "a, b, c and 4 more": a list long enough to name, short enough for one line.
std::string first_few(const std::vector<std::string>& names, size_t shown = 3) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

std::string plural(size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string whole_percent(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

std::vector<std::string> contended_runs(const model::Results& results) {
  std::vector<std::string> out;
  for (const auto& r : results.runs)
    if (r.contention && r.contention->is_contended()) out.push_back(r.id);
  return out;
}

std::vector<size_t> contended_comparisons(const model::Results& results) {
  std::vector<size_t> out;
  for (size_t i = 0; i < results.comparisons.size(); ++i) {
    const auto& p = results.comparisons[i].paired;
    if (p && p->contention && p->contention->is_contended()) out.push_back(i);
  }
  return out;
}

std::vector<std::string> disturbed_runs(const model::Results& results) {
  std::vector<std::string> out;
  for (const auto& r : results.runs)
    if (r.time_s.samples.size() >= 2 && model::is_disturbed(r)) out.push_back(r.id);
  return out;
}

std::string busy_text(const model::Results& results) {
  if (!results.contention || results.contention->contended == 0) return {};
  const model::MachineContention& m = *results.contention;
  std::vector<std::string> takers;
  for (const auto& p : m.processes)
    if (p.core_share >= rules::kNamedProcessShare && takers.size() < static_cast<size_t>(rules::kNamedProcesses))
      takers.push_back(fmt::format("{} of a core taken by `{}`", whole_percent(p.core_share), p.name));
  if (m.steal_share > rules::kContendedWaitShare)
    takers.push_back(fmt::format("{} of the CPUs' time stolen by the hypervisor", whole_percent(m.steal_share)));
  std::string out = "busy: ";
  if (takers.empty())
    out += fmt::format("no other process took {} of a core over the run", whole_percent(rules::kNamedProcessShare));
  else
    for (size_t i = 0; i < takers.size(); ++i) out += (i ? ", " : "") + takers[i];
  out += fmt::format("; lmroof's workers waited for a core up to {} of a repetition", whole_percent(m.worst_wait_share));
  return out;
}

std::vector<model::Warning> measurement_warnings(const model::Results& results, const model::Findings& f,
                                                 const std::vector<model::ClaimVerdict>& claims) {
  using model::WarningKind;
  std::vector<model::Warning> out;
  if (results.contention && results.contention->contended > 0) {
    const auto& m = *results.contention;
    std::string text = fmt::format("{}; {} of {} timed repetitions stayed contended after {}", f.busy, m.contended,
                                   m.repetitions, plural(static_cast<size_t>(m.retimes), "re-timing", "re-timings"));
    if (!f.contended_runs.empty() || !f.contended_comparisons.empty())
      text += fmt::format("; {} and {} rest on them: their verdicts are inconclusive (cause machine)",
                          plural(f.contended_runs.size(), "run", "runs"),
                          plural(f.contended_comparisons.size(), "comparison", "comparisons"));
    out.push_back({WarningKind::contention, std::move(text)});
  }
  if (!f.disturbed_runs.empty()) {
    const model::Run* worst = nullptr;
    for (const auto& id : f.disturbed_runs)
      if (const model::Run* r = results.run(id); r && (!worst || r->time_s.max / r->time_s.min > worst->time_s.max / worst->time_s.min))
        worst = r;
    out.push_back({WarningKind::disturbed_runs,
                   fmt::format("{} disturbed (slowest repetition over {}x the fastest){}: {}",
                               plural(f.disturbed_runs.size(), "run", "runs"), numbers::sig(rules::kDisturbedSpread),
                               worst ? fmt::format(", the worst {} at {}x", worst->id, numbers::sig(worst->time_s.max / worst->time_s.min)) : "",
                               first_few(f.disturbed_runs))});
  }
  if (!f.roof_faults.empty()) {
    const auto worst = std::max_element(f.roof_faults.begin(), f.roof_faults.end(),
                                        [](const auto& a, const auto& b) { return a.fraction < b.fraction; });
    out.push_back({WarningKind::roof_faults,
                   fmt::format("{} above {} of their roof (measurement faults), the worst {} at {} of {}",
                               plural(f.roof_faults.size(), "run", "runs"), numbers::percent(model::kAboveRoofFault),
                               worst->run, numbers::percent(worst->fraction), worst->roof)});
  }
  std::vector<std::string> unstable;
  for (const auto& c : results.ceilings)
    if (c.unstable) unstable.push_back(c.spread ? fmt::format("{} (spread {})", c.name, numbers::percent(*c.spread)) : c.name);
  if (results.bandwidth_curve)
    for (const auto& p : results.bandwidth_curve->points)
      if (p.unstable) unstable.push_back(fmt::format("curve at {} (spread {})", numbers::si(p.working_set_bytes, "B"), numbers::percent(p.spread)));
  if (!unstable.empty())
    out.push_back({WarningKind::unstable_ceilings, fmt::format("unstable ceilings (repeats disagreed after a re-measurement): {}",
                                                               first_few(unstable, 4))});
  if (results.bandwidth_curve && results.bandwidth_curve->unstable)
    out.push_back({WarningKind::curve_set_aside,
                   fmt::format("bandwidth curve set aside, runs judged at the level ceilings: {}",
                               results.bandwidth_curve->unstable_reason.value_or("it disagrees with a level ceiling"))});
  if (!f.roofs_that_moved.empty())
    out.push_back({WarningKind::roofs_moved, fmt::format("memory roofs moved during the run: {}", f.roofs_that_moved)});
  if (!f.unmeasurable_pairs.empty()) {
    std::vector<std::string> pairs;
    for (const auto& name : f.unmeasurable_pairs)
      if (const auto* floor = results.noise_floor(name))
        pairs.push_back(fmt::format("{} (A/A floor ±{})", name, numbers::percent(floor->floor)));
    out.push_back({WarningKind::unmeasurable_pairs,
                   fmt::format("not measurable here as set up, floor beyond ±{}: {}",
                               numbers::percent(rules::kMeasurableFloorBound), first_few(pairs, 4))});
  }
  std::vector<std::string> untrustworthy;
  for (const auto& c : claims)
    if (c.untrustworthy) untrustworthy.push_back(c.id);
  if (!untrustworthy.empty())
    out.push_back({WarningKind::untrustworthy_claims,
                   fmt::format("{} untrustworthy (not counted as holds): {}", plural(untrustworthy.size(), "claim", "claims"),
                               first_few(untrustworthy, 4))});
  return out;
}

void refresh_warnings(model::Results& results) {
  if (!results.findings) return;
  results.findings->warnings = measurement_warnings(results, *results.findings, results.claims);
}

}  // namespace lmroof
