#include "analysis/claims/verdict_cause.h"

#include <fmt/format.h>

namespace lmroof {

std::optional<double> roof_fraction(const model::Run& run) {
  if (auto f = model::sol_fraction(run.judged_against_probe)) return f;
  return model::sol_fraction(run.judged_against);
}

namespace {

std::string percent(double fraction) { return fmt::format("{:.0f}%", fraction * 100); }

std::string roof_name(const model::Run& run) {
  const auto& j = run.judged_against_probe && run.judged_against_probe->roof ? run.judged_against_probe : run.judged_against;
  return j && j->roof ? *j->roof : std::string("its roof");
}

std::optional<VerdictCause> machine_moved(const CauseInputs& in) {
  if (!in.machine_drift || !in.floor || !(*in.machine_drift > *in.floor)) return std::nullopt;
  return VerdictCause{Cause::machine, fmt::format("the DRAM probes next to the runs moved by {}, more than the floor ±{}",
                                                  percent(*in.machine_drift), percent(*in.floor))};
}

// A side within kLatencyBoundFactor of the launch ceiling: the machine's fixed cost per
// launch holds most of its time, so neither the design nor the kernel's bytes and FLOPs
// decide the comparison.
std::optional<VerdictCause> latency_bound(const CauseInputs& in) {
  for (const auto& [side, run] : in.sides)
    if (run->bound == model::Bound::latency && run->roofline.launch)
      return VerdictCause{Cause::machine, fmt::format("{} {} is latency-bound: its median is within {:g}x of the launch "
                                                      "ceiling t0 ({:.3g} s)", side, run->id, model::kLatencyBoundFactor,
                                                      *run->roofline.launch)};
  return std::nullopt;
}

}  // namespace

std::optional<VerdictCause> cause_of(const CauseInputs& in) {
  if (in.verdict == model::Verdict::holds || in.verdict == model::Verdict::not_measured) return std::nullopt;
  if (auto l = latency_bound(in)) return l;
  if (in.verdict == model::Verdict::inconclusive) {
    if (in.floor_is_pairs && in.floor && !floor_measurable(*in.floor))
      return VerdictCause{Cause::machine,
                          fmt::format("the pair is not measurable here as set up: its A/A floor ±{} is beyond the ±{} "
                                      "bound, so the effect cannot be told from the setup's own variation",
                                      percent(*in.floor), percent(kMeasurableFloorBound))};
    if (auto m = machine_moved(in)) return m;
    return VerdictCause{Cause::noise, in.floor ? fmt::format("the effect is within the noise (floor ±{})", percent(*in.floor))
                                               : std::string("the effect is within the noise")};
  }
  // fails: the slowest side, relative to its roof, decides between implementation and architecture.
  const std::pair<std::string, const model::Run*>* slowest = nullptr;
  std::vector<std::string> unjudged;
  for (const auto& side : in.sides) {
    const auto f = roof_fraction(*side.second);
    if (!f) {
      unjudged.push_back(side.first);
      continue;
    }
    if (!slowest || *f < *roof_fraction(*slowest->second)) slowest = &side;
  }
  if (slowest && *roof_fraction(*slowest->second) < kArchitectureRoofFraction)
    return VerdictCause{Cause::implementation,
                        fmt::format("{} {} at {} of {}, below {}", slowest->first, slowest->second->id,
                                    percent(*roof_fraction(*slowest->second)), roof_name(*slowest->second),
                                    percent(kArchitectureRoofFraction))};
  if (auto m = machine_moved(in)) return m;
  std::string detail = fmt::format("every judged side at {} or more of its roof", percent(kArchitectureRoofFraction));
  if (!unjudged.empty()) {
    detail = slowest ? detail + "; " : std::string();
    for (size_t i = 0; i < unjudged.size(); ++i) detail += (i ? ", " : "") + unjudged[i];
    detail += " not judged against a roof";
  }
  return VerdictCause{Cause::architecture, detail};
}

}  // namespace lmroof
