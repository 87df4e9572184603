#include "analysis/roofs/curve_agreement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/rules/rules.h"

namespace lmroof {

namespace {

std::string si_rate(double bytes_per_s) { return fmt::format("{:.4g} GB/s", bytes_per_s / 1e9); }
std::string si_bytes(double bytes) {
  return bytes >= (1 << 20) ? fmt::format("{:.3g} MiB", bytes / (1 << 20)) : fmt::format("{:.3g} KiB", bytes / 1024);
}

// The largest spread of the curve points that read_at(bytes) interpolates between.
double spread_around(const model::BandwidthCurve& curve, double bytes) {
  const auto& p = curve.points;
  if (p.empty()) return 0;
  if (bytes <= p.front().working_set_bytes) return p.front().spread;
  for (size_t i = 1; i < p.size(); ++i)
    if (bytes <= p[i].working_set_bytes) return std::max(p[i - 1].spread, p[i].spread);
  return p.back().spread;
}

}  // namespace

std::optional<std::string> level_ceiling_name(const std::string& level, const std::string& backend) {
// GCC 12 warns, falsely, that "x" + std::string copies overlap (GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
  if (level == "L1" || level == "L2" || level == "L3") return "l" + level.substr(1) + "_read";
#pragma GCC diagnostic pop
  if (level == "DRAM" && backend == "cpu") return std::string("read");
  if (level == "HBM" && backend == "cuda") return std::string("dram_read");
  return std::nullopt;
}

std::vector<model::CurveAgreement> curve_agreement(const model::BandwidthCurve& curve,
                                                   const std::vector<model::Ceiling>& ceilings) {
  std::vector<model::CurveAgreement> out;
  for (const auto& level : curve.levels) {
    const auto name = level_ceiling_name(level.name, curve.backend);
    if (!name) continue;
    const auto c = std::find_if(ceilings.begin(), ceilings.end(), [&](const model::Ceiling& x) {
      return x.name == *name && x.backend == curve.backend && x.source == "measured" &&
             x.kind == model::CeilingKind::bandwidth && x.value > 0 && x.working_set_bytes && *x.working_set_bytes > 0;
    });
    if (c == ceilings.end()) continue;
    model::CurveAgreement a;
    a.level = level.name;
    a.ceiling = *name;
    a.ceiling_value = c->value;
    a.working_set_bytes = *c->working_set_bytes;
    a.curve_value = curve.read_at(a.working_set_bytes);
    if (!(a.curve_value > 0) || !std::isfinite(a.curve_value)) continue;
    a.ratio = a.curve_value / a.ceiling_value;
    // The repeats' own disagreement widens the tolerance: a ceiling or a point whose
    // repeats spread 12% cannot be held to agree within less.
    a.tolerance = std::min(1.0, rules::kCurveCeilingAgreement +
                                    std::max(c->spread.value_or(0.0), spread_around(curve, a.working_set_bytes)));
    a.agrees = std::abs(a.ratio - 1) <= a.tolerance;
    out.push_back(std::move(a));
  }
  return out;
}

void check_curve_against_ceilings(model::BandwidthCurve& curve, const std::vector<model::Ceiling>& ceilings) {
  curve.agreement = curve_agreement(curve, ceilings);
  std::vector<std::string> parts;
  for (const auto& a : curve.agreement)
    if (!a.agrees)
      parts.push_back(fmt::format("{} reads {} at {}'s working set ({}), {:.0f}% of its {} ({} by more than the {:.0f}% "
                                  "allowed)",
                                  a.level, si_rate(a.curve_value), a.ceiling, si_bytes(a.working_set_bytes),
                                  100 * a.ratio, si_rate(a.ceiling_value), a.ratio < 1 ? "below" : "above",
                                  100 * a.tolerance));
  curve.unstable = !parts.empty();
  if (curve.unstable)
    curve.unstable_reason = fmt::format("{}: the curve disagrees with the level ceilings, measured at other times, so the "
                                        "machine changed state while one of them was measured",
                                        fmt::join(parts, "; "));
  else
    curve.unstable_reason.reset();
}

}  // namespace lmroof
