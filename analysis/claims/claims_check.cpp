// Checking claims against a results.json: one verdict per claim with the numbers
// behind it. Every rule applied here is written out in docs/claims.md; keep the two
// in step.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "analysis/claims/identity_controls.h"
#include "analysis/claims/roof_faults.h"
#include "analysis/claims/claims.h"
#include "analysis/claims/claims_internal.h"
#include "analysis/claims/verdict_cause.h"
#include "analysis/model/numbers.h"
#include "analysis/statistics.h"

namespace lmroof {

using model::Run;
using model::Verdict;

namespace claims_detail {

namespace {
const std::vector<std::string> kAliases = {"time", "flops", "bytes", "intensity"};
}  // namespace

bool valid_metric(const std::string& metric, std::string& problem) {
  if (std::find(kAliases.begin(), kAliases.end(), metric) != kAliases.end()) return true;
  if (model::is_run_metric(metric)) return true;
  // Name the fields of the object the metric was meant to read ("bytes.modle" ->
  // the bytes.* fields), else the objects.
  const std::string head = metric.substr(0, metric.find('.') + 1);
  std::vector<std::string> near;
  for (const auto& name : model::run_metric_names())
    if (head.size() > 1 && name.rfind(head, 0) == 0) near.push_back(name);
  problem = near.empty() ? fmt::format("unknown metric '{}' (expected time, flops, bytes, intensity, or a field of "
                                       "time_s, flops, bytes, intensity, achieved or roofline such as bytes.model)",
                                       metric)
                         : fmt::format("unknown metric '{}' (expected one of {})", metric, join(near, ", "));
  return false;
}

}  // namespace claims_detail

namespace {

using claims_detail::join;

std::string name(Verdict v) { return std::string(model::to_string(v)); }

// ---- reading runs -------------------------------------------------------------

// A named number of a run (model::run_metric), or a shape dimension "shape.<dim>".
std::optional<double> number_at(const Run& run, std::string_view field) {
  if (field.rfind("shape.", 0) == 0) {
    const auto it = run.shape.find(std::string(field.substr(6)));
    return it == run.shape.end() ? std::nullopt : std::optional(static_cast<double>(it->second));
  }
  return model::run_metric(run, field);
}

const std::string& run_id(const Run& run) { return run.id; }

bool is_timed(const std::string& metric) {
  return metric == "time" || metric.rfind("time_s.", 0) == 0 || metric.rfind("achieved.", 0) == 0;
}

// The field a metric reads for a set of runs that are compared with each other:
// bytes / intensity use measured bytes only when every run has them.
std::string resolve_metric(const std::string& metric, const std::vector<const Run*>& runs) {
  if (metric == "time") return "time_s.median";
  if (metric == "flops") return "flops.total";
  if (metric == "bytes" || metric == "intensity") {
    bool all_measured = !runs.empty();
    for (const auto* r : runs) all_measured = all_measured && r->bytes.measured.has_value();
    if (metric == "bytes") return all_measured ? "bytes.measured" : "bytes.model";
    return all_measured ? "intensity.measured" : "intensity.model";
  }
  return metric;
}

// ---- formatting ---------------------------------------------------------------

std::string num(double v) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : "nan";
  return numbers::sig(v);
}

std::string pct(double fraction) { return numbers::percent(fraction); }

std::string si(double v, const char* unit) { return numbers::si(v, unit); }

std::string metric_value(const std::string& field, double v) {
  if (field.rfind("time_s.", 0) == 0 && field != "time_s.cv") return si(v, "s");
  if (field.rfind("bytes.", 0) == 0) return si(v, "B");
  if (field.rfind("flops.", 0) == 0) return si(v, "FLOP");
  if (field.rfind("intensity.", 0) == 0) return num(v) + " FLOP/B";
  if (field == "achieved.flop_per_s") return si(v, "FLOP/s");
  if (field.rfind("achieved.byte_per_s", 0) == 0) return si(v, "B/s");
  return num(v);
}

// Short name of a metric for sentences: "bytes.model" -> "model bytes".
std::string metric_words(const std::string& field) {
  if (field == "time_s.median") return "time";
  if (field == "flops.total") return "FLOPs";
  if (field == "bytes.model") return "model bytes";
  if (field == "bytes.measured") return "measured bytes";
  if (field == "bytes.minimum") return "minimum bytes";
  if (field == "intensity.model") return "intensity (model bytes)";
  if (field == "intensity.measured") return "intensity (measured bytes)";
  return field;
}

std::string describe_dims(const std::vector<std::pair<std::string, int64_t>>& shape) {
  std::string out;
  for (const auto& [d, v] : shape) out += fmt::format("{}{}={}", out.empty() ? "" : " ", d, v);
  return out;
}

model::Evidence evidence(const Run* run, const std::string& metric, double value) {
  model::Evidence e;
  if (run) e.run = run->id;
  e.metric = metric;
  if (std::isfinite(value)) e.value = value;
  return e;
}

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

// The catalogue of the results being checked, for the dimension order of case labels
// (the same order the report uses); set by check_claims for the duration of a check.
thread_local const model::Catalogue* t_catalogue = nullptr;

std::vector<std::pair<std::string, std::string>> tokens_of(const Run& run, const std::vector<std::string>& skip = {}) {
  std::vector<std::pair<std::string, std::string>> t;
  const std::pair<const char*, const std::string*> fields[] = {
      {"pair", &run.pair}, {"variant", &run.variant}, {"impl", &run.impl}, {"backend", &run.backend}, {"dtype", &run.dtype}};
  for (const auto& [key, value] : fields)
    if (std::find(skip.begin(), skip.end(), key) == skip.end()) t.emplace_back(key, *value);
  const auto dims = t_catalogue ? t_catalogue->ordered(run.shape)
                                : std::vector<std::pair<std::string, int64_t>>(run.shape.begin(), run.shape.end());
  for (const auto& [dim, v] : dims)
    if (std::find(skip.begin(), skip.end(), dim) == skip.end()) t.emplace_back(dim, std::to_string(v));
  return t;
}

// Labels cases by what differs between them: "tokens=8192 d_model=4096".
std::vector<std::string> labels(const std::vector<Case>& cases) {
  // A token varies when some case lacks it or has another value: one pass, O(n).
  std::map<std::string, std::pair<std::string, size_t>> seen;  // key -> (first value, cases holding it)
  std::set<std::string> varying;
  for (const auto& c : cases)
    for (const auto& [k, v] : c.tokens) {
      auto [it, fresh] = seen.try_emplace(k, v, 0);
      if (!fresh && it->second.first != v) varying.insert(k);
      ++it->second.second;
    }
  for (const auto& [k, first] : seen)
    if (first.second != cases.size()) varying.insert(k);
  std::vector<std::string> out;
  for (const auto& c : cases) {
    std::string label;
    for (const auto& [k, v] : c.tokens) {
      if (!varying.count(k)) continue;
      const bool named = k == "pair" || k == "variant" || k == "impl" || k == "backend" || k == "dtype";
      label += (label.empty() ? "" : " ") + (named ? v : k + "=" + v);
    }
    out.push_back(label);
  }
  return out;
}

// At most two reasons, then how many more: a reason per run would bury the table.
std::string join_some(const std::vector<std::string>& reasons) {
  if (reasons.size() <= 2) return join(reasons, "; ");
  return fmt::format("{}; {}; and {} more", reasons[0], reasons[1], reasons.size() - 2);
}

struct Outcome {
  Verdict verdict = Verdict::not_measured;
  model::CaseTally cases;
  std::string measured;
  std::vector<model::Evidence> evidence;
  std::string reason;
  std::optional<VerdictCause> cause;
};

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

// The check being aggregated, for its evidence kind; set by check_one for the duration
// of a check, as t_catalogue.
thread_local const Check* t_check = nullptr;
std::string evidence_kind(const Check& ch, const std::vector<model::Evidence>& evidence);

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
Outcome aggregate(std::vector<Case> cases, const std::string& noun, const std::vector<std::string>& notes,
                  const std::string& none_reason) {
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
  const bool on_measurement = t_check && evidence_kind(*t_check, o.evidence) == "measured";
  const bool mixed = n_fails && on_measurement && 3 * n_fails <= n_judged;
  o.verdict = n_fails && !mixed                                ? Verdict::fails
              : !n_fails && 3 * n_holds >= 2 * (n_holds + n_unsure) ? Verdict::holds
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

// ---- selecting runs -----------------------------------------------------------

std::string selector_text(const RunSelector& s) {
  std::string out = s.pair;
  out += "/" + (s.variants.empty() ? std::string("*") : join(s.variants, "|"));
  out += "/" + (s.impls.empty() ? std::string("*") : join(s.impls, "|"));
  if (s.backend) out += "/" + *s.backend;
  if (s.dtype) out += "/" + *s.dtype;
  if (!s.shape.empty()) out += " " + describe_dims(s.shape);
  return out;
}

struct Context {
  const Claim& claim;
  const model::Results& results;
};

std::vector<const Run*> select(const Context& ctx, const RunSelector& s) {
  std::vector<const Run*> out;
  for (const auto& r : ctx.results.runs)
    if (s.matches(r)) out.push_back(&r);
  return out;
}

// Why a selector matched nothing: the pair is absent, or only these runs are.
std::string no_match_reason(const Context& ctx, const RunSelector& s) {
  bool pair_present = false;
  for (const auto& r : ctx.results.runs) pair_present = pair_present || r.pair == s.pair;
  if (!pair_present) {
    std::string reason = fmt::format("results have no {} pair", s.pair);
    if (!ctx.claim.pending.empty()) reason += " (pending: " + ctx.claim.pending + ")";
    return reason;
  }
  return fmt::format("no run matches {}", selector_text(s));
}

// ---- bound ----------------------------------------------------------------------

Case bound_case(const Check& ch, const Run& run) {
  Case c;
  c.tokens = tokens_of(run);
  const std::optional<double> I = run.intensity.value;
  const std::optional<double> ridge = run.roofline.ridge;
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
  c.evidence.push_back(evidence(&run, "roofline.ridge", *ridge));
  std::string also;
  if (measured_bytes) {
    c.evidence.push_back(evidence(&run, "intensity.model", run.intensity.model));
    also = fmt::format("; model bytes give {}", num(run.intensity.model));
  }
  c.measured = fmt::format("I {} FLOP/B{} = {}x ridge {}{}", num(*I), measured_bytes ? " (measured bytes)" : "",
                           num(rel), num(*ridge), also);
  const double lo = 1 - ch.margin, hi = 1 + ch.margin;
  const bool memory = ch.expect == "memory";
  if (rel < lo)
    c.verdict = memory ? Verdict::holds : Verdict::fails;
  else if (rel > hi)
    c.verdict = memory ? Verdict::fails : Verdict::holds;
  else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("intensity within +/-{} of the ridge point", pct(ch.margin));
  }
  c.slack = std::abs(std::log(rel));
  return c;
}

Outcome check_bound(const Context& ctx) {
  const auto& ch = ctx.claim.check;
  std::vector<Case> cases;
  for (const auto* r : select(ctx, ch.run)) cases.push_back(bound_case(ch, *r));
  return aggregate(std::move(cases), "runs", {}, no_match_reason(ctx, ch.run));
}

// ---- pairing candidate and baseline runs (faster, ratio) -----------------------

struct RunPair {
  const Run* candidate;
  const Run* baseline;
};

// What must agree for a candidate and a baseline run to pair up: backend, dtype, the
// shape but for the ignored dims, and each free selector field.
using PairKey = std::tuple<std::string, std::string, std::string, std::string, model::Shape>;

PairKey pair_key(const Run& r, const std::vector<std::string>& ignore, bool free_variant, bool free_impl) {
  model::Shape shape = r.shape;
  for (const auto& d : ignore) shape.erase(d);
  return {r.backend, r.dtype, free_variant ? r.variant : "", free_impl ? r.impl : "", std::move(shape)};
}

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

// The speedup baseline time / candidate time of two runs with its interval and noise:
// the comparison's own numbers (stats::estimate_speedup, the same figures results.json's
// comparisons[] and the report show), widened when the check asks for a larger
// noise_floor than the default, and by the machine's drift between the two runs where
// both were probed (model::probed_drift: a shared VM's DRAM bandwidth can move by
// half between two runs, which neither run's repetitions show), on the side that the
// drift can explain (model::widen_for_drift).
struct SpeedupStats {
  double speedup = 0, low = 0, high = 0;
  double noise = std::numeric_limits<double>::infinity();  // infinite: no interval
  double p_value = 1;
  int repetitions = 0;  // the smaller side's
  double drift = 0;     // the machine's, between the two runs (0: not probed)
  int rounds = 0;       // > 0: from paired, interleaved rounds (Comparison::paired)
  int extra_rounds = 0;  // of which the re-measurement took (PairedRounds::extra_rounds)
  std::optional<double> floor;  // the pair's A/A noise floor (Results::noise_floors)
  bool has_interval() const { return std::isfinite(noise); }
  // Within ±floor: a difference this machine cannot tell from none.
  bool within_floor() const { return floor && has_interval() && low >= 1 / (1 + *floor) && high <= 1 + *floor; }
};

// The paired rounds of these two runs, either way round (inverted when the catalogue
// compares them the other way); nullopt without an interval.
std::optional<model::PairedRounds> paired_rounds_of(const model::Results& results, const Run& baseline,
                                                     const Run& candidate) {
  if (const auto* c = results.comparison(baseline.id, candidate.id); c && c->paired && c->paired->has_interval())
    return c->paired;
  if (const auto* c = results.comparison(candidate.id, baseline.id); c && c->paired && c->paired->has_interval())
    return model::PairedRounds{c->paired->rounds, 1 / c->paired->speedup, 1 / *c->paired->high, 1 / *c->paired->low,
                               c->paired->extra_rounds};
  return std::nullopt;
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
                      st.floor ? st.floor : std::optional(std::max(ch.noise_floor, 0.0))});
}

