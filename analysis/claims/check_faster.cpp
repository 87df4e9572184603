// The faster check: a speedup of at least a factor, or none beyond the noise (docs/claims.md#faster).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/claims/check_common.h"
#include "analysis/claims/speedup_evidence.h"
#include "analysis/claims/verdict_cause.h"
#include "analysis/numbers/numbers.h"

namespace lmroof::claims_detail {

namespace {

Case faster_verdict(const Context& ctx, const SpeedupStats& st, const RunPair& p) {
  const Check& ch = ctx.claim.check;
  Case c;
  c.tokens = tokens_of(ctx, *p.candidate);
  const double tc = p.candidate->time_s.median, tb = p.baseline->time_s.median;
  const double s = st.speedup;
  c.evidence = {evidence(p.candidate, "time_s.median", tc), evidence(p.baseline, "time_s.median", tb),
                evidence(nullptr, "speedup", s), evidence(nullptr, "speedup_low", st.low),
                evidence(nullptr, "speedup_high", st.high), evidence(nullptr, "noise", st.noise),
                evidence(nullptr, "p_value", st.p_value), estimator_evidence(st)};
  c.measured = fmt::format("speedup {} ({}; {} vs {})", numbers::ratio(s), interval_text(st), si(tc, "s"), si(tb, "s"));
  const double threshold = ch.within_noise ? 1.0 : *ch.factor;
  if (!st.has_interval()) {
    c.verdict = Verdict::inconclusive;
    c.reason = "too few repetitions for an interval; would decide it: " +
               what_would_decide(st, threshold, *p.baseline, *p.candidate);
    return c;
  }
  if (st.noise > ch.max_noise) {
    c.verdict = Verdict::inconclusive;
    c.reason = too_noisy(st.noise, ch.max_noise) + "; would decide it: " +
               what_would_decide(st, threshold, *p.baseline, *p.candidate);
    return c;
  }
  if (st.floor && *st.floor > ch.max_noise) {
    // The pair's A/A control varied by more than any verdict could rest on.
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("this machine's noise floor for the pair (\u00b1{}, the A/A control) is above max_noise {}; "
                           "would decide it: a quieter machine",
                           pct(*st.floor), pct(ch.max_noise));
    return c;
  }
  if (!ch.within_noise && st.within_floor() && st.high * (1 + *st.floor) < *ch.factor) {
    // Within the floor, and the factor asked lies beyond the floor's reach: even the
    // interval's upper end stretched by the floor falls short of it. The machine cannot
    // tell this difference from none, and none is not the factor asked: the case fails
    // (a claim of "at least 1.3x" against a measured 1.00x is no call for a quieter
    // machine). Without this, a case near 1.0 went fails or inconclusive with the floor
    // of the moment, and its claim flipped between two consecutive runs (2026-12-03).
    c.verdict = Verdict::fails;
    c.measured += fmt::format(", short of {} even with the floor", num(*ch.factor));
    c.slack = std::abs(std::log(s / *ch.factor));
    return c;
  }
  if (!ch.within_noise && st.within_floor()) {
    // The A/A control of this pair could not tell a run from itself by this much, and
    // the factor asked is within the floor's reach.
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("below this machine's noise floor (\u00b1{}): the interval {}\u2013{} lies within it; would "
                           "decide it: a quieter machine",
                           pct(*st.floor), num(st.low), num(st.high));
    c.slack = std::abs(std::log(s));
    return c;
  }
  if (!ch.within_noise) {
    const double f = *ch.factor;
    // Holds: the whole interval is at least f (and excludes 1). Fails: even the
    // interval's upper end falls short of f. Between: inconclusive. Judging by the
    // interval on both sides, never by the point estimate, is what keeps two runs
    // whose intervals both cover the true speedup from calling it holds and fails
    // (a point-estimate hold flipped against an interval fail, 2026-12-03). The interval
    // is widened by the pair's A/A floor, as a ratio's (check_ratio.cpp): the same work on
    // both sides differed by up to that much here.
    const double floor = st.floor.value_or(0.0);
    const auto [low, high] = widened_by_floor(st.low, st.high, floor);
    if (low >= f && st.low > 1) {
      c.verdict = Verdict::holds;
    } else if (high < f) {
      c.verdict = Verdict::fails;
      c.measured += fmt::format(": {}, {} the \u2265 {} expected", numbers::ratio(s), s < 1 ? "slower, not faster, than" : "short of", num(f));
    } else if (floor > 0 && ((st.low >= f && st.low > 1) || st.high < f)) {
      c.verdict = Verdict::inconclusive;
      c.reason = fmt::format("speedup {} (interval {}\u2013{}) is within this machine's noise floor for the pair (\u00b1{}, "
                             "the A/A control) of {}: {}\u2013{} with it; would decide it: a quieter machine",
                             num(s), num(st.low), num(st.high), pct(floor), num(f), num(low), num(high));
    } else {
      c.verdict = Verdict::inconclusive;
      c.reason = (s >= f ? fmt::format("speedup {} but its interval reaches {}, below {}", num(s), num(st.low), num(f))
                         : fmt::format("speedup {} is below {} but its interval reaches {}", num(s), num(f),
                                       num(st.high))) +
                 "; would decide it: " + what_would_decide(st, f, *p.baseline, *p.candidate);
    }
    c.slack = std::min(std::abs(std::log(s / f)), std::abs(std::log(s)));
    return c;
  }
  const double d = std::abs(s - 1);
  // A difference within the pair's noise floor is no difference this machine can show.
  const double band = std::max({ch.max_difference, st.noise, st.floor.value_or(0.0)});
  if (d <= band) {
    c.verdict = Verdict::holds;
  } else if (d > band + st.noise) {
    c.verdict = Verdict::fails;
    // "No gap" is a claim about the two sides' roofs: it can fail only where the slower
    // side, at its roof, would still take more than 1 + band times the faster side's
    // time. Where its distance from its roof covers the gap, the gap is how close each
    // kernel gets to its roof: lmroof's code, not the claim's physics (fused LayerNorm at
    // 83% of its probed copy_nt roof ran 1.25x slower than fused RMSNorm; in another run
    // 1.08x, with both nearer it, 2026-12-04/05). Times are the runs' medians, as the
    // roof fractions are.
    const bool candidate_slower = s < 1;
    const Run& slower = candidate_slower ? *p.candidate : *p.baseline;
    const double t_slow = candidate_slower ? tc : tb, t_fast = candidate_slower ? tb : tc;
    if (const auto fraction = roof_fraction(slower); fraction && *fraction * t_slow <= (1 + band) * t_fast) {
      c.verdict = Verdict::inconclusive;
      c.reason = fmt::format("the gap ({}) is within the slower side's distance from its roof (the {} at {} of it: "
                             "its roof time is {} the faster side's time), so it measures the kernels' code, not the "
                             "claim; would decide it: a {}/{} kernel nearer its roof",
                             numbers::ratio(candidate_slower ? 1 / s : s), candidate_slower ? "candidate" : "baseline",
                             pct(*fraction), numbers::ratio(*fraction * t_slow / t_fast), slower.variant, slower.impl);
      c.cause = VerdictCause{Cause::implementation,
                             fmt::format("{} {} at {} of its roof", candidate_slower ? "candidate" : "baseline",
                                         slower.id, pct(*fraction))};
    }
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("difference {} is beyond {} but within the interval (\u00b1{}) of it; would decide it: {}",
                           pct(d), pct(band), pct(st.noise), what_would_decide(st, 1.0, *p.baseline, *p.candidate));
  }
  c.slack = std::abs(d - band);
  return c;
}

Case faster_case(const Context& ctx, const RunPair& p) {
  const Check& ch = ctx.claim.check;
  const SpeedupStats st = speedup_stats(ch, ctx.results, *p.baseline, *p.candidate);
  Case c = faster_verdict(ctx, st, p);
  // A cause the verdict named itself (a gap within a side's distance from its roof)
  // stands, unless the machine decided (a latency-bound side, the probes moved).
  const auto named = std::exchange(c.cause, std::nullopt);
  name_cause(c, ch, st, p);
  if (named && !(c.cause && c.cause->cause == Cause::machine)) c.cause = named;
  refuse_disturbed_medians(c, st, p);
  return c;
}

}  // namespace

Outcome check_faster(const Context& ctx) { return check_each_pair(ctx, faster_case); }

}  // namespace lmroof::claims_detail
