// A claim's verdict from its cases: the rule of docs/claims.md#aggregation.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/claims/check_common.h"
#include "analysis/rules/rules.h"

namespace lmroof::claims_detail {

namespace {

std::string name(Verdict v) { return std::string(model::to_string(v)); }

// The cause most of the cases with the claim's verdict name (the first on a tie);
// nullopt when none names one.
std::optional<VerdictCause> prevailing_cause(const std::vector<Case>& cases, Verdict verdict) {
  std::map<Cause, int> counts;
  std::map<Cause, const Case*> first_of;
  int with_verdict = 0;
  for (const auto& c : cases) {
    if (c.verdict != verdict) continue;
    ++with_verdict;
    if (!c.cause) continue;
    ++counts[c.cause->cause];
    first_of.try_emplace(c.cause->cause, &c);
  }
  const Case* best = nullptr;
  for (const auto& c : cases)
    if (c.verdict == verdict && c.cause && (!best || counts[c.cause->cause] > counts[best->cause->cause]))
      best = first_of[c.cause->cause];
  if (!best) return std::nullopt;
  VerdictCause out = *best->cause;
  if (with_verdict > 1)
    out.detail += fmt::format(" ({} of {} such cases)", counts[best->cause->cause], with_verdict);
  return out;
}

}  // namespace

// The rule (docs/claims.md#aggregation): it holds when no case fails and at least two
// thirds of the judged cases hold (so one noisy shape of four does not hide a
// consistent effect, and the tally says "3 of 4 hold, 1 inconclusive"). It fails when a
// case fails, on the cost model's evidence; on measured evidence, when more than a
// third of the judged cases fail. A third or fewer failing, on measured evidence, is
// inconclusive ("mixed"): a case may move between fails and inconclusive from one run
// to the next without either interval missing the truth, and with "any case fails"
// that moved the claim between fails and holds (unfused-trick-slower, 3 of 4 holding,
// on two consecutive default runs); with a third, a claim that holds in one run can
// fail in another only if some case flips between holds and fails.
Outcome aggregate(const Context& ctx, std::vector<Case> cases, const std::string& noun,
                  const std::vector<std::string>& notes, const std::string& none_reason) {
  Outcome o;
  std::vector<Case> measured;
  std::vector<std::string> unmeasured_reasons;
  for (auto& c : cases) {
    if (c.verdict == Verdict::not_measured)
      unmeasured_reasons.push_back(c.reason);
    else
      measured.push_back(std::move(c));
  }
  std::string note = join(notes, "; ");
  if (measured.empty()) {
    o.verdict = Verdict::not_measured;
    std::vector<std::string> reasons = unmeasured_reasons;
    if (reasons.empty()) reasons.push_back(none_reason);
    std::sort(reasons.begin(), reasons.end());
    reasons.erase(std::unique(reasons.begin(), reasons.end()), reasons.end());
    o.reason = join_some(reasons);
    if (!note.empty()) o.reason += " (" + note + ")";
    return o;
  }
  if (!unmeasured_reasons.empty())
    note += fmt::format("{}{} not measured: {}", note.empty() ? "" : "; ", unmeasured_reasons.size(),
                        unmeasured_reasons.front());

  int counts[4] = {0, 0, 0, 0};
  for (const auto& c : measured) ++counts[static_cast<int>(c.verdict)];
  const int n_holds = counts[static_cast<int>(Verdict::holds)];
  const int n_fails = counts[static_cast<int>(Verdict::fails)];
  const int n_unsure = counts[static_cast<int>(Verdict::inconclusive)];
  o.cases = {n_holds, n_fails, n_unsure, static_cast<int64_t>(unmeasured_reasons.size())};
  for (const auto& c : measured)
    for (const auto& e : c.evidence) o.evidence.push_back(e);
  const int n_judged = n_holds + n_fails + n_unsure;
  const bool on_measurement = evidence_kind(ctx.claim.check, o.evidence) == model::EvidenceKind::measured;
  const bool mixed = n_fails && on_measurement && rules::fails_are_few(n_fails, n_judged);
  o.verdict = n_fails && !mixed                                    ? Verdict::fails
              : !n_fails && rules::holds_by_share(n_holds, n_unsure) ? Verdict::holds
                                                                     : Verdict::inconclusive;
  if (o.verdict == Verdict::fails || o.verdict == Verdict::inconclusive) o.cause = prevailing_cause(measured, o.verdict);
  if (mixed && !o.cause) o.cause = prevailing_cause(measured, Verdict::fails);  // the failing case decides what to look at
  const auto names = labels(measured);

  if (measured.size() == 1) {
    o.measured = measured[0].measured;
  } else if (measured.size() <= 4) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < measured.size(); ++i)
      parts.push_back(fmt::format("{}: {}{}", names[i], measured[i].measured,
                                  measured[i].verdict == o.verdict ? ""
                                                                   : fmt::format(" ({})", name(measured[i].verdict))));
    o.measured = join(parts, "; ");
  } else {
    // Many cases: a tally and the one that decides (or the closest call).
    size_t pick = 0;
    const Verdict deciding = mixed ? Verdict::fails : o.verdict;  // a mixed claim: its (first) failing case
    for (size_t i = 0; i < measured.size(); ++i) {
      const auto& c = measured[i];
      if (o.verdict != Verdict::holds) {
        if (c.verdict == deciding) {
          pick = i;
          break;
        }
      } else if (c.slack < measured[pick].slack) {
        pick = i;
      }
    }
    std::vector<std::string> tally;
    const char* plural[] = {"hold", "fail", "inconclusive"};
    for (Verdict v : {Verdict::holds, Verdict::fails, Verdict::inconclusive})
      if (const int k = counts[static_cast<int>(v)])
        tally.push_back(k == static_cast<int>(measured.size()) ? fmt::format("all {}", plural[static_cast<int>(v)])
                                                               : fmt::format("{} {}", k, plural[static_cast<int>(v)]));
    o.measured = fmt::format("{} {}, {}; {}: {}: {}", measured.size(), noun, join(tally, ", "),
                             o.verdict == Verdict::holds                  ? "closest"
                             : deciding == Verdict::fails                   ? "failing"
                                                                            : "unsure",
                             names[pick], measured[pick].measured);
  }
  if (!note.empty()) o.measured += " (" + note + ")";
  // Mixed outcomes lead with the tally: "holds on 3 of 4 run pairs, 1 inconclusive: ...".
  if (measured.size() > 1 && measured.size() <= 4 && (n_unsure || n_fails) && (n_holds || n_fails != static_cast<int>(measured.size()))) {
    std::vector<std::string> others;
    if (n_fails && o.verdict != Verdict::fails) others.push_back(fmt::format("{} fail", n_fails));
    if (n_unsure && o.verdict != Verdict::inconclusive) others.push_back(fmt::format("{} inconclusive", n_unsure));
    if (n_holds && o.verdict != Verdict::holds) others.push_back(fmt::format("{} hold", n_holds));
    const int main_count = counts[static_cast<int>(o.verdict)];
    if (mixed && !n_unsure)  // no case is inconclusive itself: "mixed: 3 of 4 run pairs hold, 1 fail: ..."
      o.measured = fmt::format("mixed: {} of {} {} hold, {} fail: {}", n_holds, measured.size(), noun, n_fails, o.measured);
    else
      o.measured = fmt::format("{} on {} of {} {}{}: {}", name(o.verdict), main_count, measured.size(), noun,
                               others.empty() ? "" : ", " + join(others, ", "), o.measured);
  }

  if (o.verdict == Verdict::inconclusive || (o.verdict == Verdict::holds && n_unsure)) {
    std::vector<std::string> reasons;
    std::set<std::string> distinct;
    for (size_t i = 0; i < measured.size(); ++i)
      if (measured[i].verdict == Verdict::inconclusive) {
        auto r = measured.size() > 1 ? names[i] + ": " + measured[i].reason : measured[i].reason;
        if (distinct.insert(r).second) reasons.push_back(std::move(r));
      }
    if (mixed)
      reasons.insert(reasons.begin(),
                     fmt::format("{} of {} cases fail{} and a claim on measured evidence fails only when more than a third "
                                 "do (docs/claims.md#aggregation); would decide it: the failing cases' own advice, or "
                                 "shapes where the claim is meant to hold",
                                 n_fails, n_judged, n_fails == 1 ? "s" : ""));
    o.reason = join_some(reasons);
  }
  return o;
}

}  // namespace lmroof::claims_detail