std::string interval_text(const SpeedupStats& p) {
  if (!p.has_interval()) return "no interval";
  if (p.rounds > 0)
    return fmt::format("95% {}\u2013{}, \u00b1{}, {} paired rounds{}{}", num(p.low), num(p.high), pct(p.noise), p.rounds,
                       p.extra_rounds > 0 ? fmt::format(" ({} re-measured)", p.extra_rounds) : "",
                       p.floor ? fmt::format(", floor \u00b1{}", pct(*p.floor)) : "");
  return fmt::format("95% {}\u2013{}, \u00b1{}{}", num(p.low), num(p.high), pct(p.noise),
                     p.drift > 0 ? fmt::format(", with the machine's drift of {} between the runs", pct(p.drift)) : "");
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
double run_spread(const Run& run) {
  if (run.time_s.samples.size() < 3) return std::sqrt(run.time_s.max / run.time_s.min) - 1;
  const stats::Interval i = stats::bootstrap_median_interval(run.time_s.samples);
  const double m = run.time_s.median;
  return std::max(i.high / m, m / i.low) - 1;
}

// ---- faster ---------------------------------------------------------------------

Case faster_verdict(const Check& ch, const SpeedupStats& st, const RunPair& p) {
  Case c;
  c.tokens = tokens_of(*p.candidate);
  const double tc = p.candidate->time_s.median, tb = p.baseline->time_s.median;
  const double s = st.speedup;
  c.evidence = {evidence(p.candidate, "time_s.median", tc), evidence(p.baseline, "time_s.median", tb),
                evidence(nullptr, "speedup", s), evidence(nullptr, "speedup_low", st.low),
                evidence(nullptr, "speedup_high", st.high), evidence(nullptr, "noise", st.noise),
                evidence(nullptr, "p_value", st.p_value)};
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
    // (a point-estimate hold flipped against an interval fail, 2026-12-03).
    if (st.low >= f && st.low > 1) {
      c.verdict = Verdict::holds;
    } else if (st.high < f) {
      c.verdict = Verdict::fails;
      c.measured += fmt::format(": {}, {} the \u2265 {} expected", numbers::ratio(s), s < 1 ? "slower, not faster, than" : "short of", num(f));
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
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("difference {} is beyond {} but within the interval (\u00b1{}) of it; would decide it: {}",
                           pct(d), pct(band), pct(st.noise), what_would_decide(st, 1.0, *p.baseline, *p.candidate));
  }
  c.slack = std::abs(d - band);
  return c;
}

Case faster_case(const Check& ch, const model::Results& results, const RunPair& p) {
  const SpeedupStats st = speedup_stats(ch, results, *p.baseline, *p.candidate);
  Case c = faster_verdict(ch, st, p);
  name_cause(c, ch, st, p);
  return c;
}

Outcome check_faster(const Context& ctx) {
  std::vector<std::string> notes;
  std::string none;
  const auto pairs = pair_runs(ctx, notes, none);
  std::vector<Case> cases;
  for (const auto& p : pairs) cases.push_back(faster_case(ctx.claim.check, ctx.results, p));
  return aggregate(std::move(cases), "run pairs", notes, none);
}

// ---- ratio ------------------------------------------------------------------------

Case ratio_case(const Check& ch, const model::Results& results, const RunPair& p) {
  Case c;
  c.tokens = tokens_of(*p.candidate);
  const std::string field = resolve_metric(ch.metric, {p.candidate, p.baseline});
  const auto a = number_at(*p.candidate, field);
  const auto b = number_at(*p.baseline, field);
  if (!a || !b) {
    c.reason = fmt::format("run {} has no {}", run_id(!a ? *p.candidate : *p.baseline), field);
    return c;
  }
  if (*b == 0) {
    c.reason = fmt::format("run {} has {} = 0", run_id(*p.baseline), field);
    return c;
  }
  const double r = *a / *b;
  const bool timed = is_timed(field);
  // A time ratio is the inverse of the comparison's speedup: the same interval, inverted.
  const SpeedupStats st = timed ? speedup_stats(ch, results, *p.baseline, *p.candidate) : SpeedupStats{};
  const double noise = timed ? st.noise : 0.0;
  c.evidence = {evidence(p.candidate, field, *a), evidence(p.baseline, field, *b), evidence(nullptr, "ratio", r)};
  if (timed) c.evidence.push_back(evidence(nullptr, "noise", noise));
  c.measured = fmt::format("{} ratio {} ({} / {}{})", metric_words(field), num(r), metric_value(field, *a),
                           metric_value(field, *b), timed ? ", \u00b1" + pct(noise) : "");
  if (timed && (!st.has_interval() || noise > ch.max_noise)) {
    c.verdict = Verdict::inconclusive;
    c.reason = (st.has_interval() ? too_noisy(noise, ch.max_noise) : std::string("too few repetitions for an interval")) +
               "; would decide it: " + what_would_decide(st, 1.0, *p.baseline, *p.candidate);
  } else if (ch.range.contains(r / (1 + noise)) && ch.range.contains(r * (1 + noise))) {
    // The whole interval in range, as `faster` judges (a point estimate in range with
    // its interval reaching out of it is inconclusive, not a hold).
    c.verdict = Verdict::holds;
  } else if ((ch.range.min && r * (1 + noise) < *ch.range.min) || (ch.range.max && r / (1 + noise) > *ch.range.max)) {
    c.verdict = Verdict::fails;
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("ratio {} is {} the range but its interval (\u00b1{}) crosses its edge; would decide it: {}",
                           num(r), ch.range.contains(r) ? "inside" : "outside", pct(noise),
                           what_would_decide(st, 1.0, *p.baseline, *p.candidate));
  }
  // Which way it missed, on the first screen beside the claim (issue #34 item 10): a
  // time ratio under its range means the candidate ran faster than expected.
  if (c.verdict != Verdict::holds && !ch.range.contains(r)) {
    const bool under = ch.range.min && r < *ch.range.min;
    // A ratio of times under its range: the candidate ran faster; of rates: slower.
    const bool time = field == "time" || field.rfind("time_s.", 0) == 0;
    const bool rate = field.rfind("achieved.", 0) == 0;
    const char* words = time   ? (under ? "faster than" : "slower than")
                        : rate ? (under ? "slower than" : "faster than")
                               : (under ? "below" : "above");
    const std::string range = ch.range.min && ch.range.max ? fmt::format("{}\u2013{}", num(*ch.range.min), num(*ch.range.max))
                              : ch.range.min              ? "\u2265 " + num(*ch.range.min)
                                                          : "\u2264 " + num(*ch.range.max);
    c.measured += fmt::format(": {} the {} expected", words, range);
  }
  double slack = 1e300;
  if (ch.range.min) slack = std::min(slack, std::abs(std::log(r / *ch.range.min)));
  if (ch.range.max) slack = std::min(slack, std::abs(std::log(r / *ch.range.max)));
  c.slack = slack;
  name_cause(c, ch, st, p);
  return c;
}

Outcome check_ratio(const Context& ctx) {
  std::vector<std::string> notes;
  std::string none;
  const auto pairs = pair_runs(ctx, notes, none);
  std::vector<Case> cases;
  for (const auto& p : pairs) cases.push_back(ratio_case(ctx.claim.check, ctx.results, p));
  return aggregate(std::move(cases), "run pairs", notes, none);
}

// ---- share -------------------------------------------------------------------------

Case share_case(const Check& ch, const Run& run) {
  Case c;
  c.tokens = tokens_of(run);
  if (!run.breakdown) {
    c.reason = fmt::format("run {} has no breakdown by operator class", run_id(run));
    return c;
  }
  const model::ClassShare* cls = nullptr;
  std::vector<std::string> present;
  for (const auto& k : run.breakdown->classes) {
    present.push_back(k.op_class);
    if (k.op_class == ch.op_class) cls = &k;
  }
  if (!cls) {
    c.reason = fmt::format("run {} has no class '{}' in its breakdown (has: {})", run_id(run), ch.op_class,
                           join(present, ", "));
    return c;
  }
  const std::optional<double> fs = cls->flop_share;
  const std::optional<double> ts = cls->time_share;
  const std::string prefix = "breakdown." + ch.op_class + ".";
  std::vector<std::string> parts, missing;
  std::vector<bool> ok;
  double slack = 1e300;
  auto judge = [&](const Range& range, std::optional<double> v, const std::string& what) {
    if (!range.min && !range.max) return;
    if (!v) {
      missing.push_back(what);
      return;
    }
    ok.push_back(range.contains(*v));
    if (range.min && *v > 0) slack = std::min(slack, std::abs(std::log(*v / *range.min)));
    if (range.max && *v > 0) slack = std::min(slack, std::abs(std::log(*v / *range.max)));
  };
  if (fs) {
    c.evidence.push_back(evidence(&run, prefix + "flop_share", *fs));
    parts.push_back("FLOP share " + pct(*fs));
  }
  if (ts) {
    c.evidence.push_back(evidence(&run, prefix + "time_share", *ts));
    parts.push_back("time share " + pct(*ts));
  }
  std::optional<double> over;
  if (fs && ts && *fs > 0) {
    over = *ts / *fs;
    c.evidence.push_back(evidence(&run, prefix + "time_over_flop_share", *over));
    parts.push_back(fmt::format("time/FLOP share {}x", num(*over)));
  } else if (fs && ts && *fs == 0 && *ts > 0) {
    over = std::numeric_limits<double>::infinity();
    parts.push_back("time/FLOP share infinite");
  }
  judge(ch.flop_share, fs, "flop_share");
  judge(ch.time_share, ts, "time_share");
  judge(ch.time_over_flop_share, over, "time_over_flop_share");
  c.measured = fmt::format("{}: {}", ch.op_class, join(parts, ", "));
  if (!missing.empty()) {
    c.verdict = Verdict::not_measured;
    c.reason = fmt::format("run {} has no {} for class '{}'", run_id(run), join(missing, ", "), ch.op_class);
    return c;
  }
  c.verdict = std::all_of(ok.begin(), ok.end(), [](bool b) { return b; }) ? Verdict::holds : Verdict::fails;
  c.slack = slack;
  return c;
}

Outcome check_share(const Context& ctx) {
  const auto& ch = ctx.claim.check;
  std::vector<Case> cases;
  for (const auto* r : select(ctx, ch.run)) cases.push_back(share_case(ch, *r));
  return aggregate(std::move(cases), "runs", {}, no_match_reason(ctx, ch.run));
}

// ---- scaling -------------------------------------------------------------------------

Outcome check_scaling(const Context& ctx) {
  const auto& ch = ctx.claim.check;
  const auto runs = select(ctx, ch.run);
  // Series: runs alike in everything but the dimension (and the `across` fields).
  std::vector<std::string> skip = ch.across;
  skip.push_back(ch.dimension);
  skip.push_back("id");
  std::map<std::string, std::vector<const Run*>> series;
  std::vector<std::string> series_order;
  int lacking = 0;
  for (const auto* r : runs) {
    if (const auto x = number_at(*r, "shape." + ch.dimension); !x || *x <= 0) {
      ++lacking;
      continue;
    }
    std::string key;
    for (const auto& [k, v] : tokens_of(*r, skip)) key += k + "=" + v + ";";
    if (!series.count(key)) series_order.push_back(key);
    series[key].push_back(r);
  }
  std::vector<std::string> notes;
  if (lacking) notes.push_back(fmt::format("{} run{} lack dimension {}", lacking, lacking == 1 ? "" : "s",
                                           ch.dimension));
  std::vector<Case> cases;
  for (const auto& key : series_order) {
    auto& members = series[key];
    std::sort(members.begin(), members.end(), [&](const Run* a, const Run* b) {
      return *number_at(*a, "shape." + ch.dimension) < *number_at(*b, "shape." + ch.dimension);
    });
    Case c;
    c.tokens = tokens_of(*members.front(), skip);
    const std::string field = resolve_metric(ch.metric, members);
    std::vector<double> xs, ys;
    std::set<double> distinct;
    double max_spread = 0;  // the widest 95% interval of a run's median, relative
    std::string missing;
    for (const auto* r : members) {
      const double x = *number_at(*r, "shape." + ch.dimension);
      const auto y = number_at(*r, field);
      if (!y || *y <= 0) {
        missing = run_id(*r);
        continue;
      }
      xs.push_back(std::log(x));
      ys.push_back(std::log(*y));
      distinct.insert(x);
      max_spread = std::max(max_spread, run_spread(*r));
      c.evidence.push_back(evidence(r, field, *y));
    }
    std::vector<std::string> values;
    for (double x : distinct) values.push_back(num(x));
    if (static_cast<int>(distinct.size()) < ch.min_points) {
      c.verdict = distinct.empty() ? Verdict::not_measured : Verdict::inconclusive;
      c.too_few_points = !distinct.empty();
      c.reason = distinct.empty()
                     ? fmt::format("runs have no positive {}{}", field, missing.empty() ? "" : " (" + missing + ")")
                     : fmt::format("only {} value{} of {} ({}); scaling needs at least {}", distinct.size(),
                                   distinct.size() == 1 ? "" : "s", ch.dimension, join(values, ", "), ch.min_points);
      c.measured = fmt::format("{} point{} at {} {}", distinct.size(), distinct.size() == 1 ? "" : "s", ch.dimension,
                               join(values, ", "));
      cases.push_back(std::move(c));
      continue;
    }
    const double n = static_cast<double>(xs.size());
    double mx = 0, my = 0;
    for (size_t i = 0; i < xs.size(); ++i) mx += xs[i] / n, my += ys[i] / n;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < xs.size(); ++i) sxx += (xs[i] - mx) * (xs[i] - mx), sxy += (xs[i] - mx) * (ys[i] - my);
    const double slope = sxy / sxx;
    double sse = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double e = ys[i] - (my + slope * (xs[i] - mx));
      sse += e * e;
    }
    const double se = xs.size() > 2 ? std::sqrt(sse / (n - 2) / sxx) : 0.0;
    const double span = std::log(*distinct.rbegin() / *distinct.begin());
    const bool timed = is_timed(field);
    const double noise = timed ? std::max(ch.noise_floor, max_spread) : 0.0;
    const double slope_noise = timed ? std::log1p(noise) * 2 / span : 0.0;  // one end up, the other down
    const double off = std::abs(slope - ch.exponent);
    c.evidence.push_back(evidence(nullptr, "slope", slope));
    c.evidence.push_back(evidence(nullptr, "slope_stderr", se));
    c.measured = fmt::format("{} ~ {}^{} over {} {} ({} points)", metric_words(field), ch.dimension, num(slope),
                             ch.dimension, join(values, ", "), xs.size());
    if (timed && noise > ch.max_noise) {
      c.verdict = Verdict::inconclusive;
      c.reason = too_noisy(noise, ch.max_noise);
    } else if (off <= ch.tolerance) {
      c.verdict = Verdict::holds;
    } else if (off > ch.tolerance + 2 * se + slope_noise) {
      c.verdict = Verdict::fails;
    } else {
      c.verdict = Verdict::inconclusive;
      c.reason = fmt::format("slope {} is outside {} +/- {} but within its uncertainty (+/-{})", num(slope),
                             num(ch.exponent), num(ch.tolerance), num(2 * se + slope_noise));
    }
    c.slack = std::abs(off - ch.tolerance);
    cases.push_back(std::move(c));
  }
  // Series too short to fit are set aside when at least one series can be fitted;
  // when none can, they make the claim inconclusive (the results lack the sweep).
  const auto short_series = [](const Case& c) { return c.too_few_points; };
  const auto fitted = std::count_if(cases.begin(), cases.end(), [&](const Case& c) {
    return c.verdict != Verdict::not_measured && !short_series(c);
  });
  if (fitted == 0 && !cases.empty() && std::all_of(cases.begin(), cases.end(), short_series)) {
    // No sweep of the dimension at all: one verdict, not one per series.
    std::set<double> values;
    for (const auto* r : runs)
      if (auto x = number_at(*r, "shape." + ch.dimension)) values.insert(*x);
    std::vector<std::string> shown;
    for (double x : values) shown.push_back(num(x));
    Case c;
    c.verdict = Verdict::inconclusive;
    c.measured = fmt::format("{} series; {} {} in the results", cases.size(), ch.dimension, join(shown, ", "));
    c.reason = fmt::format("no series has {} values of {} to fit (the results have {} {})", ch.min_points,
                           ch.dimension, values.size() == 1 ? "only" : "too few:", join(shown, ", "));
    for (const auto& s : cases)
      for (const auto& e : s.evidence) c.evidence.push_back(e);
    cases = {std::move(c)};
  } else if (fitted > 0) {
    const auto n_short = std::count_if(cases.begin(), cases.end(), short_series);
    if (n_short)
      notes.push_back(fmt::format("{} series with fewer than {} values of {} set aside", n_short, ch.min_points,
                                  ch.dimension));
    cases.erase(std::remove_if(cases.begin(), cases.end(), short_series), cases.end());
  }
  return aggregate(std::move(cases), "series", notes, no_match_reason(ctx, ch.run));
}

