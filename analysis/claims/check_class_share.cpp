// The class_share check: an operator class's share of a profiler trace, read from
// trace.json's class table of the claim's grouping (docs/trace.md#claims), judged by
// the share rule a run's breakdown is judged by (judge_shares, check_share.cpp).
#include <fmt/format.h>

#include "analysis/claims/check_common.h"
#include "analysis/claims/verdict_cause.h"

namespace lmroof::claims_detail {

Outcome check_class_share(const Claim& claim, const model::TraceResult& trace) {
  const Check& ch = claim.check;
  const bool ivanov = ch.grouping == Grouping::ivanov;
  const std::vector<model::TraceClassRow>* table = trace.class_table(ivanov);
  const std::string field = ivanov ? "ivanov_classes" : "classes";  // where it is read, for evidence and reasons
  Outcome o;
  if (!table) {
    o.reason = fmt::format("the trace.json has no {} (the {} grouping): written by an lmroof trace older than it; "
                           "run lmroof trace again",
                           field, to_string(ch.grouping));
    return o;
  }
  if (trace.total_time_s <= 0) {
    o.reason = "the trace has no device time to share out";
    return o;
  }
  const model::TraceClassRow* row = model::find_class(*table, ch.op_class);
  if (!row) {
    std::vector<std::string> present;
    for (const auto& r : *table) present.push_back(r.op_class);
    o.reason = fmt::format("no class '{}' in {} (has: {})", ch.op_class, field, join(present, ", "));
    return o;
  }
  const ShareJudgement j = judge_shares(ch, {row->flop_share, row->byte_share, row->time_share, row->fraction_of_roof});
  for (const auto& [metric, value] : j.figures)
    o.evidence.push_back(evidence(nullptr, field + "." + ch.op_class + "." + metric, value));
  o.measured = j.measured;
  o.verdict = j.verdict;
  if (!j.missing.empty())
    o.reason = fmt::format("{} has no {} for class '{}'", field, join(j.missing, ", "), ch.op_class);
  o.cases = {j.verdict == Verdict::holds, j.verdict == Verdict::fails, 0, j.verdict == Verdict::not_measured};
  if (o.verdict == Verdict::fails) {
    // As for a run (verdict_cause.h): a class whose kernels run below the roof fraction
    // that tells the two apart could change its share with faster kernels; at or above
    // it, the share is what the design costs.
    if (!row->fraction_of_roof)
      o.cause = VerdictCause{Cause::architecture, fmt::format("no roof judges class '{}' in the trace", ch.op_class)};
    else if (*row->fraction_of_roof < kArchitectureRoofFraction)
      o.cause = VerdictCause{Cause::implementation, fmt::format("the trace's {} kernels run at {} of their roofs",
                                                                ch.op_class, pct(*row->fraction_of_roof))};
    else
      o.cause = VerdictCause{Cause::architecture, fmt::format("the trace's {} kernels run at {} of their roofs",
                                                              ch.op_class, pct(*row->fraction_of_roof))};
  }
  return o;
}

}  // namespace lmroof::claims_detail
