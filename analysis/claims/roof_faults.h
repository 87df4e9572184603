#pragma once
// Runs above their judged roof (issue #34, docs/claims.md#roof-faults). A roof is the
// fastest the machine allows a run's traffic, so a run measured faster than
// model::kAboveRoofFault of it says the measurement is wrong (a roof measured low, a
// time measured short, a cost model that over-counts), not that the kernel is fast.
// Like an identity control beyond its floor, it is a measurement fault: said on the
// report's first screen and by `check`, and every verdict resting on the run is marked
// untrustworthy. Runs judged against an unstable ceiling (Ceiling::unstable) are listed
// too: their fractions, and the causes drawn from them, are as uncertain as that roof.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/results_model.h"
// The faults themselves are decided once (analysis/results/findings.h, Findings::roof_faults):
// this header needs only their type, so the text layer, which must not reach the
// findings' computation, may include it.

namespace lmroof {

// Marks each measured verdict whose evidence names a run above its roof
// (ClaimVerdict::untrustworthy, unless an identity control already did), and adds to
// each failing or inconclusive verdict's cause the unstable ceilings its runs were
// judged against.
void mark_roof_faults(std::vector<model::ClaimVerdict>& verdicts, const model::Findings& findings);

// "decode/... ran at 148% of its judged roof (L2 curve), above the 105% a measurement
// allows": the fault as the verdicts it makes untrustworthy say it (results.json). The
// lines for people are reports/text/roof_text.h.
std::string roof_fault_text(const model::RoofFault& f);
// check --format json's `roof_faults` and `unstable_judgements`.
nlohmann::json roof_faults_json(const std::vector<model::RoofFault>& faults);
nlohmann::json unstable_judgements_json(const std::vector<model::UnstableJudgement>& judgements);
// The ceilings marked unstable, with their repeats and spread.
nlohmann::json unstable_ceilings_json(const model::Results& results);
// check --format json's `bandwidth_curve`: whether the curve judged the runs, and if not
// why (null without a curve).
nlohmann::json curve_stability_json(const model::Results& results);

}  // namespace lmroof
