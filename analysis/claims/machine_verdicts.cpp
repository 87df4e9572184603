#include "analysis/claims/machine_verdicts.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

#include "analysis/numbers/numbers.h"
#include "analysis/results/warnings.h"
#include "analysis/rules/rules.h"

namespace lmroof {

namespace {

// The comparison between two of `runs` timed in paired rounds, if any: a claim on it
// rests on the rounds, not on either run's median alone.
const model::Comparison* paired_between(const model::Results& results, const std::set<std::string>& runs,
                                        const std::string& run) {
  for (const auto& c : results.comparisons)
    if (c.paired && (c.baseline.run == run || c.candidate.run == run) && runs.count(c.baseline.run) &&
        runs.count(c.candidate.run))
      return &c;
  return nullptr;
}

// Why the machine decided this verdict, or empty when it did not.
struct MachineReason {
  model::Cause cause = model::Cause::machine;
  std::string text;
};

// A verdict on a ridge point (the bound check, model evidence included) rests on the
// ceilings measured in this run. A ceiling whose best repetition was contended is
// measured again (bench/runner.cpp), but results.json keeps no contention per ceiling:
// when most of the measurement's timed repetitions stayed contended
// (rules::mostly_contended over MachineContention), its roofs are taken as measured on a
// busy machine (issue 45: decode-layer-memory-bound flipped on such a ridge).
std::string ridge_reason(const model::Results& results, const model::ClaimVerdict& v) {
  const bool on_ridge = std::any_of(v.evidence.begin(), v.evidence.end(),
                                    [](const model::Evidence& e) {
                                      return e.metric == "roofline.ridge" || e.metric == "roofline.ridge_probed";
                                    });
  const auto& m = results.contention;
  if (!on_ridge || !m || !rules::mostly_contended(m->contended, m->repetitions) || results.decided().busy.empty()) return {};
  return fmt::format("{}: its ridge point comes from ceilings measured while {} of {} timed repetitions stayed contended",
                     results.decided().busy, m->contended, m->repetitions);
}

MachineReason reason_for(const model::Results& results, const std::set<std::string>& runs) {
  const model::Findings& f = results.decided();
  for (const auto& id : f.contended_runs)
    if (runs.count(id)) {
      const model::Run* r = results.run(id);
      return {model::Cause::machine,
              fmt::format("{}: {} stayed contended in {} of {} repetitions (a worker waited for a core up to {} of one)",
                          f.busy, id, r->contention->contended, r->contention->repetitions,
                          whole_percent(r->contention->worst_wait_share))};
    }
  for (size_t i : f.contended_comparisons) {
    const model::Comparison& c = results.comparisons[i];
    if (runs.count(c.baseline.run) && runs.count(c.candidate.run))
      return {model::Cause::machine,
              fmt::format("{}: the paired rounds of {} against {} stayed contended in {} of {}", f.busy, c.candidate.run,
                          c.baseline.run, c.paired->contention->contended, c.paired->contention->repetitions)};
  }
  for (const auto& id : f.disturbed_runs) {
    if (!runs.count(id) || paired_between(results, runs, id)) continue;
    const model::Run* r = results.run(id);
    const std::string what = fmt::format("{} is disturbed: its slowest repetition took {}x its fastest (beyond {}x), so "
                                         "its median alone cannot carry a verdict",
                                         id, numbers::sig(model::repetition_spread(*r)), numbers::sig(rules::kDisturbedSpread));
    // A busy machine explains a disturbance; on a quiet one it is noise of unknown origin.
    // (This runs after the speedup claims' own disturbed-median rule, refuse_disturbed_medians,
    // and gives every claim on a disturbed run the same cause.)
    return f.busy.empty() ? MachineReason{model::Cause::noise, what} : MachineReason{model::Cause::machine, f.busy + "; " + what};
  }
  return {model::Cause::machine, {}};
}

}  // namespace

void mark_machine_verdicts(std::vector<model::ClaimVerdict>& verdicts, const model::Results& results) {
  for (auto& v : verdicts) {
    if (v.verdict == model::Verdict::not_measured) continue;  // nothing to mark
    MachineReason why;
    if (v.evidence_kind == model::EvidenceKind::measured) {  // the cost model's verdicts rest on no time
      std::set<std::string> runs;
      for (const auto& e : v.evidence)
        if (e.run) runs.insert(*e.run);
      why = reason_for(results, runs);
    }
    // On a ridge, the cost model's verdicts too rest on the ceilings.
    if (why.text.empty()) why = {model::Cause::machine, ridge_reason(results, v)};
    if (why.text.empty()) continue;
    v.verdict = model::Verdict::inconclusive;
    v.cause = why.cause;
    v.cause_detail = why.text;
    v.reason = why.text;
  }
}

}  // namespace lmroof