// ---- bound along a dimension: where the runs turn compute-bound ----------------------
//
// docs/claims.md#bound-crossing. Predicted: a series' flops.total and bytes.model are
// affine in the dimension x (an attention layer's weights are read once per decode step
// whatever the batch; its FLOPs and KV-cache bytes grow with it), fitted by least squares
// over the series, so the cost model's intensity I(x) = (f0 + f1·x) / (m0 + m1·x) reaches
// the ridge R at x* = (R·m0 − f0) / (f1 − R·m1), and never when f1/m1 <= R. Measured: the
// runs' achieved FLOP/s A against I, fitted by a two-piece roofline
// ln A = min(ln P, ln B + ln I) (rising with the intensity at B bytes/s, then level at P
// FLOP/s); its knee P/B is the intensity at which these runs turn compute-bound, and the
// x where I(x) = P/B the measured crossing.

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Affine {
  double a = 0, b = 0;  // y = a + b·x
};

Affine fit_affine(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
  Affine f;
  f.b = sxx > 0 ? sxy / sxx : 0;
  f.a = my - f.b * mx;
  return f;
}

// The cost model's intensity along the dimension.
struct IntensityCurve {
  Affine flops, bytes;
  double limit() const { return bytes.b > 0 ? flops.b / bytes.b : kInf; }  // as x grows
  // The x at which the intensity equals `I`: +inf when it never gets there (I >= the
  // limit), zero or below when it is above I already as x -> 0.
  double where(double I) const {
    const double den = flops.b - I * bytes.b;
    if (den <= 0) return kInf;
    return (I * bytes.a - flops.a) / den;
  }
};

