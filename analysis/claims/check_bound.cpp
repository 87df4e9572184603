// The bound check: each run on its side of the ridge (docs/claims.md#bound).
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

namespace lmroof::claims_detail {

namespace {

// The ridge is the ratio of two measured peaks, each known only to within its
// repetitions' spread (Ceiling::spread, (best - worst) / best); the claim's margin widens
// by theirs, so that a run at the edge of the margin is not called one way or the other
// by which repetition a peak happened to keep (issue #34: a decode layer at 1.12x the
// ridge in one default run and 1.21x in the next, with a margin of 20%, flipped).
double ridge_spread(const model::Results& results, const Run& run) {
  double spread = 0;
  for (const auto& roof : {run.roofline.bandwidth_roof, run.roofline.compute_roof})
    if (roof)
      for (const auto& c : results.ceilings)
        if (c.name == *roof && c.spread) spread += *c.spread;
  return spread;
}

Case bound_case(const Context& ctx, const Run& run) {
  const Check& ch = ctx.claim.check;
  Case c;
  c.tokens = tokens_of(ctx, run);
  const std::optional<double> I = run.intensity.value;
  // The ridge as the machine allowed while the run ran, where its DRAM roof was probed
  // next to it (model::probed_ridge says why), else the ceilings' ridge.
  const std::optional<double> probed = model::probed_ridge(run);
  const std::optional<double> ridge = probed ? probed : run.roofline.ridge;
  if (!I || !ridge || *ridge <= 0) {
    c.reason = !I ? fmt::format("run {} has no intensity", run_id(run))
                  : fmt::format("run {} has no ridge point (ceilings not measured)", run_id(run));
    return c;
  }
  const bool measured_bytes = run.intensity.bytes == model::BytesBasis::measured;
  const double rel = *I / *ridge;
  // Its intensity still says which roof it would meet, but its time says neither.
  if (run.bound == model::Bound::latency) {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("run {} is latency-bound: its median {} is within {:g}x of the launch ceiling t0", run_id(run),
                           num(run.time_s.median), model::kLatencyBoundFactor);
    c.measured = fmt::format("latency-bound (I {} FLOP/B = {}x ridge {})", num(*I), num(rel), num(*ridge));
    return c;
  }
  c.evidence.push_back(evidence(&run, measured_bytes ? "intensity.measured" : "intensity.model", *I));
  c.evidence.push_back(evidence(&run, probed ? "roofline.ridge_probed" : "roofline.ridge", *ridge));
  std::string also;
  if (measured_bytes) {
    c.evidence.push_back(evidence(&run, "intensity.model", run.intensity.model));
    also = fmt::format("; model bytes give {}", num(run.intensity.model));
  }
  c.measured = fmt::format("I {} FLOP/B{} = {}x ridge {}{}{}", num(*I), measured_bytes ? " (measured bytes)" : "",
                           num(rel), num(*ridge),
                           probed ? fmt::format(" ({} over {} as probed next to the run)", *run.roofline.compute_roof,
                                                *run.roofline.bandwidth_roof)
                                  : "",
                           also);
  const double spread = ridge_spread(ctx.results, run);
  const double margin = ch.margin + spread;
  const double lo = std::max(0.0, 1 - margin), hi = 1 + margin;
  const bool memory = ch.expect == "memory";
  if (rel < lo)
    c.verdict = memory ? Verdict::holds : Verdict::fails;
  else if (rel > hi)
    c.verdict = memory ? Verdict::fails : Verdict::holds;
  else {
    c.verdict = Verdict::inconclusive;
    c.reason = spread > 0 ? fmt::format("intensity within +/-{} of the ridge point (the claim's {} widened by {}, the spread "
                                        "of the repetitions of the ridge's roofs)", pct(margin), pct(ch.margin), pct(spread))
                          : fmt::format("intensity within +/-{} of the ridge point", pct(ch.margin));
  }
  c.slack = std::abs(std::log(rel));
  return c;
}

}  // namespace

Outcome check_bound(const Context& ctx) { return check_each_run(ctx, bound_case); }

}  // namespace lmroof::claims_detail
