// Checking claims against a results.json: one verdict per claim with the numbers
// behind it. Every rule applied here is written out in docs/claims.md; keep the two
// in step.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "analysis/claims/claims.h"
#include "analysis/claims/claims_internal.h"
#include "registry.h"

namespace lmroof {

using json = nlohmann::json;

namespace claims_detail {

namespace {
const std::vector<std::string> kAliases = {"time", "flops", "bytes", "intensity"};
const std::vector<std::string> kRunObjects = {"time_s", "flops", "bytes", "intensity", "achieved", "roofline"};
}  // namespace

bool valid_metric(const std::string& metric, std::string& problem) {
  if (std::find(kAliases.begin(), kAliases.end(), metric) != kAliases.end()) return true;
  const auto dot = metric.find('.');
  const auto head = metric.substr(0, dot);
  if (dot != std::string::npos && dot + 1 < metric.size() &&
      std::find(kRunObjects.begin(), kRunObjects.end(), head) != kRunObjects.end())
    return true;
  problem = fmt::format(
      "unknown metric '{}' (expected time, flops, bytes, intensity, or a field of a run such as "
      "bytes.model, flops.matrix, time_s.min, achieved.byte_per_s)",
      metric);
  return false;
}

}  // namespace claims_detail

namespace {

using claims_detail::join;

enum class Verdict { holds, fails, inconclusive, not_measured };

const char* name(Verdict v) {
  switch (v) {
    case Verdict::holds: return "holds";
    case Verdict::fails: return "fails";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::not_measured: return "not measured";
  }
  return "?";
}

// ---- reading runs -------------------------------------------------------------

const json* at(const json& obj, std::string_view dotted) {
  const json* cur = &obj;
  while (!dotted.empty()) {
    const auto dot = dotted.find('.');
    const auto key = std::string(dotted.substr(0, dot));
    if (!cur->is_object()) return nullptr;
    const auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    dotted = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot + 1);
  }
  return cur;
}

std::optional<double> number_at(const json& obj, std::string_view dotted) {
  const json* j = at(obj, dotted);
  if (!j || !j->is_number()) return std::nullopt;
  const double v = j->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string str_at(const json& obj, std::string_view dotted) {
  const json* j = at(obj, dotted);
  return j && j->is_string() ? j->get<std::string>() : std::string();
}

std::string run_id(const json& run) { return str_at(run, "id"); }

// Relative spread of a run's time: time_s.cv, else the samples' stdev / mean.
double time_cv(const json& run) {
  if (auto cv = number_at(run, "time_s.cv")) return std::abs(*cv);
  const json* samples = at(run, "time_s.samples");
  if (!samples || !samples->is_array() || samples->size() < 2) return 0;
  double sum = 0, sq = 0;
  int n = 0;
  for (const auto& s : *samples)
    if (s.is_number()) {
      sum += s.get<double>();
      sq += s.get<double>() * s.get<double>();
      ++n;
    }
  if (n < 2 || sum <= 0) return 0;
  const double mean = sum / n;
  return std::sqrt(std::max(0.0, (sq - n * mean * mean) / (n - 1))) / mean;
}

bool is_timed(const std::string& metric) {
  return metric == "time" || metric.rfind("time_s.", 0) == 0 || metric.rfind("achieved.", 0) == 0;
}

// The field a metric reads for a set of runs that are compared with each other:
// bytes / intensity use measured bytes only when every run has them.
std::string resolve_metric(const std::string& metric, const std::vector<const json*>& runs) {
  if (metric == "time") return "time_s.median";
  if (metric == "flops") return "flops.total";
  if (metric == "bytes" || metric == "intensity") {
    bool all_measured = !runs.empty();
    for (const auto* r : runs) all_measured = all_measured && number_at(*r, "bytes.measured").has_value();
    if (metric == "bytes") return all_measured ? "bytes.measured" : "bytes.model";
    return all_measured ? "intensity.measured" : "intensity.model";
  }
  return metric;
}

// ---- formatting ---------------------------------------------------------------

std::string num(double v) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : "nan";
  const double a = std::abs(v);
  if (a >= 1000 && a < 1e6) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

std::string pct(double fraction) {
  const double p = fraction * 100;
  if (p != 0 && std::abs(p) < 0.1) return fmt::format("{:.2f}%", p);
  if (std::abs(p) >= 1000) return fmt::format("{:.0f}%", p);
  return fmt::format("{:.3g}%", p);
}

std::string si(double v, const char* unit) {
  static const std::pair<double, const char*> prefixes[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"},
                                                            {1, ""},     {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}};
  const double a = std::abs(v);
  for (const auto& [scale, p] : prefixes)
    if (a >= scale) return fmt::format("{:.3g} {}{}", v / scale, p, unit);
  return fmt::format("{:.3g} {}", v, unit);
}

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

json evidence(const json* run, const std::string& metric, double value) {
  json e = {{"run", run ? json(run_id(*run)) : json(nullptr)}, {"metric", metric}, {"value", nullptr}};
  if (std::isfinite(value)) e["value"] = value;
  return e;
}

// ---- one case: a run, a pair of runs or a series, with its own verdict --------

struct Case {
  Verdict verdict = Verdict::not_measured;
  std::vector<std::pair<std::string, std::string>> tokens;  // what identifies it, for labels
  std::string measured;
  json evidence = json::array();
  std::string reason;
  double slack = 0;  // how far from the threshold (relative); the smallest is the closest call
  bool too_few_points = false;  // scaling: a series too short to fit
};

std::vector<std::pair<std::string, std::string>> tokens_of(const json& run, const std::vector<std::string>& skip = {}) {
  std::vector<std::pair<std::string, std::string>> t;
  for (const char* key : {"pair", "variant", "impl", "backend", "dtype"})
    if (std::find(skip.begin(), skip.end(), key) == skip.end()) t.emplace_back(key, str_at(run, key));
  if (const json* shape = at(run, "shape"); shape && shape->is_object())
    for (const auto& [dim, v] : shape->items())
      if (std::find(skip.begin(), skip.end(), dim) == skip.end()) t.emplace_back(dim, v.dump());
  return t;
}

// Labels cases by what differs between them: "tokens=8192 d_model=4096".
std::vector<std::string> labels(const std::vector<Case>& cases) {
  std::set<std::string> varying;
  for (const auto& c : cases)
    for (const auto& [k, v] : c.tokens)
      for (const auto& o : cases) {
        auto it = std::find_if(o.tokens.begin(), o.tokens.end(), [&](const auto& t) { return t.first == k; });
        if (it == o.tokens.end() || it->second != v) varying.insert(k);
      }
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
  std::string measured;
  json evidence = json::array();
  std::string reason;
};

// All cases must hold for the claim to hold; any failing case fails it.
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
  o.verdict = counts[static_cast<int>(Verdict::fails)]          ? Verdict::fails
              : counts[static_cast<int>(Verdict::inconclusive)] ? Verdict::inconclusive
                                                                : Verdict::holds;
  const auto names = labels(measured);
  for (const auto& c : measured)
    for (const auto& e : c.evidence) o.evidence.push_back(e);

  if (measured.size() == 1) {
    o.measured = measured[0].measured;
  } else if (measured.size() <= 4) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < measured.size(); ++i)
      parts.push_back(fmt::format("{}: {}{}", names[i], measured[i].measured,
                                  measured[i].verdict == o.verdict || o.verdict == Verdict::holds
                                      ? ""
                                      : fmt::format(" ({})", name(measured[i].verdict))));
    o.measured = join(parts, "; ");
  } else {
    // Many cases: a tally and the one that decides (or the closest call).
    size_t pick = 0;
    for (size_t i = 0; i < measured.size(); ++i) {
      const auto& c = measured[i];
      if (o.verdict != Verdict::holds) {
        if (c.verdict == o.verdict) {
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
                             o.verdict == Verdict::holds ? "closest" : o.verdict == Verdict::fails ? "failing" : "unsure",
                             names[pick], measured[pick].measured);
  }
  if (!note.empty()) o.measured += " (" + note + ")";

  if (o.verdict == Verdict::inconclusive) {
    std::vector<std::string> reasons;
    for (size_t i = 0; i < measured.size(); ++i)
      if (measured[i].verdict == Verdict::inconclusive) {
        const auto r = measured.size() > 1 ? names[i] + ": " + measured[i].reason : measured[i].reason;
        if (std::find(reasons.begin(), reasons.end(), r) == reasons.end()) reasons.push_back(r);
      }
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
  const json& runs;
};

std::vector<const json*> select(const Context& ctx, const RunSelector& s) {
  std::vector<const json*> out;
  for (const auto& r : ctx.runs)
    if (s.matches(r)) out.push_back(&r);
  return out;
}

// Why a selector matched nothing: the pair is absent, or only these runs are.
std::string no_match_reason(const Context& ctx, const RunSelector& s) {
  bool pair_present = false;
  for (const auto& r : ctx.runs) pair_present = pair_present || str_at(r, "pair") == s.pair;
  if (!pair_present) {
    std::string reason = fmt::format("results have no {} pair", s.pair);
    if (!ctx.claim.pending.empty()) reason += " (pending: " + ctx.claim.pending + ")";
    return reason;
  }
  return fmt::format("no run matches {}", selector_text(s));
}

// ---- bound ----------------------------------------------------------------------

Case bound_case(const Check& ch, const json& run) {
  Case c;
  c.tokens = tokens_of(run);
  const auto I = number_at(run, "intensity.value");
  const auto ridge = number_at(run, "roofline.ridge");
  if (!I || !ridge || *ridge <= 0) {
    c.reason = !I ? fmt::format("run {} has no intensity", run_id(run))
                  : fmt::format("run {} has no ridge point (ceilings not measured)", run_id(run));
    return c;
  }
  const bool measured_bytes = str_at(run, "intensity.bytes") == "measured";
  const double rel = *I / *ridge;
  c.evidence.push_back(evidence(&run, measured_bytes ? "intensity.measured" : "intensity.model", *I));
  c.evidence.push_back(evidence(&run, "roofline.ridge", *ridge));
  std::string also;
  if (measured_bytes) {
    if (auto model = number_at(run, "intensity.model")) {
      c.evidence.push_back(evidence(&run, "intensity.model", *model));
      also = fmt::format("; model bytes give {}", num(*model));
    }
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
  const json* candidate;
  const json* baseline;
};

bool same_shape(const json& a, const json& b, const std::vector<std::string>& ignore) {
  const json* sa = at(a, "shape");
  const json* sb = at(b, "shape");
  if (!sa || !sb || !sa->is_object() || !sb->is_object()) return sa == sb;
  auto covered = [&](const json& x, const json& y) {
    for (const auto& [dim, v] : x.items()) {
      if (std::find(ignore.begin(), ignore.end(), dim) != ignore.end()) continue;
      const auto it = y.find(dim);
      if (it == y.end() || *it != v) return false;
    }
    return true;
  };
  return covered(*sa, *sb) && covered(*sb, *sa);
}

// Runs pair up when backend, dtype and shape agree (but for ignore_dims), and so does
// every selector field that neither selector names.
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
  std::vector<std::string> free_fields;
  if (ch.candidate.variants.empty() && ch.baseline.variants.empty()) free_fields.push_back("variant");
  if (ch.candidate.impls.empty() && ch.baseline.impls.empty()) free_fields.push_back("impl");
  // Dims the variant decides (the registry's variant_dims, decode's kv_heads) never
  // keep two runs of one pair apart.
  std::vector<std::string> ignore = ch.ignore_dims;
  if (ch.candidate.pair == ch.baseline.pair)
    for (const auto& p : all_pairs())
      if (p.name == ch.candidate.pair) ignore.insert(ignore.end(), p.variant_dims.begin(), p.variant_dims.end());
  int unpaired = 0;
  for (const auto* c : cands) {
    std::vector<const json*> matches;
    for (const auto* b : bases) {
      if (b == c) continue;
      bool ok = str_at(*c, "backend") == str_at(*b, "backend") && str_at(*c, "dtype") == str_at(*b, "dtype") &&
                same_shape(*c, *b, ignore);
      for (const auto& f : free_fields) ok = ok && str_at(*c, f) == str_at(*b, f);
      if (ok) matches.push_back(b);
    }
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

// The relative noise of the ratio of two runs' times (docs/claims.md#noise): the
// largest of the floor, twice the runs' combined cv, and how far the ratio's
// sample envelope (best against worst repetition) reaches from the ratio of medians.
double pair_noise(const Check& ch, const json& a, const json& b) {
  const double cva = time_cv(a), cvb = time_cv(b);
  double noise = std::max(ch.noise_floor, 2 * std::sqrt(cva * cva + cvb * cvb));
  const auto a_med = number_at(a, "time_s.median"), b_med = number_at(b, "time_s.median");
  const auto a_min = number_at(a, "time_s.min"), a_max = number_at(a, "time_s.max");
  const auto b_min = number_at(b, "time_s.min"), b_max = number_at(b, "time_s.max");
  if (a_med && b_med && a_min && a_max && b_min && b_max && *a_min > 0 && *b_min > 0) {
    const double r = *a_med / *b_med;
    noise = std::max({noise, (*a_max / *b_min) / r - 1, r / (*a_min / *b_max) - 1});
  }
  return noise;
}

// Half the spread of one run's samples, relative: sqrt(max / min) - 1.
double run_spread(const json& run) {
  const auto lo = number_at(run, "time_s.min"), hi = number_at(run, "time_s.max");
  return lo && hi && *lo > 0 ? std::sqrt(*hi / *lo) - 1 : 0.0;
}

std::string too_noisy(double noise, double max_noise) {
  return fmt::format("the runs are too noisy (+/-{}, above max_noise {}) to judge", pct(noise), pct(max_noise));
}

// ---- faster ---------------------------------------------------------------------

Case faster_case(const Check& ch, const RunPair& p) {
  Case c;
  c.tokens = tokens_of(*p.candidate);
  const auto tc = number_at(*p.candidate, "time_s.median");
  const auto tb = number_at(*p.baseline, "time_s.median");
  if (!tc || !tb || *tc <= 0 || *tb <= 0) {
    c.reason = fmt::format("run {} has no time", run_id(!tc || *tc <= 0 ? *p.candidate : *p.baseline));
    return c;
  }
  const double cvc = time_cv(*p.candidate), cvb = time_cv(*p.baseline);
  const double s = *tb / *tc;
  const double noise = pair_noise(ch, *p.baseline, *p.candidate);
  const double lo = s / (1 + noise), hi = s * (1 + noise);
  c.evidence = json::array({evidence(p.candidate, "time_s.median", *tc), evidence(p.candidate, "time_s.cv", cvc),
                            evidence(p.baseline, "time_s.median", *tb), evidence(p.baseline, "time_s.cv", cvb),
                            evidence(nullptr, "speedup", s), evidence(nullptr, "noise", noise)});
  c.measured = fmt::format("speedup {} ({} vs {}, noise +/-{})", num(s), si(*tc, "s"), si(*tb, "s"), pct(noise));
  if (noise > ch.max_noise) {
    c.verdict = Verdict::inconclusive;
    c.reason = too_noisy(noise, ch.max_noise);
    c.slack = 0;
    return c;
  }
  if (!ch.within_noise) {
    const double f = *ch.factor;
    if (s >= f && lo > 1) {
      c.verdict = Verdict::holds;
    } else if (hi < f) {
      c.verdict = Verdict::fails;
    } else {
      c.verdict = Verdict::inconclusive;
      c.reason = s >= f ? fmt::format("speedup {} is within the runs' noise (+/-{})", num(s), pct(noise))
                        : fmt::format("speedup {} is below {} but within the runs' noise (+/-{}) of it", num(s),
                                      num(f), pct(noise));
    }
    c.slack = std::min(std::abs(std::log(s / f)), std::abs(std::log(s)));
    return c;
  }
  const double d = std::abs(s - 1);
  const double band = std::max(ch.max_difference, noise);
  if (d <= band) {
    c.verdict = Verdict::holds;
  } else if (d > band + noise) {
    c.verdict = Verdict::fails;
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("difference {} is beyond {} but within the runs' noise (+/-{}) of it", pct(d),
                           pct(band), pct(noise));
  }
  c.slack = std::abs(d - band);
  return c;
}

Outcome check_faster(const Context& ctx) {
  std::vector<std::string> notes;
  std::string none;
  const auto pairs = pair_runs(ctx, notes, none);
  std::vector<Case> cases;
  for (const auto& p : pairs) cases.push_back(faster_case(ctx.claim.check, p));
  return aggregate(std::move(cases), "run pairs", notes, none);
}

// ---- ratio ------------------------------------------------------------------------

Case ratio_case(const Check& ch, const RunPair& p) {
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
  const double noise = timed ? pair_noise(ch, *p.candidate, *p.baseline) : 0.0;
  c.evidence = json::array({evidence(p.candidate, field, *a), evidence(p.baseline, field, *b),
                            evidence(nullptr, "ratio", r)});
  if (timed) c.evidence.push_back(evidence(nullptr, "noise", noise));
  c.measured = fmt::format("{} ratio {} ({} / {}{})", metric_words(field), num(r), metric_value(field, *a),
                           metric_value(field, *b), timed ? ", noise +/-" + pct(noise) : "");
  if (timed && noise > ch.max_noise) {
    c.verdict = Verdict::inconclusive;
    c.reason = too_noisy(noise, ch.max_noise);
  } else if (ch.range.contains(r)) {
    c.verdict = Verdict::holds;
  } else if ((ch.range.min && r * (1 + noise) < *ch.range.min) || (ch.range.max && r / (1 + noise) > *ch.range.max)) {
    c.verdict = Verdict::fails;
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("ratio {} is outside the range but within the runs' noise (+/-{}) of it", num(r),
                           pct(noise));
  }
  double slack = 1e300;
  if (ch.range.min) slack = std::min(slack, std::abs(std::log(r / *ch.range.min)));
  if (ch.range.max) slack = std::min(slack, std::abs(std::log(r / *ch.range.max)));
  c.slack = slack;
  return c;
}

Outcome check_ratio(const Context& ctx) {
  std::vector<std::string> notes;
  std::string none;
  const auto pairs = pair_runs(ctx, notes, none);
  std::vector<Case> cases;
  for (const auto& p : pairs) cases.push_back(ratio_case(ctx.claim.check, p));
  return aggregate(std::move(cases), "run pairs", notes, none);
}

// ---- share -------------------------------------------------------------------------

Case share_case(const Check& ch, const json& run) {
  Case c;
  c.tokens = tokens_of(run);
  const json* classes = at(run, "breakdown.classes");
  if (!classes || !classes->is_array()) {
    c.reason = fmt::format("run {} has no breakdown by operator class", run_id(run));
    return c;
  }
  const json* cls = nullptr;
  std::vector<std::string> present;
  for (const auto& k : *classes) {
    present.push_back(str_at(k, "class"));
    if (present.back() == ch.op_class) cls = &k;
  }
  if (!cls) {
    c.reason = fmt::format("run {} has no class '{}' in its breakdown (has: {})", run_id(run), ch.op_class,
                           join(present, ", "));
    return c;
  }
  const auto fs = number_at(*cls, "flop_share");
  const auto ts = number_at(*cls, "time_share");
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
  std::map<std::string, std::vector<const json*>> series;
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
    std::sort(members.begin(), members.end(), [&](const json* a, const json* b) {
      return *number_at(*a, "shape." + ch.dimension) < *number_at(*b, "shape." + ch.dimension);
    });
    Case c;
    c.tokens = tokens_of(*members.front(), skip);
    const std::string field = resolve_metric(ch.metric, members);
    std::vector<double> xs, ys;
    std::set<double> distinct;
    double max_cv = 0;
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
      max_cv = std::max({max_cv, time_cv(*r), run_spread(*r) / 2});
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
    const double noise = timed ? std::max(ch.noise_floor, 2 * max_cv) : 0.0;
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

// ---- expected, in words ------------------------------------------------------------

std::string expected_text(const Check& ch) {
  switch (ch.kind) {
    case CheckKind::bound:
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

json check_one(const Claim& claim, const json& runs) {
  const Context ctx{claim, runs};
  Outcome o;
  switch (claim.check.kind) {
    case CheckKind::bound: o = check_bound(ctx); break;
    case CheckKind::faster: o = check_faster(ctx); break;
    case CheckKind::ratio: o = check_ratio(ctx); break;
    case CheckKind::share: o = check_share(ctx); break;
    case CheckKind::scaling: o = check_scaling(ctx); break;
  }
  if (o.measured.empty()) o.measured = "-";
  const bool explain = o.verdict == Verdict::inconclusive || o.verdict == Verdict::not_measured;
  return json{{"id", claim.id},
              {"statement", claim.statement},
              {"source", claim.source},
              {"kind", to_string(claim.check.kind)},
              {"verdict", name(o.verdict)},
              {"expected", expected_text(claim.check)},
              {"measured", o.measured},
              {"evidence", o.evidence},
              {"reason", explain && !o.reason.empty() ? json(o.reason) : json(nullptr)},
              {"chart", claim.chart},
              {"claims_file", claim.file}};
}

}  // namespace

// ---- API ---------------------------------------------------------------------------

bool RunSelector::matches(const json& run) const {
  if (str_at(run, "pair") != pair) return false;
  auto in = [](const std::vector<std::string>& allowed, const std::string& v) {
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
  };
  if (!in(variants, str_at(run, "variant")) || !in(impls, str_at(run, "impl"))) return false;
  if (backend && str_at(run, "backend") != *backend) return false;
  if (dtype && str_at(run, "dtype") != *dtype) return false;
  for (const auto& [dim, v] : shape) {
    const auto have = number_at(run, "shape." + dim);
    if (!have || *have != static_cast<double>(v)) return false;
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

json check_claims(const std::vector<Claim>& claims, const json& results) {
  if (!results.is_object()) throw std::invalid_argument("results: not a JSON object (expected an lmroof results.json)");
  const auto schema = str_at(results, "schema");
  if (schema.rfind("lmroof.results/1", 0) != 0)
    throw std::invalid_argument(fmt::format("results: schema '{}' is not lmroof.results/1",
                                            schema.empty() ? std::string("(none)") : schema));
  const json* runs = at(results, "runs");
  if (!runs || !runs->is_array()) throw std::invalid_argument("results: 'runs' is not an array");
  json out = json::array();
  for (const auto& c : claims) out.push_back(check_one(c, *runs));
  return out;
}

int claims_exit_code(const json& claims) {
  for (const auto& c : claims)
    if (c.is_object() && str_at(c, "verdict") == "fails") return 1;
  return 0;
}

}  // namespace lmroof
