#pragma once
// Identity controls (issue #25 item 3, docs/claims.md#identity-controls): comparisons
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
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/results_model.h"

namespace lmroof {

bool is_identity_control(const model::Comparison& c);

struct IdentityControl {
  std::string pair, baseline, candidate;  // run ids
  std::string label;                      // "sliding vs full, context=2048": the dims its pair's comparisons vary in
  model::Shape shape;
  model::PairedRounds paired;             // has an interval
  std::optional<double> floor;            // the pair's A/A floor; absent: none measured
  // The interval lies wholly outside [1/(1+floor), 1+floor]: a measurement fault.
  bool beyond_floor = false;
};

// The controls among results' comparisons that have a paired interval, in their order.
std::vector<IdentityControl> identity_controls(const model::Results& results);

// The pairs with a control beyond its floor.
std::set<std::string> untrustworthy_pairs(const std::vector<IdentityControl>& controls);

// Marks each verdict whose evidence names a run of an untrustworthy pair
// (ClaimVerdict::untrustworthy, one clause naming the control).
void mark_untrustworthy(std::vector<model::ClaimVerdict>& verdicts, const std::vector<IdentityControl>& controls);

// One line per pair: "identity controls (same work both sides): window ±4.1%: sliding vs
// full, context=2048 1.01x (0.98-1.03) within; ..."; a control beyond its floor reads
// "MEASUREMENT FAULT". Empty without controls.
std::string format_identity_controls(const std::vector<IdentityControl>& controls);
// check --format json's `controls`.
nlohmann::json identity_controls_json(const std::vector<IdentityControl>& controls);

}  // namespace lmroof
