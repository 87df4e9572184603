// The verdicts for programs: report order, exit code and the check JSON (schema
// lmroof.check/1, docs/claims.md#check-output). Their text is reports/text/claims_text.h.
#include <algorithm>

#include "analysis/claims/identity_controls.h"
#include "analysis/claims/roof_faults.h"
#include "analysis/claims/claims.h"
#include "analysis/claims/verdict_cause.h"
#include "analysis/results/warnings.h"

namespace lmroof {

nlohmann::json noise_floors_json(const std::vector<model::NoiseFloor>& floors) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : floors)
    out.push_back({{"pair", f.pair}, {"run", f.run}, {"floor", f.floor}, {"rounds", f.rounds.rounds},
                   {"extra_rounds", f.rounds.extra_rounds}, {"low", *f.rounds.low}, {"high", *f.rounds.high},
                   {"measurable", floor_measurable(f.floor)}, {"bound", kMeasurableFloorBound}});
  return out;
}

// The first screen's warnings (analysis/results/warnings.h), as the report lists them.
nlohmann::json warnings_json(const std::vector<model::Warning>& warnings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& w : warnings) out.push_back({{"kind", model::to_string(w.kind)}, {"text", w.text}});
  return out;
}

nlohmann::json claims_check_json(const std::vector<model::ClaimVerdict>& claims, const std::string& results_file,
                                 const std::string& claims_file, bool strict, const model::ModelConfig* model,
                                 const model::Results* results) {
  const model::Results none;
  const model::Results& r = results ? *results : none;
  const model::Findings no_findings;
  const model::Findings& found = results ? results->decided() : no_findings;
  nlohmann::json summary = nlohmann::json::object();
  for (const model::EvidenceKind kind : {model::EvidenceKind::measured, model::EvidenceKind::model}) {
    int counts[4] = {0, 0, 0, 0};
    int untrustworthy_holds = 0;  // counted apart, never among the holds (issue 45)
    for (const auto& c : claims) {
      if (c.evidence_kind != kind) continue;
      if (c.untrustworthy && c.verdict == model::Verdict::holds)
        ++untrustworthy_holds;
      else
        ++counts[static_cast<int>(c.verdict)];
    }
    summary[std::string(model::to_string(kind))] = {{"holds", counts[0]},       {"fails", counts[1]},
                                                    {"inconclusive", counts[2]}, {"not_measured", counts[3]},
                                                    {"untrustworthy", untrustworthy_holds}};
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto* c : verdicts_in_report_order(claims)) list.push_back(model::to_json(*c));
  const nlohmann::json model_json =
      model ? nlohmann::json{{"name", model->name}, {"source", model->source}, {"dims", model->dims}} : nlohmann::json(nullptr);
  return {{"schema", kCheckOutputSchema}, {"results", results_file}, {"claims_file", claims_file},
          {"model", model_json}, {"strict", strict}, {"exit_code", claims_exit_code(claims, strict)},
          {"summary", summary}, {"noise_floors", noise_floors_json(r.noise_floors)},
          {"unmeasurable_pairs", found.unmeasurable_pairs},
          {"controls", identity_controls_json(found.controls)}, {"untrustworthy_pairs", found.untrustworthy_pairs},
          {"roof_faults", roof_faults_json(found.roof_faults)},
          {"unstable_ceilings", unstable_ceilings_json(r)},
          {"bandwidth_curve", curve_stability_json(r)},
          {"unstable_judgements", unstable_judgements_json(found.unstable_judgements)},
          {"warnings", warnings_json(measurement_warnings(r, found, claims))},
          {"claims", list}};
}

int claims_exit_code(const std::vector<model::ClaimVerdict>& claims, bool strict) {
  for (const auto& c : claims)
    if (c.verdict == model::Verdict::fails || (strict && c.verdict == model::Verdict::inconclusive)) return 1;
  return 0;
}

}  // namespace lmroof