// Two-piece roofline through (I, A) in log space: runs [0, split) on the rising line
// A = bandwidth·I, runs [split, n) on the level A = plateau; the split with the least
// squared log error.
struct Knee {
  size_t split = 1;
  double bandwidth = 0, plateau = 0;
  double intensity() const { return plateau / bandwidth; }
};

Knee fit_knee(const std::vector<double>& I, const std::vector<double>& A) {
  const size_t n = I.size();
  Knee best;
  double best_sse = kInf;
  for (size_t split = 1; split < n; ++split) {
    double lb = 0, lp = 0;
    for (size_t i = 0; i < split; ++i) lb += (std::log(A[i]) - std::log(I[i])) / static_cast<double>(split);
    for (size_t i = split; i < n; ++i) lp += std::log(A[i]) / static_cast<double>(n - split);
    double sse = 0;
    for (size_t i = 0; i < n; ++i) {
      const double e = std::log(A[i]) - std::min(lp, lb + std::log(I[i]));
      sse += e * e;
    }
    if (sse < best_sse) best_sse = sse, best = {split, std::exp(lb), std::exp(lp)};
  }
  return best;
}

// The smallest power of two at or above v (runs worth asking for).
double pow2_at_least(double v) {
  double p = 1;
  while (p < v && p < 1e15) p *= 2;
  return p;
}

