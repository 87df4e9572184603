#include "analysis/claims/roof_faults.h"

#include <fmt/format.h>

#include <map>

#include "analysis/roofs/curve_agreement.h"

namespace lmroof {

// A fault compares the run against the most generous roof it has: the suite's (the best
// of the ceilings' repeats, raised by the probes) or its own probes' best, whichever
// leaves it the smaller fraction. A run is not a fault only because one roof was
// measured low (its probes' median, or its probes while a neighbour held the machine:
// a default run under a load of 15 put two naive decode runs at 116% of their best
// probe and 53% of the suite's read roof); a run above every roof it has still is.
namespace {

// The judgement that leaves the run the smaller fraction; nullptr when neither has one.
const model::JudgedAgainst* kindest_judgement(const model::Run& r, bool* probed) {
  const model::JudgedAgainst* kindest = nullptr;
  for (const auto* j : {&r.judged_against, &r.judged_against_probe})
    if (model::sol_fraction(*j) && (!kindest || (*j)->fraction < kindest->fraction)) {
      kindest = &**j;
      if (probed) *probed = j == &r.judged_against_probe;
    }
  return kindest;
}

}  // namespace

bool is_roof_fault(const model::Run& run) {
  const model::JudgedAgainst* j = kindest_judgement(run, nullptr);
  return j && j->fraction > model::kAboveRoofFault;
}

std::vector<RoofFault> roof_faults(const model::Results& results) {
  std::vector<RoofFault> out;
  for (const auto& r : results.runs) {
    bool probed = false;
    const model::JudgedAgainst* kindest = kindest_judgement(r, &probed);
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

namespace {

std::string fault_text(const RoofFault& f) {
  return fmt::format("{} ran at {:.0f}% of its judged roof ({}{}), above the {:.0f}% a measurement allows", f.run,
                     f.fraction * 100, f.roof, f.probed ? ", as probed next to it" : "", model::kAboveRoofFault * 100);
}

}  // namespace

void mark_roof_faults(std::vector<model::ClaimVerdict>& verdicts, const model::Results& results) {
  std::map<std::string, RoofFault> faults;
  for (auto& f : roof_faults(results)) faults.emplace(f.run, f);
  std::map<std::string, std::vector<std::string>> unstable;
  for (auto& u : unstable_judgements(results)) unstable.emplace(u.run, u.ceilings);
  for (auto& v : verdicts) {
    if (v.evidence_kind != "measured") continue;  // the cost model's verdicts do not rest on a time
    for (const auto& e : v.evidence) {
      if (!e.run) continue;
      if (const auto f = faults.find(*e.run); f != faults.end() && !v.untrustworthy)
        v.untrustworthy = fault_text(f->second) + ": a measurement fault";
      if (const auto u = unstable.find(*e.run); u != unstable.end() && v.cause_detail &&
                                                v.cause_detail->find("unstable") == std::string::npos)
        *v.cause_detail += fmt::format(" ({} judged against {}, marked unstable: its repeats disagreed)", *e.run,
                                       fmt::join(u->second, ", "));
    }
  }
}

std::string format_roof_faults(const std::vector<RoofFault>& faults) {
  if (faults.empty()) return "";
  std::string out = "runs above their judged roof (MEASUREMENT FAULT: the verdicts resting on them are untrustworthy):\n";
  for (const auto& f : faults) out += "  " + fault_text(f) + "\n";
  return out;
}

std::string roof_faults_summary(const model::Results& results) {
  const auto faults = roof_faults(results);
  std::string out;
  if (faults.empty()) {
    out = fmt::format("roof faults: none (no run above {:.0f}% of its judged roof)\n", model::kAboveRoofFault * 100);
  } else {
    const RoofFault* worst = &faults.front();
    for (const auto& f : faults)
      if (f.fraction > worst->fraction) worst = &f;
    out = fmt::format("roof faults: {} run{} above {:.0f}% of {} judged roof (MEASUREMENT FAULT), the worst {}\n",
                      faults.size(), faults.size() == 1 ? "" : "s", model::kAboveRoofFault * 100,
                      faults.size() == 1 ? "its" : "their", fault_text(*worst));
  }
  if (const std::string curve = curve_stability_line(results.bandwidth_curve); !curve.empty()) out += curve + "\n";
  return out;
}

std::string curve_set_aside_line(const model::Results& results) { return curve_stability_line(results.bandwidth_curve); }

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
