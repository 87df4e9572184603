#pragma once
// What every check kind shares (claims_check.cpp and check_*.cpp; not part of the API,
// claims.h): the claim and the results it is checked against (Context, passed down:
// no thread-local state), one case and its verdict (Case), a claim's outcome from its
// cases (Outcome, claims_aggregate.cpp), and reading, naming and selecting runs.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/claims/claims.h"
#include "analysis/claims/claims_internal.h"
#include "analysis/model/trace_result.h"
#include "analysis/claims/verdict_cause.h"
#include "analysis/model/results_model.h"

namespace lmroof::claims_detail {

using model::Run;
using model::Verdict;

// The claim being checked and the results it is checked against.
struct Context {
  const Claim& claim;
  const model::Results& results;
};

// ---- one case: a run, a pair of runs or a series, with its own verdict --------
struct Case {
  Verdict verdict = Verdict::not_measured;
  std::vector<std::pair<std::string, std::string>> tokens;  // what identifies it, for labels
  std::string measured;
  std::vector<model::Evidence> evidence;
  std::string reason;
  double slack = 0;  // how far from the threshold (relative); the smallest is the closest call
  bool too_few_points = false;  // scaling: a series too short to fit
  std::optional<VerdictCause> cause;  // fails and inconclusive cases that can name one (verdict_cause.h)
};

// ---- a claim's verdict from its cases (claims_aggregate.cpp) -------------------
struct Outcome {
  Verdict verdict = Verdict::not_measured;
  model::CaseTally cases;
  std::string measured;
  std::vector<model::Evidence> evidence;
  std::string reason;
  std::optional<VerdictCause> cause;
};

// The rule of docs/claims.md#aggregation (rules::holds_by_share, rules::fails_are_few).
Outcome aggregate(const Context& ctx, std::vector<Case> cases, const std::string& noun,
                  const std::vector<std::string>& notes, const std::string& none_reason);

// ---- reading runs (check_common.cpp) -------------------------------------------
// A named number of a run (model::run_metric), or a shape dimension "shape.<dim>".
std::optional<double> number_at(const Run& run, std::string_view field);
const std::string& run_id(const Run& run);
bool is_timed(const std::string& metric);
// The field a metric reads for a set of runs that are compared with each other:
// bytes / intensity use measured bytes only when every run has them.
std::string resolve_metric(const std::string& metric, const std::vector<const Run*>& runs);

// ---- formatting -------------------------------------------------------------------
std::string num(double v);
std::string pct(double fraction);
std::string si(double v, const char* unit);
std::string metric_value(const std::string& field, double v);
// Short name of a metric for sentences: "bytes.model" -> "model bytes".
std::string metric_words(const std::string& field);
std::string describe_dims(const std::vector<std::pair<std::string, int64_t>>& shape);
// A factor as the claim writes it: "2", "1.5".
std::string factor_num(double f);
model::Evidence evidence(const Run* run, const std::string& metric, double value);

// ---- naming cases and selecting runs ------------------------------------------------
// What identifies a run in a case label, shape dimensions in the catalogue's order.
std::vector<std::pair<std::string, std::string>> tokens_of(const Context& ctx, const Run& run,
                                                           const std::vector<std::string>& skip = {});
// Labels cases by what differs between them: "tokens=8192 d_model=4096".
std::vector<std::string> labels(const std::vector<Case>& cases);
// At most two reasons, then how many more: a reason per run would bury the table.
std::string join_some(const std::vector<std::string>& reasons);
std::string selector_text(const RunSelector& s);
std::vector<const Run*> select(const Context& ctx, const RunSelector& s);
// Why a selector matched nothing: the pair is absent, or only these runs are.
std::string no_match_reason(const Context& ctx, const RunSelector& s);
// "measured" when the verdict rests on this machine's times or hardware counters,
// "model" when it follows from the cost model's FLOPs and bytes (docs/claims.md#evidence).
model::EvidenceKind evidence_kind(const Check& ch, const std::vector<model::Evidence>& evidence);

// Runs alike in every token but `skip` (tokens_of), grouped into series in first-seen
// order (crossing, scaling). A run `in_sweep` refuses joins none and is counted in `lacking`.
struct RunSeries {
  std::vector<std::string> keys;  // first-seen order
  std::map<std::string, std::vector<const Run*>> members;
  int lacking = 0;
};
RunSeries group_series(const Context& ctx, const std::vector<const Run*>& runs, const std::vector<std::string>& skip,
                       const std::function<bool(const Run&)>& in_sweep);
// "3 runs lack dimension tokens", for a check's notes.
std::string lacking_note(int lacking, const std::string& dimension);

// A check judged run by run (bound, share): one case per run its selector matches.
Outcome check_each_run(const Context& ctx, Case (*judge)(const Context&, const Run&));

// ---- one class's shares against a share or class_share check (check_share.cpp) ----
// The one share rule (docs/claims.md#share) for a run's breakdown and a trace's class
// table: each range the check gives is judged on its figure; time/FLOP share is time
// share over FLOP share (infinite when the FLOP share is 0 and the time share is not).
struct ClassShares {
  std::optional<double> flop_share, byte_share, time_share, fraction_of_roof;
};
struct ShareJudgement {
  Verdict verdict = Verdict::not_measured;  // holds, fails, or not measured when a judged figure is absent
  std::string measured;                     // "normalization: FLOP share 0.17%, time share 25.5%, ..."
  std::vector<std::pair<std::string, double>> figures;  // "flop_share" -> 0.0017, for evidence
  std::vector<std::string> missing;         // the judged figures that are absent
  double slack = 0;                         // the closest call, relative (Case::slack)
};
ShareJudgement judge_shares(const Check& ch, const ClassShares& shares);

// ---- the check kinds, one file each (check_<kind>.cpp) ------------------------------
Outcome check_bound(const Context& ctx);
Outcome check_crossing(const Context& ctx);  // bound along a dimension
Outcome check_faster(const Context& ctx);
Outcome check_ratio(const Context& ctx);
Outcome check_share(const Context& ctx);
Outcome check_scaling(const Context& ctx);
// class_share, against a trace's class tables rather than a Context's results
Outcome check_class_share(const Claim& claim, const model::TraceResult& trace);

}  // namespace lmroof::claims_detail