// A value of a shape dimension as written ("64"), else three significant digits.
std::string dim_num(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? fmt::format("{:.0f}", v) : num(v);
}

// A factor as the claim writes it: "2", "1.5".
std::string factor_num(double f) { return fmt::format("{:g}", f); }

// One series (runs alike but for the dimension), sorted by the dimension.
Case crossing_case(const Check& ch, const std::vector<const Run*>& members) {
  const std::string& dim = ch.crossing;
  const double F = ch.factor.value_or(2.0);
  Case c;
  c.tokens = tokens_of(*members.front(), {dim});
  std::vector<double> x, I, A, flops, bytes;
  double noise = ch.noise_floor, ridge = 0;
  for (const auto* r : members) {
    if (r->flops.total <= 0 || r->bytes.model <= 0 || r->achieved.flop_per_s <= 0 || r->time_s.median <= 0) {
      c.reason = fmt::format("run {} has no positive FLOPs, model bytes or time", run_id(*r));
      return c;
    }
    if (!r->roofline.ridge || *r->roofline.ridge <= 0) {
      c.reason = fmt::format("run {} has no ridge point (ceilings not measured)", run_id(*r));
      return c;
    }
    if (ridge == 0) ridge = *r->roofline.ridge;
    x.push_back(static_cast<double>(r->shape.at(dim)));
    flops.push_back(r->flops.total);
    bytes.push_back(r->bytes.model);
    I.push_back(r->flops.total / r->bytes.model);
    A.push_back(r->achieved.flop_per_s);
    noise = std::max(noise, run_spread(*r));
    c.evidence.push_back(evidence(r, "intensity.model", I.back()));
    c.evidence.push_back(evidence(r, "achieved.flop_per_s", A.back()));
  }
  c.evidence.push_back(evidence(members.front(), "roofline.ridge", ridge));
  std::vector<std::string> values;
  for (double v : x) values.push_back(dim_num(v));
  const size_t n = x.size();
  if (static_cast<int>(n) < ch.min_points) {
    c.verdict = Verdict::inconclusive;
    c.too_few_points = true;
    c.measured = fmt::format("{} point{} at {} {}", n, n == 1 ? "" : "s", dim, join(values, ", "));
    c.reason = fmt::format("only {} value{} of {} ({}); a crossing needs at least {}", n, n == 1 ? "" : "s", dim,
                           join(values, ", "), ch.min_points);
    return c;
  }
  for (size_t i = 0; i + 1 < n; ++i)
    if (x[i + 1] == x[i]) {
      c.reason = fmt::format("runs {} and {} are alike at {} {}: name what tells them apart in the selector",
                             run_id(*members[i]), run_id(*members[i + 1]), dim, dim_num(x[i]));
      return c;
    }
  for (size_t i = 0; i + 1 < n; ++i)
    if (I[i + 1] <= I[i]) {
      c.reason = fmt::format("the model intensity does not rise with {} ({} FLOP/B at {}, {} at {}): there is no "
                             "turn to compute-bound along it",
                             dim, num(I[i]), dim_num(x[i]), num(I[i + 1]), dim_num(x[i + 1]));
      return c;
    }

  // predicted: where the cost model's intensity reaches the ridge
  const IntensityCurve curve{fit_affine(x, flops), fit_affine(x, bytes)};
  const double predicted = curve.where(ridge);
  const bool predicts = std::isfinite(predicted) && predicted > 0;
  c.evidence.push_back(evidence(nullptr, "crossing_predicted", predicts ? predicted : kInf));
  std::string prediction =
      predicts ? fmt::format("predicted {} {} (model intensity reaches the ridge {} FLOP/B)", dim, num(predicted),
                             num(ridge))
      : std::isfinite(predicted)
          ? fmt::format("predicted compute-bound at every {} (model intensity above the ridge {} FLOP/B)", dim,
                        num(ridge))
          : fmt::format("predicted never (model intensity tends to {} FLOP/B, below the ridge {})",
                        num(curve.limit()), num(ridge));

  // measured: the knee of the runs' own roofline; it decides only when it lies inside
  // the runs, beyond their noise, with runs on both sides
  c.evidence.push_back(evidence(nullptr, "noise", noise));
  const Knee knee = fit_knee(I, A);
  const double K = knee.intensity();
  const double measured = curve.where(K);
  c.evidence.push_back(evidence(nullptr, "knee_intensity", K));
  c.evidence.push_back(evidence(nullptr, "plateau_flop_per_s", knee.plateau));
  c.evidence.push_back(evidence(nullptr, "rising_byte_per_s", knee.bandwidth));
  c.evidence.push_back(evidence(nullptr, "crossing_measured", std::isfinite(measured) ? measured : kInf));
  const std::string knee_text =
      fmt::format("knee {} FLOP/B (rising at {} x I to {} {}, level at {} from {}) vs ridge {}", num(K),
                  si(knee.bandwidth, "B/s"), dim, dim_num(x[knee.split - 1]), si(knee.plateau, "FLOP/s"),
                  dim_num(x[knee.split]), num(ridge));
  if (noise > ch.max_noise) {
    c.verdict = Verdict::inconclusive;
    c.measured = prediction;
    c.reason = too_noisy(noise, ch.max_noise) + "; would decide it: a quieter machine or more repetitions";
    return c;
  }
  // The knee is a quotient of two fitted levels, each as noisy as the runs' medians.
  const double widen = (1 + noise) * (1 + noise);
  if (K * widen >= I.back() || !std::isfinite(measured)) {
    // the largest run is not below the rising line by more than the noise: still memory-bound
    c.verdict = Verdict::inconclusive;
    c.measured = fmt::format("{}; achieved FLOP/s still rises with the intensity at the largest {} ({}: {} FLOP/B, "
                             "{})",
                             prediction, dim, dim_num(x[n - 1]), num(I[n - 1]), si(A[n - 1], "FLOP/s"));
    c.reason =
        predicts ? fmt::format("the runs do not bracket the crossing: still memory-bound at the largest {} ({}); "
                               "would decide it: runs at {} up to {} (past {}x the predicted {})",
                               dim, dim_num(x[n - 1]), dim,
                               dim_num(pow2_at_least(std::max(2 * x[n - 1], 2 * F * predicted))), factor_num(F),
                               num(predicted))
                 : fmt::format("the runs do not bracket a crossing, and the model predicts none ({}): nothing "
                               "to compare",
                               std::isfinite(predicted) ? "its intensity is above the ridge at every " + dim
                                                        : "its intensity never reaches the ridge");
    return c;
  }
  if (K <= I.front() * widen) {
    c.verdict = Verdict::inconclusive;
    c.measured = fmt::format("{}; achieved FLOP/s level already from the smallest {} ({}: {} FLOP/B, {})", prediction,
                             dim, dim_num(x[0]), num(I[0]), si(A[0], "FLOP/s"));
    c.reason = fmt::format("the runs do not bracket the crossing: compute-bound from the smallest {} ({}) on; "
                           "would decide it: runs at {} below {}",
                           dim, dim_num(x[0]), dim, dim_num(x[0]));
    return c;
  }
  if (!predicts) {
    c.verdict = Verdict::fails;
    c.measured = fmt::format("measured {} {}, {}; {}", dim, num(measured), prediction, knee_text);
    c.slack = kInf;
    return c;
  }
  const double ratio = measured / predicted;
  c.evidence.push_back(evidence(nullptr, "crossing_ratio", ratio));
  c.measured = fmt::format("{} {} measured vs {} predicted (x{}): {}", dim, num(measured), num(predicted), num(ratio),
                           knee_text);
  const double low = std::max(0.0, curve.where(K / widen)), high = curve.where(K * widen);
  if (ratio >= 1 / F && ratio <= F) {
    c.verdict = Verdict::holds;
  } else if (high < predicted / F || low > predicted * F) {
    c.verdict = Verdict::fails;
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("the measured crossing is {}x the predicted one, outside {}x, but the runs' noise "
                           "(\u00b1{}) allows {} {} to {}; would decide it: a quieter machine or more repetitions "
                           "(`--repetitions 20`)",
                           num(ratio), factor_num(F), pct(noise), dim, num(low), num(high));
  }
  c.slack = std::abs(std::abs(std::log(ratio)) - std::log(F));
  return c;
}

