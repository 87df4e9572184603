// The verdicts for programs: report order, exit code and the check JSON (schema
// lmroof.check/1, docs/claims.md#check-output). Their text is reports/text/claims_text.h.
#include <algorithm>

#include "analysis/claims/identity_controls.h"
#include "analysis/claims/roof_faults.h"
#include "analysis/claims/claims.h"
#include "analysis/claims/verdict_cause.h"

namespace lmroof {

namespace {

int rank(model::Verdict v) {
  switch (v) {
    case model::Verdict::fails: return 0;
    case model::Verdict::inconclusive: return 1;
    case model::Verdict::not_measured: return 2;
    case model::Verdict::holds: return 3;
  }
  return 4;
}

}  // namespace

std::vector<const model::ClaimVerdict*> verdicts_in_report_order(const std::vector<model::ClaimVerdict>& claims) {
  std::vector<const model::ClaimVerdict*> out;
  for (const auto& c : claims) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(),
                   [](const auto* a, const auto* b) { return rank(a->verdict) < rank(b->verdict); });
  return out;
}

nlohmann::json noise_floors_json(const std::vector<model::NoiseFloor>& floors) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : floors)
    out.push_back({{"pair", f.pair}, {"run", f.run}, {"floor", f.floor}, {"rounds", f.rounds.rounds},
                   {"extra_rounds", f.rounds.extra_rounds}, {"low", *f.rounds.low}, {"high", *f.rounds.high},
                   {"measurable", floor_measurable(f.floor)}, {"bound", kMeasurableFloorBound}});
  return out;
}

std::vector<std::string> unmeasurable_pairs(const std::vector<model::NoiseFloor>& floors) {
  std::vector<std::string> out;
  for (const auto& f : floors)
    if (!floor_measurable(f.floor)) out.push_back(f.pair);
  return out;
}

nlohmann::json claims_check_json(const std::vector<model::ClaimVerdict>& claims, const std::string& results_file,
                                 const std::string& claims_file, bool strict, const model::ModelConfig* model,
                                 const model::Results* results) {
  const model::Results none;
  const model::Results& r = results ? *results : none;
  const std::vector<IdentityControl> controls = measurement_controls(r);
  nlohmann::json summary = nlohmann::json::object();
  for (const char* kind : {"measured", "model"}) {
    int counts[4] = {0, 0, 0, 0};
    for (const auto& c : claims)
      if (c.evidence_kind == kind) ++counts[static_cast<int>(c.verdict)];
    summary[kind] = {{"holds", counts[0]}, {"fails", counts[1]}, {"inconclusive", counts[2]}, {"not_measured", counts[3]}};
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto* c : verdicts_in_report_order(claims)) list.push_back(model::to_json(*c));
  const nlohmann::json model_json =
      model ? nlohmann::json{{"name", model->name}, {"source", model->source}, {"dims", model->dims}} : nlohmann::json(nullptr);
  return {{"schema", kCheckOutputSchema}, {"results", results_file}, {"claims_file", claims_file},
          {"model", model_json}, {"strict", strict}, {"exit_code", claims_exit_code(claims, strict)},
          {"summary", summary}, {"noise_floors", noise_floors_json(r.noise_floors)},
          {"unmeasurable_pairs", unmeasurable_pairs(r.noise_floors)},
          {"controls", identity_controls_json(controls)}, {"untrustworthy_pairs", untrustworthy_pairs(controls)},
          {"roof_faults", roof_faults_json(roof_faults(r))},
          {"unstable_ceilings", unstable_ceilings_json(r)},
          {"unstable_judgements", unstable_judgements_json(unstable_judgements(r))},
          {"claims", list}};
}

int claims_exit_code(const std::vector<model::ClaimVerdict>& claims, bool strict) {
  for (const auto& c : claims)
    if (c.verdict == model::Verdict::fails || (strict && c.verdict == model::Verdict::inconclusive)) return 1;
  return 0;
}

}  // namespace lmroof
