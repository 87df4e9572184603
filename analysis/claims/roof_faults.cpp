#include "analysis/claims/roof_faults.h"
#include "analysis/results/findings.h"

#include <fmt/format.h>

#include <map>


namespace lmroof {

std::string roof_fault_text(const RoofFault& f) {
  return fmt::format("{} ran at {:.0f}% of its judged roof ({}{}), above the {:.0f}% a measurement allows", f.run,
                     f.fraction * 100, f.roof, f.probed ? ", as probed next to it" : "", model::kAboveRoofFault * 100);
}

void mark_roof_faults(std::vector<model::ClaimVerdict>& verdicts, const model::Findings& findings) {
  std::map<std::string, RoofFault> faults;
  for (auto& f : findings.roof_faults) faults.emplace(f.run, f);
  std::map<std::string, std::vector<std::string>> unstable;
  for (auto& u : findings.unstable_judgements) unstable.emplace(u.run, u.ceilings);
  for (auto& v : verdicts) {
    if (v.evidence_kind != model::EvidenceKind::measured) continue;  // the cost model's verdicts do not rest on a time
    for (const auto& e : v.evidence) {
      if (!e.run) continue;
      if (const auto f = faults.find(*e.run); f != faults.end() && !v.untrustworthy)
        v.untrustworthy = roof_fault_text(f->second) + ": a measurement fault";
      if (const auto u = unstable.find(*e.run); u != unstable.end() && v.cause_detail &&
                                                v.cause_detail->find("unstable") == std::string::npos)
        *v.cause_detail += fmt::format(" ({} judged against {}, marked unstable: its repeats disagreed)", *e.run,
                                       fmt::join(u->second, ", "));
    }
  }
}

nlohmann::json curve_stability_json(const model::Results& results) {
  const auto& curve = results.bandwidth_curve;
  if (!curve) return nullptr;
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& a : curve->agreement)
    levels.push_back({{"level", a.level}, {"ceiling", a.ceiling}, {"ratio", a.ratio}, {"tolerance", a.tolerance},
                      {"agrees", a.agrees}});
  return {{"unstable", curve->unstable},
          {"judged_at", curve->unstable ? "level ceilings" : "curve"},
          {"reason", curve->unstable_reason ? nlohmann::json(*curve->unstable_reason) : nlohmann::json(nullptr)},
          {"agreement", std::move(levels)}};
}

nlohmann::json roof_faults_json(const std::vector<RoofFault>& faults) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : faults)
    out.push_back({{"run", f.run}, {"roof", f.roof}, {"fraction", f.fraction}, {"probed", f.probed},
                   {"bound", model::kAboveRoofFault}});
  return out;
}

nlohmann::json unstable_judgements_json(const std::vector<UnstableJudgement>& judgements) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& u : judgements) out.push_back({{"run", u.run}, {"ceilings", u.ceilings}});
  return out;
}

nlohmann::json unstable_ceilings_json(const model::Results& results) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : results.ceilings)
    if (c.unstable)
      out.push_back({{"name", c.name}, {"value", c.value},
                     {"repeats", c.repeats ? nlohmann::json(*c.repeats) : nlohmann::json(nullptr)},
                     {"spread", c.spread ? nlohmann::json(*c.spread) : nlohmann::json(nullptr)}});
  return out;
}

}  // namespace lmroof