Outcome check_crossing(const Context& ctx) {
  const auto& ch = ctx.claim.check;
  const auto runs = select(ctx, ch.run);
  // Series: runs alike in everything but the dimension.
  const std::vector<std::string> skip = {ch.crossing};
  std::map<std::string, std::vector<const Run*>> series;
  std::vector<std::string> order;
  int lacking = 0;
  for (const auto* r : runs) {
    if (const auto it = r->shape.find(ch.crossing); it == r->shape.end() || it->second <= 0) {
      ++lacking;
      continue;
    }
    std::string key;
    for (const auto& [k, v] : tokens_of(*r, skip)) key += k + "=" + v + ";";
    if (!series.count(key)) order.push_back(key);
    series[key].push_back(r);
  }
  std::vector<std::string> notes;
  if (lacking)
    notes.push_back(fmt::format("{} run{} lack dimension {}", lacking, lacking == 1 ? "" : "s", ch.crossing));
  std::vector<Case> cases;
  for (const auto& key : order) {
    auto& members = series[key];
    std::sort(members.begin(), members.end(),
              [&](const Run* a, const Run* b) { return a->shape.at(ch.crossing) < b->shape.at(ch.crossing); });
    cases.push_back(crossing_case(ch, members));
  }
  // Series too short to show a crossing are set aside when another can; when none can,
  // the claim is inconclusive (the results lack the sweep).
  const auto short_series = [](const Case& c) { return c.too_few_points; };
  const auto judged = std::count_if(cases.begin(), cases.end(), [&](const Case& c) {
    return c.verdict != Verdict::not_measured && !short_series(c);
  });
  if (judged > 0) {
    if (const auto n_short = std::count_if(cases.begin(), cases.end(), short_series))
      notes.push_back(fmt::format("{} series with fewer than {} values of {} set aside", n_short, ch.min_points,
                                  ch.crossing));
    cases.erase(std::remove_if(cases.begin(), cases.end(), short_series), cases.end());
  }
  return aggregate(std::move(cases), "series", notes, no_match_reason(ctx, ch.run));
}

