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

namespace lmroof {

struct RoofFault {
  std::string run;
  std::string roof;
  double fraction = 0;  // of the judged roof, > kAboveRoofFault
  bool probed = false;  // judged against the DRAM roofs probed next to it (judged_against_probe)
};

// Every run above kAboveRoofFault of its judged roof: of the suite's roof and its own
// probes' best (judged_against_probe), the one that leaves it the smaller fraction (the
// more peak-like roof), so that one roof measured low does not make a fault; in results
// order.
std::vector<RoofFault> roof_faults(const model::Results& results);
// The same rule for one run: the runs table, the report and the roofline mark it.
bool is_roof_fault(const model::Run& run);

struct UnstableJudgement {
  std::string run;
  std::vector<std::string> ceilings;
};
// Every run judged against a ceiling marked unstable, in results order.
std::vector<UnstableJudgement> unstable_judgements(const model::Results& results);

// Marks each measured verdict whose evidence names a run above its roof
// (ClaimVerdict::untrustworthy, unless an identity control already did), and adds to
// each failing or inconclusive verdict's cause the unstable ceilings its runs were
// judged against.
void mark_roof_faults(std::vector<model::ClaimVerdict>& verdicts, const model::Results& results);

// "12.3 GB/s ... MEASUREMENT FAULT" lines for the CLI; empty without faults.
std::string format_roof_faults(const std::vector<RoofFault>& faults);
// One line for the end of `lmroof run`'s summary: how many runs are above their judged
// roof and the worst ("roof faults: 2 runs above 105% of their judged roof, the worst
// decode/... at 148% of L2 curve"), or that none is; then, when the bandwidth curve was
// set aside (analysis/roofs/curve_agreement.h), that line too.
std::string roof_faults_summary(const model::Results& results);
// The line saying the bandwidth curve was set aside (analysis/roofs/curve_agreement.h:
// curve_stability_line), for the report's first screen; "" when it judged the runs.
std::string curve_set_aside_line(const model::Results& results);
// check --format json's `roof_faults` and `unstable_judgements`.
nlohmann::json roof_faults_json(const std::vector<RoofFault>& faults);
nlohmann::json unstable_judgements_json(const std::vector<UnstableJudgement>& judgements);
// The ceilings marked unstable, with their repeats and spread.
nlohmann::json unstable_ceilings_json(const model::Results& results);
// check --format json's `bandwidth_curve`: whether the curve judged the runs, and if not
// why (null without a curve).
nlohmann::json curve_stability_json(const model::Results& results);

}  // namespace lmroof
