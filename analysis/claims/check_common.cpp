// Reading, naming and selecting runs for every check kind (check_common.h).
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
#include "analysis/numbers/numbers.h"

namespace lmroof::claims_detail {

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

// A factor as the claim writes it: "2", "1.5".
std::string factor_num(double f) { return fmt::format("{:g}", f); }

model::Evidence evidence(const Run* run, const std::string& metric, double value) {
  model::Evidence e;
  if (run) e.run = run->id;
  e.metric = metric;
  if (std::isfinite(value)) e.value = value;
  return e;
}

std::vector<std::pair<std::string, std::string>> tokens_of(const Context& ctx, const Run& run, const std::vector<std::string>& skip) {
  std::vector<std::pair<std::string, std::string>> t;
  const std::pair<const char*, const std::string*> fields[] = {
      {"pair", &run.pair}, {"variant", &run.variant}, {"impl", &run.impl}, {"backend", &run.backend}, {"dtype", &run.dtype}};
  for (const auto& [key, value] : fields)
    if (std::find(skip.begin(), skip.end(), key) == skip.end()) t.emplace_back(key, *value);
  // In the catalogue's dimension order, as the report labels shapes.
  const auto dims = ctx.results.catalogue.ordered(run.shape);
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

// ---- selecting runs -----------------------------------------------------------

std::string selector_text(const RunSelector& s) {
  std::string out = s.pair;
// GCC 12 warns, falsely, that "x" + std::string copies overlap (GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
  out += "/" + (s.variants.empty() ? std::string("*") : join(s.variants, "|"));
  out += "/" + (s.impls.empty() ? std::string("*") : join(s.impls, "|"));
  if (s.backend) out += "/" + *s.backend;
  if (s.dtype) out += "/" + *s.dtype;
#pragma GCC diagnostic pop
  if (!s.shape.empty()) out += " " + describe_dims(s.shape);
  return out;
}

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

// "measured" when the verdict rests on this machine's times or hardware counters,
// "model" when it follows from the cost model's FLOPs and bytes (docs/claims.md#evidence).
model::EvidenceKind evidence_kind(const Check& ch, const std::vector<model::Evidence>& evidence) {
  switch (ch.kind) {
    case CheckKind::faster: return model::EvidenceKind::measured;
    case CheckKind::share:
      return ch.time_share.min || ch.time_share.max || ch.time_over_flop_share.min || ch.time_over_flop_share.max
                 ? model::EvidenceKind::measured
                 : model::EvidenceKind::model;
    case CheckKind::bound:
      if (!ch.crossing.empty()) return model::EvidenceKind::measured;  // the measured crossing is read from the runs' times
      [[fallthrough]];
    case CheckKind::ratio:
    case CheckKind::scaling:
      if (is_timed(ch.metric)) return model::EvidenceKind::measured;
      for (const auto& e : evidence)
        if (e.run && (is_timed(e.metric) || e.metric.find("measured") != std::string::npos))
          return model::EvidenceKind::measured;
      return model::EvidenceKind::model;
  }
  return model::EvidenceKind::measured;
}

RunSeries group_series(const Context& ctx, const std::vector<const Run*>& runs, const std::vector<std::string>& skip,
                       const std::function<bool(const Run&)>& in_sweep) {
  RunSeries grouped;
  for (const auto* r : runs) {
    if (!in_sweep(*r)) {
      ++grouped.lacking;
      continue;
    }
    std::string key;
    for (const auto& [k, v] : tokens_of(ctx, *r, skip)) key += k + "=" + v + ";";
    if (!grouped.members.count(key)) grouped.keys.push_back(key);
    grouped.members[key].push_back(r);
  }
  return grouped;
}

std::string lacking_note(int lacking, const std::string& dimension) {
  return fmt::format("{} run{} lack dimension {}", lacking, lacking == 1 ? "" : "s", dimension);
}

Outcome check_each_run(const Context& ctx, Case (*judge)(const Context&, const Run&)) {
  const RunSelector& selector = ctx.claim.check.run;
  std::vector<Case> cases;
  for (const auto* r : select(ctx, selector)) cases.push_back(judge(ctx, *r));
  return aggregate(ctx, std::move(cases), "runs", {}, no_match_reason(ctx, selector));
}

}  // namespace lmroof::claims_detail