// ---- expected, in words ------------------------------------------------------------

std::string expected_text(const Check& ch) {
  switch (ch.kind) {
    case CheckKind::bound:
      if (!ch.crossing.empty())
        return fmt::format("turns compute-bound along {}: measured crossing within {}x of where the model "
                           "intensity reaches the ridge",
                           ch.crossing, factor_num(ch.factor.value_or(2.0)));
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
    case CheckKind::share: {
      std::vector<std::string> parts;
      auto as_pct = [](const Range& r) {
        if (r.min && r.max) return fmt::format("in [{}, {}]", pct(*r.min), pct(*r.max));
        if (r.min) return ">= " + pct(*r.min);
        return "<= " + pct(*r.max);
      };
      if (ch.flop_share.min || ch.flop_share.max) parts.push_back("FLOP share " + as_pct(ch.flop_share));
      if (ch.time_share.min || ch.time_share.max) parts.push_back("time share " + as_pct(ch.time_share));
      if (ch.time_over_flop_share.min || ch.time_over_flop_share.max)
        parts.push_back("time/FLOP share " + ch.time_over_flop_share.describe());
      return fmt::format("{}: {}", ch.op_class, join(parts, ", "));
    }
    case CheckKind::scaling:
      return fmt::format("{} ~ {}^{} +/- {}", ch.metric, ch.dimension, num(ch.exponent), num(ch.tolerance));
  }
  return "";
}

