// Checking claims against a results.json: one verdict per claim with the numbers
// behind it. Every rule applied here is written out in docs/claims.md; keep the two
// in step. The check kinds are check_<kind>.cpp, the aggregation of their cases
// claims_aggregate.cpp, the speedup evidence speedup_evidence.cpp; this file asks the
// right one and assembles the verdict.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/claims/check_common.h"
#include "analysis/claims/claims.h"
#include "analysis/claims/identity_controls.h"
#include "analysis/claims/machine_verdicts.h"
#include "analysis/claims/roof_faults.h"
#include "analysis/claims/verdict_cause.h"
#include "analysis/rules/rules.h"

namespace lmroof {

using model::Run;
using model::Verdict;

namespace {

using namespace claims_detail;

// ---- expected, in words ------------------------------------------------------------

std::string expected_text(const Check& ch) {
  switch (ch.kind) {
    case CheckKind::bound:
      if (!ch.crossing.empty())
        return fmt::format("turns compute-bound along {}: measured crossing within {}x of where the model "
                           "intensity reaches the ridge",
                           ch.crossing, factor_num(ch.factor.value_or(rules::kCrossingFactor)));
      return fmt::format("{}-bound: I {} {} x ridge", ch.expect, ch.expect == "memory" ? "<" : ">",
                         num(ch.expect == "memory" ? 1 - ch.margin : 1 + ch.margin));
    case CheckKind::faster:
      if (ch.within_noise)
        return ch.max_difference > 0
                   ? fmt::format("no measurable difference: |speedup - 1| <= {} or noise", pct(ch.max_difference))
                   : "no measurable difference: |speedup - 1| within noise";
      if (*ch.factor == 1.0) return "measurably faster: speedup > 1 beyond noise";
      return fmt::format("speedup >= {:.2f}, beyond noise", *ch.factor);
    case CheckKind::ratio: return fmt::format("{} ratio {}", ch.metric, ch.range.describe());
    case CheckKind::share:
    case CheckKind::class_share: {
      std::vector<std::string> parts;
      auto as_pct = [](const Range& r) {
        if (r.min && r.max) return fmt::format("in [{}, {}]", pct(*r.min), pct(*r.max));
        if (r.min) return ">= " + pct(*r.min);
        return "<= " + pct(*r.max);
      };
      if (ch.flop_share.min || ch.flop_share.max) parts.push_back("FLOP share " + as_pct(ch.flop_share));
      if (ch.byte_share.min || ch.byte_share.max) parts.push_back("byte share " + as_pct(ch.byte_share));
      if (ch.time_share.min || ch.time_share.max) parts.push_back("time share " + as_pct(ch.time_share));
      if (ch.fraction_of_roof.min || ch.fraction_of_roof.max)
        parts.push_back("fraction of roof " + as_pct(ch.fraction_of_roof));
      if (ch.time_over_flop_share.min || ch.time_over_flop_share.max)
        parts.push_back("time/FLOP share " + ch.time_over_flop_share.describe());
      if (ch.kind == CheckKind::class_share)
        return fmt::format("{} ({} grouping): {}", ch.op_class, to_string(ch.grouping), join(parts, ", "));
      return fmt::format("{}: {}", ch.op_class, join(parts, ", "));
    }
    case CheckKind::scaling:
      return fmt::format("{} ~ {}^{} +/- {}", ch.metric, ch.dimension, num(ch.exponent), num(ch.tolerance));
  }
  return "";
}

// A claim's verdict from its outcome, whatever document it was checked against.
model::ClaimVerdict verdict_of(const Claim& claim, Outcome o) {
// GCC 12 warns, falsely, that assigning "-" copies overlap (GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
  if (o.measured.empty()) o.measured = "-";
#pragma GCC diagnostic pop
  const bool explain = o.verdict == Verdict::inconclusive || o.verdict == Verdict::not_measured;
  model::ClaimVerdict v;
  v.id = claim.id;
  v.statement = claim.statement;
  v.source = claim.source;
  v.kind = to_string(claim.check.kind);
  v.verdict = o.verdict;
  v.expected = expected_text(claim.check);
  v.measured = o.measured;
  v.evidence = std::move(o.evidence);
  if (explain && !o.reason.empty()) v.reason = o.reason;
  v.chart = claim.chart;
  v.claims_file = claim.file;
  v.cases = o.cases;
  v.evidence_kind = evidence_kind(claim.check, v.evidence);
  // The cost model's FLOPs and bytes decided it: no kernel, machine or noise could.
  if (v.evidence_kind == model::EvidenceKind::model && (v.verdict == Verdict::fails || v.verdict == Verdict::inconclusive))
    o.cause = VerdictCause{Cause::architecture, "the cost model's FLOPs and bytes decide it"};
  if (o.cause && (v.verdict == Verdict::fails || v.verdict == Verdict::inconclusive)) {
    v.cause = o.cause->cause;
    v.cause_detail = o.cause->detail;
  }
  return v;
}

model::ClaimVerdict check_one(const Claim& claim, const model::Results& results) {
  const Context ctx{claim, results};
  Outcome o;
  switch (claim.check.kind) {
    case CheckKind::bound: o = claim.check.crossing.empty() ? check_bound(ctx) : check_crossing(ctx); break;
    case CheckKind::faster: o = check_faster(ctx); break;
    case CheckKind::ratio: o = check_ratio(ctx); break;
    case CheckKind::share: o = check_share(ctx); break;
    case CheckKind::scaling: o = check_scaling(ctx); break;
    case CheckKind::class_share:  // refused by load_claims for a results.json
      o.reason = "a class_share claim is checked against a trace.json";
      break;
  }
  model::ClaimVerdict v = verdict_of(claim, std::move(o));
  if ((v.verdict == Verdict::fails || v.verdict == Verdict::inconclusive) && !v.cause) {
    // Kinds whose cases name no cause (bound, share, scaling): the runs in the evidence.
    CauseInputs in{v.verdict, {}, std::nullopt, std::nullopt};
    std::set<std::string> seen;
    for (const auto& e : v.evidence)
      if (e.run && seen.insert(*e.run).second)
        if (const Run* r = results.run(*e.run)) in.sides.emplace_back("run", r);
    const std::optional<VerdictCause> cause = cause_of(in);
    v.cause = cause->cause;
    v.cause_detail = cause->detail;
  }
  return v;
}

}  // namespace

// ---- API ---------------------------------------------------------------------------

bool RunSelector::matches(const model::Run& run) const {
  if (run.pair != pair) return false;
  auto in = [](const std::vector<std::string>& allowed, const std::string& v) {
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
  };
  if (!in(variants, run.variant) || !in(impls, run.impl)) return false;
  if (backend && run.backend != *backend) return false;
  if (dtype && run.dtype != *dtype) return false;
  for (const auto& [dim, v] : shape) {
    const auto it = run.shape.find(dim);
    if (it == run.shape.end() || it->second != v) return false;
  }
  return true;
}

std::string RunSelector::describe() const { return claims_detail::selector_text(*this); }

std::string Range::describe(int digits) const {
  auto f = [&](double v) { return fmt::format("{:.{}g}", v, digits); };
  if (min && max) return fmt::format("in [{}, {}]", f(*min), f(*max));
  if (min) return ">= " + f(*min);
  if (max) return "<= " + f(*max);
  return "any";
}

std::vector<model::ClaimVerdict> check_trace_claims(const std::vector<Claim>& claims, const model::TraceResult& trace) {
  std::vector<model::ClaimVerdict> out;
  out.reserve(claims.size());
  for (const auto& c : claims) {
    Outcome o;
    if (c.check.kind == CheckKind::class_share) o = check_class_share(c, trace);
    else o.reason = fmt::format("a {} claim is checked against a results.json", to_string(c.check.kind));  // refused by load_claims
    out.push_back(verdict_of(c, std::move(o)));
  }
  return out;
}

std::vector<model::ClaimVerdict> check_claims(const std::vector<Claim>& claims, const model::Results& results) {
  std::vector<model::ClaimVerdict> out;
  out.reserve(claims.size());
  for (const auto& c : claims) out.push_back(check_one(c, results));
  const model::Findings& findings = results.decided();
  mark_untrustworthy(out, findings.controls);
  mark_roof_faults(out, findings);
  mark_machine_verdicts(out, results);  // last: a busy machine overrides the verdict and its cause
  return out;
}

}  // namespace lmroof
