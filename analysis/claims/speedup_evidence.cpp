// Pairing runs and the speedup evidence of a comparison (speedup_evidence.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <tuple>

#include "analysis/claims/speedup_evidence.h"
#include "analysis/numbers/numbers.h"
#include "analysis/rules/rules.h"
#include "analysis/stats/statistics.h"

namespace lmroof::claims_detail {

namespace {

// What must agree for a candidate and a baseline run to pair up: backend, dtype, the
// shape but for the ignored dims, and each free selector field.
using PairKey = std::tuple<std::string, std::string, std::string, std::string, model::Shape>;

PairKey pair_key(const Run& r, const std::vector<std::string>& ignore, bool free_variant, bool free_impl) {
  model::Shape shape = r.shape;
  for (const auto& d : ignore) shape.erase(d);
  return {r.backend, r.dtype, free_variant ? r.variant : "", free_impl ? r.impl : "", std::move(shape)};
}

// The paired rounds of these two runs, either way round (inverted when the catalogue
// compares them the other way); nullopt without an interval.
std::optional<model::PairedRounds> paired_rounds_of(const model::Results& results, const Run& baseline,
                                                     const Run& candidate) {
  if (const auto* c = results.comparison(baseline.id, candidate.id); c && c->paired && c->paired->has_interval())
    return c->paired;
  if (const auto* c = results.comparison(candidate.id, baseline.id); c && c->paired && c->paired->has_interval()) {
    model::PairedRounds inverted{c->paired->rounds, 1 / c->paired->speedup, 1 / *c->paired->high, 1 / *c->paired->low,
                                 c->paired->extra_rounds, {}};
    for (const double s : c->paired->sittings) inverted.sittings.push_back(1 / s);
    return inverted;
  }
  return std::nullopt;
}

}  // namespace

// Runs pair up when backend, dtype and shape agree (but for ignore_dims), and so does
// every selector field that neither selector names. The baselines are indexed by
// that key, so pairing n runs takes O(n log n).
std::vector<RunPair> pair_runs(const Context& ctx, std::vector<std::string>& notes, std::string& none_reason) {
  const auto& ch = ctx.claim.check;
  const auto cands = select(ctx, ch.candidate);
  const auto bases = select(ctx, ch.baseline);
  std::vector<RunPair> out;
  if (cands.empty() || bases.empty()) {
    none_reason = no_match_reason(ctx, cands.empty() ? ch.candidate : ch.baseline);
    return out;
  }
  // The pair is always named; variant and impl pair up when neither selector names them.
  const bool free_variant = ch.candidate.variants.empty() && ch.baseline.variants.empty();
  const bool free_impl = ch.candidate.impls.empty() && ch.baseline.impls.empty();
  // Dims the variant decides (the catalogue's variant_dims, decode's kv_heads) never
  // keep two runs of one pair apart.
  std::vector<std::string> ignore = ch.ignore_dims;
  if (ch.candidate.pair == ch.baseline.pair)
    if (const auto* p = ctx.results.catalogue.find(ch.candidate.pair))
      ignore.insert(ignore.end(), p->variant_dims.begin(), p->variant_dims.end());
  std::map<PairKey, std::vector<const Run*>> index;
  for (const auto* b : bases) index[pair_key(*b, ignore, free_variant, free_impl)].push_back(b);
  int unpaired = 0;
  for (const auto* c : cands) {
    std::vector<const Run*> matches;
    if (auto it = index.find(pair_key(*c, ignore, free_variant, free_impl)); it != index.end())
      for (const auto* b : it->second)
        if (b != c) matches.push_back(b);
    if (matches.size() > 1)
      throw ClaimsFileError(ctx.claim.file, ch.baseline.line,
                            fmt::format("claim '{}': baseline {} matches {} runs ({}, {}) for candidate run {}; name "
                                        "its variant, impl or shape",
                                        ctx.claim.id, selector_text(ch.baseline), matches.size(),
                                        run_id(*matches[0]), run_id(*matches[1]), run_id(*c)));
    if (matches.empty())
      ++unpaired;
    else
      out.push_back({c, matches[0]});
  }
  if (out.empty())
    none_reason = fmt::format("no baseline run ({}) has the shape of a candidate run ({})",
                              selector_text(ch.baseline), selector_text(ch.candidate));
  else if (unpaired)
    notes.push_back(fmt::format("{} candidate run{} had no baseline", unpaired, unpaired == 1 ? "" : "s"));
  return out;
}

SpeedupStats speedup_stats(const Check& ch, const model::Results& results, const Run& baseline, const Run& candidate) {
  SpeedupStats p;
  if (const auto* f = results.noise_floor(baseline.pair)) p.floor = f->floor;
  p.drift = model::probed_drift(baseline, candidate).value_or(0.0);
  if (const auto paired = paired_rounds_of(results, baseline, candidate)) {
    // Drift common to both sides cancels in the rounds' ratios: no widening for it.
    const double floor = 1 + std::max(0.0, ch.noise_floor);
    p.rounds = static_cast<int>(paired->rounds);
    p.extra_rounds = static_cast<int>(paired->extra_rounds);
    p.sittings = paired->sittings;
    p.repetitions = p.rounds;
    p.speedup = paired->speedup;
    p.low = std::min(*paired->low, p.speedup / floor);
    p.high = std::max(*paired->high, p.speedup * floor);
    p.noise = std::max(p.high / p.speedup, p.speedup / p.low) - 1;
    return p;
  }
  p.speedup = baseline.time_s.median / candidate.time_s.median;
  if (baseline.time_s.samples.empty() || candidate.time_s.samples.empty()) return p;
  const stats::SpeedupEstimate e = stats::estimate_speedup(baseline.time_s.samples, candidate.time_s.samples);
  p.speedup = e.speedup;
  p.p_value = e.p_value;
  p.repetitions = std::min(e.baseline_samples, e.candidate_samples);
  if (!e.has_interval()) return p;
  const double floor = 1 + std::max(0.0, ch.noise_floor);
  p.low = std::min(e.low, e.speedup / floor);
  p.high = std::max(e.high, e.speedup * floor);
  if (p.drift > 0) model::widen_for_drift(e.speedup, baseline.dram_probe->read, candidate.dram_probe->read, p.low, p.high);
  p.noise = std::max(p.high / p.speedup, p.speedup / p.low) - 1;
  return p;
}

// The cause of a compared case's fails or inconclusive verdict (verdict_cause.h).
void name_cause(Case& c, const Check& ch, const SpeedupStats& st, const RunPair& p) {
  c.cause = cause_of({c.verdict,
                      {{"baseline", p.baseline}, {"candidate", p.candidate}},
                      st.drift > 0 ? std::optional(st.drift) : std::nullopt,
                      st.floor ? st.floor : std::optional(std::max(ch.noise_floor, 0.0)), st.floor.has_value()});
}

std::string interval_text(const SpeedupStats& p) { return interval_text(p, 1.0, false); }

std::string interval_text(const SpeedupStats& p, double scale, bool inverse) {
  const std::string estimator = p.paired() ? "" : "unpaired: medians, ";
  if (!p.has_interval()) return estimator + "no interval";
  auto map = [&](double v) { return inverse ? scale / v : scale * v; };
  const double low = inverse ? map(p.high) : map(p.low), high = inverse ? map(p.low) : map(p.high);
  if (p.paired())
    return fmt::format("95% {}\u2013{}, \u00b1{}, {} paired rounds{}{}", num(low), num(high), pct(p.noise), p.rounds,
                       p.sittings.size() == 2
                           ? fmt::format(" in two sittings, {} then {}", num(map(p.sittings[0])), num(map(p.sittings[1])))
                       : p.extra_rounds > 0 ? fmt::format(" ({} re-measured)", p.extra_rounds)
                                            : "",
                       p.floor ? fmt::format(", floor \u00b1{}", pct(*p.floor)) : "");
  return fmt::format("{}95% {}\u2013{}, \u00b1{}{}", estimator, num(low), num(high), pct(p.noise),
                     p.drift > 0 ? fmt::format(", with the machine's drift of {} between the runs", pct(p.drift)) : "");
}

bool rides_on_speedup(const std::string& field) { return field == "time_s.median" || field.rfind("achieved.", 0) == 0; }

model::Evidence estimator_evidence(const SpeedupStats& st) {
  return st.paired() ? evidence(nullptr, "paired_rounds", st.rounds) : evidence(nullptr, "unpaired_medians", st.repetitions);
}

void refuse_disturbed_medians(Case& c, const SpeedupStats& st, const RunPair& p) {
  if (st.paired() || (c.verdict != Verdict::holds && c.verdict != Verdict::fails)) return;
  const Run* disturbed = model::is_disturbed(*p.baseline) ? p.baseline : model::is_disturbed(*p.candidate) ? p.candidate : nullptr;
  if (!disturbed) return;
  const std::string why = fmt::format("run {} is disturbed (its slowest repetition took {} its fastest, beyond {})",
                                      disturbed->id, numbers::ratio(model::repetition_spread(*disturbed)),
                                      numbers::ratio(rules::kDisturbedSpread));
  c.reason = fmt::format("{} on the two runs' medians alone (unpaired: no paired rounds of them), and {}; would decide "
                         "it: paired rounds of the two runs (`lmroof run` times every pair a claim compares), or a quieter "
                         "machine",
                         c.verdict == Verdict::holds ? "a hold" : "a fail", why);
  c.verdict = Verdict::inconclusive;
  c.cause = VerdictCause{Cause::machine, why};
}

// What would turn an inconclusive comparison into a verdict (docs/claims.md#inconclusive).
// `threshold`: the speedup the check compares with.
std::string what_would_decide(const SpeedupStats& p, double threshold, const Run& baseline, const Run& candidate) {
  if (!p.has_interval())
    return fmt::format("more repetitions: {} per run give no interval (at least 3; `lmroof run --repetitions 10`)",
                       p.repetitions);
  const double fastest = std::min(baseline.time_s.median, candidate.time_s.median);
  if (fastest < 20e-6)
    return fmt::format("a larger shape: the faster run takes {}, where timer and launch overheads dominate",
                       si(fastest, "s"));
  if (p.drift > 0 && p.drift >= p.noise - 1e-12)
    return fmt::format("a steadier machine: its DRAM read bandwidth moved by {} between the two runs (their probes), "
                       "more than their repetitions vary",
                       pct(p.drift));
  if (p.noise <= 0.05)
    return fmt::format("nothing this machine can give: the speedup {} is within the \u00b1{} interval of {}, "
                       "a difference below what it resolves",
                       num(p.speedup), pct(p.noise), num(threshold));
  return fmt::format("a quieter machine or more repetitions (`--repetitions 20`): the interval is \u00b1{}{}",
                     pct(p.noise), p.repetitions < 10 ? fmt::format(" from {} repetitions", p.repetitions) : "");
}

std::string too_noisy(double noise, double max_noise) {
  return fmt::format("the runs are too noisy (\u00b1{}, above max_noise {}) to judge", pct(noise), pct(max_noise));
}

// Half the spread of one run's median, relative: the larger half-width of its 95%
// bootstrap interval (sqrt(max / min) - 1 with fewer than 3 samples).
double run_spread(const model::Results& results, const Run& run) {
  const auto& intervals = results.decided().median_intervals;
  const auto i = intervals.find(run.id);
  if (i == intervals.end()) return std::sqrt(run.time_s.max / run.time_s.min) - 1;  // fewer than 3 samples
  const double m = run.time_s.median;
  return std::max(i->second.high / m, m / i->second.low) - 1;
}

Outcome check_each_pair(const Context& ctx, Case (*judge)(const Context&, const RunPair&)) {
  std::vector<std::string> notes;
  std::string none;
  const auto pairs = pair_runs(ctx, notes, none);
  std::vector<Case> cases;
  for (const auto& p : pairs) cases.push_back(judge(ctx, p));
  return aggregate(ctx, std::move(cases), "run pairs", notes, none);
}

}  // namespace lmroof::claims_detail