// "measured" when the verdict rests on this machine's times or hardware counters,
// "model" when it follows from the cost model's FLOPs and bytes (docs/claims.md#evidence).
std::string evidence_kind(const Check& ch, const std::vector<model::Evidence>& evidence) {
  switch (ch.kind) {
    case CheckKind::faster: return "measured";
    case CheckKind::share:
      return ch.time_share.min || ch.time_share.max || ch.time_over_flop_share.min || ch.time_over_flop_share.max
                 ? "measured"
                 : "model";
    case CheckKind::bound:
      if (!ch.crossing.empty()) return "measured";  // the measured crossing is read from the runs' times
      [[fallthrough]];
    case CheckKind::ratio:
    case CheckKind::scaling:
      if (is_timed(ch.metric)) return "measured";
      for (const auto& e : evidence)
        if (e.run && (is_timed(e.metric) || e.metric.find("measured") != std::string::npos)) return "measured";
      return "model";
  }
  return "measured";
}

model::ClaimVerdict check_one(const Claim& claim, const model::Results& results) {
  const Context ctx{claim, results};
  struct CheckScope {
    explicit CheckScope(const Check* ch) { t_check = ch; }
    ~CheckScope() { t_check = nullptr; }
  } scope(&claim.check);
  Outcome o;
  switch (claim.check.kind) {
    case CheckKind::bound: o = claim.check.crossing.empty() ? check_bound(ctx) : check_crossing(ctx); break;
    case CheckKind::faster: o = check_faster(ctx); break;
    case CheckKind::ratio: o = check_ratio(ctx); break;
    case CheckKind::share: o = check_share(ctx); break;
    case CheckKind::scaling: o = check_scaling(ctx); break;
  }
  if (o.measured.empty()) o.measured = "-";
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
  if (v.verdict == Verdict::fails || v.verdict == Verdict::inconclusive) {
    // Kinds whose cases name no cause (bound, share, scaling): the runs in the evidence.
    std::optional<VerdictCause> cause = o.cause;
    if (v.evidence_kind == "model") {
      // The cost model's FLOPs and bytes decided it: no kernel, machine or noise could.
      cause = VerdictCause{Cause::architecture, "the cost model's FLOPs and bytes decide it"};
    } else if (!cause) {
      CauseInputs in{v.verdict, {}, std::nullopt, std::nullopt};
      std::set<std::string> seen;
      for (const auto& e : v.evidence)
        if (e.run && seen.insert(*e.run).second)
          if (const Run* r = results.run(*e.run)) in.sides.emplace_back("run", r);
      cause = cause_of(in);
    }
    v.cause = to_string(cause->cause);
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

std::string RunSelector::describe() const { return selector_text(*this); }

std::string Range::describe(int digits) const {
  auto f = [&](double v) { return fmt::format("{:.{}g}", v, digits); };
  if (min && max) return fmt::format("in [{}, {}]", f(*min), f(*max));
  if (min) return ">= " + f(*min);
  if (max) return "<= " + f(*max);
  return "any";
}

std::vector<model::ClaimVerdict> check_claims(const std::vector<Claim>& claims, const model::Results& results) {
  struct CatalogueScope {
    explicit CatalogueScope(const model::Catalogue* c) { t_catalogue = c; }
    ~CatalogueScope() { t_catalogue = nullptr; }
  } scope(&results.catalogue);
  std::vector<model::ClaimVerdict> out;
  out.reserve(claims.size());
  for (const auto& c : claims) out.push_back(check_one(c, results));
  mark_untrustworthy(out, identity_controls(results));
  mark_roof_faults(out, results);
  return out;
}


}  // namespace lmroof
