#pragma once
// Identity controls (issue #25 item 3; found by analysis/results/findings.h), docs/claims.md#identity-controls): comparisons
// whose two sides do the same work by the cost model, such as sliding-window against
// full attention below the window (the rolling buffer then holds every position) or
// an interleaved stack at n <= W. They are controls, not claims: their true speedup is
// 1, so a paired interval that lies beyond the pair's A/A noise floor says the
// measurement, not the kernels, made the difference (the order of the benchmarks, the
// machine), and that pair's verdicts cannot be trusted.
//
// Derived, not declared: a comparison is a control when both sides are the same
// implementation level and the cost model gives them the same FLOPs and bytes (to
// 1e-6). Every pair gets its controls from its own cost model, a new pair included,
// and a catalogue entry cannot go stale against the model. Different implementation
// levels with equal work (MHA decode naive against grouped, one head per group) are
// not controls: different code may rightly differ in speed.
//
// Less-work controls (issue #34 item 8): a comparison the pair declares
// (ComparisonDef::less_work_control) whose baseline is the candidate's work without the
// trick, run by the same code, and to which the cost model gives strictly less work
// (FLOPs and bytes no more, one of them less by more than 1e-6). Its baseline may be
// as fast as the candidate, or faster, but not slower: an interval wholly beyond
// 1 + floor (the baseline slower) is a measurement fault, shown and marked as an
// identity control's is. A declared comparison the cost model does not confirm is no
// control (a test holds the catalogue to its model).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/results_model.h"
// The controls themselves are decided once (analysis/results/findings.h, Findings::controls):
// this header needs only their type, so the text layer, which must not reach the
// findings' computation, may include it.

namespace lmroof {

// Marks each verdict whose evidence names a run of an untrustworthy pair
// (ClaimVerdict::untrustworthy, one clause naming the control).
void mark_untrustworthy(std::vector<model::ClaimVerdict>& verdicts, const std::vector<model::IdentityControl>& controls);

// One block per kind: "identity controls (the same work on both sides ...):" then a line per
// control, "  window sliding vs full, context=2048: 1.010x (95% 0.980–1.030, 10 paired
// rounds), floor ±4.1%: within"; a control beyond its floor reads "MEASUREMENT FAULT".
// Empty without controls.
std::string format_identity_controls(const std::vector<model::IdentityControl>& controls);
// check --format json's `controls` (each with its "kind": "identity" | "less_work").
nlohmann::json identity_controls_json(const std::vector<model::IdentityControl>& controls);

}  // namespace lmroof
