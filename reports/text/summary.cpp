#include "reports/text/summary.h"
#include "reports/text/roof_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/numbers/numbers.h"
#include "analysis/claims/claims.h"
#include "reports/text/claims_text.h"
#include "analysis/claims/identity_controls.h"
#include "analysis/claims/roof_faults.h"

namespace lmroof::cli {

std::string format_ceilings_table(const model::Results& results) {
  const std::vector<model::Ceiling>& ceilings = results.ceilings;
  std::string out = fmt::format("{:<20} {:>14} {}\n", "ceiling", "value", "how");
  for (const auto& c : ceilings) {
    std::string how = c.detail;
    if (c.drift())
      how += fmt::format("; best before the suite {}, after it {}", numbers::si(*c.best_before_suite, c.unit()),
                         numbers::si(*c.best_after_suite, c.unit()));
    if (c.best_probed_during_suite)
      how += fmt::format("; the best run's probe during it {} (the roof)", numbers::si(*c.best_probed_during_suite, c.unit()));
    out += fmt::format("{:<20} {:>14} {}\n", c.name, numbers::si(c.value, c.unit()), how);
  }
  if (std::none_of(ceilings.begin(), ceilings.end(), [](const model::Ceiling& c) { return c.kind == model::CeilingKind::latency; }))
    out += "note: no launch ceiling (t0): no run can be placed latency-bound\n";
  if (const std::string& moved = results.decided().roofs_that_moved; !moved.empty())
    out += fmt::format("note: the memory roofs moved while the suite ran ({}): a memory-bound run's SoL% is uncertain by about "
                       "that much; the roof is the best of all its measurements\n", moved);
  return out;
}

std::string format_runs_table(const model::Results& results) {
  std::string out = format_ceilings_table(results) + "\n";
  // One fraction of a roof per run: SoL%, of the roof it is judged against (issue #34:
  // "efficiency 138%" beside "SoL 94.6%" on one row told two stories).
  out += fmt::format("{:<58} {:>10} {:>12} {:>14} {:>7} {:>7} {:>5} {:>6} {:>5} {}\n", "run", "median", "bandwidth",
                     "FLOP rate", "FLOP/B", "bound", "SoL%", "probe%", "level", "judged against");
  for (const auto& r : results.runs) {
    std::string id = r.id;
    if (id.size() > 58) id = id.substr(0, 55) + "...";
    // Speed of light: the fraction of the roof this run is judged against
    // (its level: Findings::judged_levels), and against the DRAM roofs probed next to it (bench/dram_probe.h).
    const auto percent_of = [](std::optional<double> f) { return f ? numbers::sig(100 * *f, 2) : std::string("-"); };
    const auto fraction = model::sol_fraction(r.judged_against);
    const std::string sol = percent_of(fraction), sol_probe = percent_of(model::sol_fraction(r.judged_against_probe));
    std::string judged = fraction ? *r.judged_against->roof : "";
    if (fraction && r.judged_against->composite) judged += " (sum of its steps)";
    if (fraction && !r.judged_against->unstable_ceilings.empty())
      judged += fmt::format(" [unstable: {}]", fmt::join(r.judged_against->unstable_ceilings, ", "));
    if (results.roof_fault(r))
      judged += fmt::format(" MEASUREMENT FAULT: above {:.0f}% of its roof", results.decided().bounds.roof_fault * 100);
    out += fmt::format("{:<58} {:>10} {:>12} {:>14} {:>7} {:>7} {:>5} {:>6} {:>5} {}\n", id,
                       numbers::si(r.time_s.median, "s"), numbers::si(r.achieved.byte_per_s, "B/s"),
                       numbers::si(r.achieved.flop_per_s, "FLOP/s"), numbers::sig(r.intensity.value),
                       r.bound ? model::to_string(*r.bound) : "-", sol, sol_probe,
                       fraction ? results.judged_level(r).value_or("-") : "-", judged);
  }
  if (std::any_of(results.runs.begin(), results.runs.end(),
                  [](const model::Run& r) { return r.judged_against_probe.has_value(); }))
    out += "probe%: SoL% against the DRAM read and copy_nt roofs probed right after each repetition of the run "
           "(runs that stream from DRAM; results.json: dram_probe, judged_against_probe)\n";
  return out;
}

std::string format_predictions_table(const model::Results& results) {
  const model::PredictionErrors& e = results.decided().prediction_errors;
  if (e.predicted == 0) return "";
  std::string out = "predicted by `lmroof predict`'s per-op model from this run's ceilings, against measured:\n";
  out += fmt::format("{:<58} {:>10} {:>10} {:>8} {:>9} {:>9}\n", "run", "measured", "predicted", "error", "bound", "predicted");
  for (const auto& r : results.runs) {
    if (!r.predicted) continue;
    std::string id = r.id;
    if (id.size() > 58) id = id.substr(0, 55) + "...";
    out += fmt::format("{:<58} {:>10} {:>10} {:>7}% {:>9} {:>9}\n", id, numbers::si(r.time_s.median, "s"),
                       numbers::si(r.predicted->time_s, "s"), numbers::sig(100 * r.predicted->error, 2),
                       r.bound ? model::to_string(*r.bound) : "-", r.predicted->bound);
  }
  if (e.long_runs > 0)
    out += fmt::format("runs of 1 ms or more: {} of {} within 25%, median |error| {}%, worst {}% ({})\n", e.within_25pct,
                       e.long_runs, numbers::sig(100 * e.median_abs_error, 2), numbers::sig(100 * e.worst_error, 2),
                       e.worst_run);
  out += "error = (predicted - measured) / measured: negative is optimistic (a speed of light)\n";
  return out;
}

std::string format_floors_and_controls(const model::Results& results, bool markdown) {
  const std::string lead = markdown ? "\n" : "";
  std::string out;
  if (const std::string floors = format_noise_floors(results); !floors.empty()) out += lead + floors + "\n";
  if (const std::string controls = format_identity_controls(results.decided().controls); !controls.empty())
    out += lead + controls;
  if (const std::string faults = format_roof_faults(results.decided().roof_faults); !faults.empty()) out += lead + faults;
  if (const std::string curve = curve_set_aside_line(results); !curve.empty()) out += lead + curve + "\n";
  return out;
}

std::string format_stability_and_levels(const model::Results& results) {
  std::string out;
  for (const auto& c : results.ceilings)
    if (c.unstable)
      out += fmt::format("unstable: {} ({} repetitions spread {:.0f}% after a re-measurement, beyond {:.0f}%): the machine "
                         "changed state while it was measured; runs judged against it say so\n",
                         c.name, c.repeats.value_or(0), 100 * c.spread.value_or(0), 100 * results.decided().bounds.ceiling_spread);
  if (const auto& curve = results.bandwidth_curve) {
    out += fmt::format("memory levels (read bandwidth over {} working sets, {} to {}, {} threads):\n", curve->points.size(),
                       numbers::si(curve->points.front().working_set_bytes, "B"),
                       numbers::si(curve->points.back().working_set_bytes, "B"), curve->threads);
    for (const auto& l : curve->levels) {
      std::string against;  // the curve at its level ceiling's own working set (analysis/roofs/curve_agreement.h)
      for (const auto& a : curve->agreement)
        if (a.level == l.name)
          against = fmt::format("; at {}'s set {:.0f}% of it{}", a.ceiling, 100 * a.ratio, a.agrees ? "" : " (DISAGREES)");
      out += fmt::format("  {:<6} {:>14}  {}{}\n", l.name, numbers::si(l.bandwidth, "B/s"),
                         l.capacity_bytes ? "up to " + numbers::si(*l.capacity_bytes, "B") : std::string("beyond the caches"),
                         against);
    }
    if (curve->levels.empty() || curve->levels.back().capacity_bytes)
      out += "  (no memory plateau: the curve stops before 2x the outermost cache, as the memory budget allows)\n";
    if (const std::string line = curve_set_aside_line(results); !line.empty()) out += line + "\n";
  }
  return out;
}

}  // namespace lmroof::cli
