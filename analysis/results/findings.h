#pragma once
// What the analysis decides from a Results, once (issue #36, "analysis decides once"):
// the identity and less-work controls, what each comparison shows, the runs above their
// roof or judged against an unstable one, the level each run is judged at, the interval
// of each run's median, how far the predictions are off, and the roofs that moved.
// decide() stores them in Results::findings; build_results and load_results call it,
// and predict_runs refreshes the prediction errors. The claims, the reports and the CLI
// read the fields (model::Findings) and compute none of them again.
#include <set>
#include <string>
#include <vector>

#include "analysis/model/results_model.h"
#include "analysis/rules/rules.h"

namespace lmroof {

using model::ComparisonEvidence;
using model::ControlKind;
using model::IdentityControl;
using model::RoofFault;
using model::Shown;
using model::UnstableJudgement;

// Computes every finding of `results` and stores them in results.findings (replacing
// any earlier ones).
void decide(model::Results& results);

// The parts decide() is made of, each a pure function of the results.

// Identity controls (docs/claims.md#identity-controls): comparisons whose two sides do
// the same work by the cost model, both sides the same implementation level (work equal
// to 1e-6). Derived, not declared: every pair gets its controls from its own cost model.
bool is_identity_control(const model::Comparison& c);
// Less-work controls: declared by the pair (ComparisonDef::less_work_control) and
// confirmed by the cost model (the baseline does strictly less work).
bool is_less_work_control(const model::Comparison& c, const model::Catalogue& catalogue);
// The identity controls among results' comparisons that have a paired interval, in their order.
std::vector<IdentityControl> identity_controls(const model::Results& results);
// The less-work controls, likewise.
std::vector<IdentityControl> less_work_controls(const model::Results& results);
// Both kinds, identity controls first: Findings::controls.
std::vector<IdentityControl> measurement_controls(const model::Results& results);
// The pairs with a control beyond its floor.
std::set<std::string> untrustworthy_pairs(const std::vector<IdentityControl>& controls);

// What a comparison shows by the claims' rule (docs/claims.md#paired): the paired rounds
// decide where taken, the runs' repetitions otherwise; a difference is shown only when
// the interval excludes 1 and does not lie within the pair's A/A noise floor.
ComparisonEvidence comparison_evidence(const model::Results& results, const model::Comparison& c);

// Every run above model::kAboveRoofFault of its judged roof (the suite's or its probe's,
// the larger fraction), in results order.
std::vector<RoofFault> roof_faults(const model::Results& results);
// Every run judged against a ceiling marked unstable, in results order.
std::vector<UnstableJudgement> unstable_judgements(const model::Results& results);

// "read 13%, copy_nt 27%": the ceilings that moved by more than rules::kNotableRoofDrift
// between before and after the suite; empty when none did.
std::string roofs_that_moved(const std::vector<model::Ceiling>& ceilings);

// The pairs whose A/A floor is beyond rules::kMeasurableFloorBound, in the floors' order.
std::vector<std::string> unmeasurable_pairs(const std::vector<model::NoiseFloor>& floors);

// How far runs[].predicted is from the measurements, over the runs that took at least
// `min_time_s` (the launch term and timer resolution no longer dominate).
model::PredictionErrors prediction_errors(const model::Results& results,
                                          double min_time_s = rules::kPredictionCheckMinTime);

}  // namespace lmroof
