// results.json <-> model::Results: every field validated once, here.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <span>
#include <stdexcept>
#include <tuple>

#include "analysis/model/json_input.h"
#include "analysis/model/results_model.h"

namespace lmroof::model {

using nlohmann::json;

namespace {

constexpr int64_t kMaxDimValue = int64_t{1} << 40;
constexpr int64_t kMaxCount = int64_t{1} << 50;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

std::optional<double> opt_number(const JsonCursor& c, std::string_view key) {
  auto v = c.opt(key);
  return v ? std::optional<double>(v->number()) : std::nullopt;
}
std::optional<double> opt_non_negative(const JsonCursor& c, std::string_view key) {
  auto v = c.opt(key);
  return v ? std::optional<double>(v->non_negative()) : std::nullopt;
}
std::optional<double> opt_positive(const JsonCursor& c, std::string_view key) {
  auto v = c.opt(key);
  return v ? std::optional<double>(v->positive()) : std::nullopt;
}
std::optional<std::string> opt_string(const JsonCursor& c, std::string_view key, size_t max = kMaxNameLength) {
  auto v = c.opt(key);
  return v ? std::optional<std::string>(v->string(max)) : std::nullopt;
}

// An identifier-like name: non-empty, no control characters.
std::string name_of(const JsonCursor& c) {
  std::string s = c.string();
  if (s.empty()) c.fail("must not be empty");
  for (unsigned char ch : s)
    if (ch < 0x20 || ch == 0x7f) c.fail("must not contain control characters");
  return s;
}

Shape shape_from(const JsonCursor& c) {
  Shape s;
  for (const auto& [k, v] : c.members()) {
    if (k.empty() || k.size() > kMaxNameLength) v.fail("dimension names must be 1 to 1024 characters");
    s[k] = v.integer(1, kMaxDimValue);
  }
  return s;
}

json shape_json(const Shape& s) {
  json j = json::object();
  for (const auto& [k, v] : s) j[k] = v;
  return j;
}

// ---- machine, suite, metrics ----------------------------------------------------

ModelConfig model_config_from(const JsonCursor& c) {
  ModelConfig m;
  m.name = name_of(c.at("name"));
  m.source = c.at("source").string(kMaxTextLength);
  if (auto dims = c.opt("dims"))
    for (const auto& [k, v] : dims->members()) m.dims[k] = v.integer(0, kMaxDimValue);
  return m;
}

Suite suite_from(const JsonCursor& c) {
  Suite s;
  c.require_object();
  if (auto pairs = c.opt("pairs")) {
    std::vector<std::string> names;
    for (const auto& p : pairs->items()) names.push_back(name_of(p));
    s.pairs = names;
  }
  if (auto q = c.opt("quick")) s.quick = q->boolean();
  if (auto m = c.opt("model")) s.model = model_config_from(*m);
  return s;
}

Gpu gpu_from(const JsonCursor& c) {
  Gpu g;
  g.name = c.at("name").string();
  g.compute_capability = c.at("compute_capability").string();
  g.sm_count = c.at("sm_count").integer(0, kMaxCount);
  g.memory_bytes = c.at("memory_bytes").non_negative();
  g.l2_bytes = c.at("l2_bytes").non_negative();
  if (auto d = c.opt("driver")) g.driver = d->json().is_number() ? d->json().dump() : d->string();
  return g;
}

json gpu_json(const Gpu& g) {
  return {{"name", g.name}, {"compute_capability", g.compute_capability}, {"sm_count", g.sm_count},
          {"memory_bytes", g.memory_bytes}, {"l2_bytes", g.l2_bytes}, {"driver", g.driver}};
}

Machine machine_from(const JsonCursor& c) {
  Machine m;
  m.backend = c.at("backend").one_of({"cpu", "cuda"});
  // Descriptive facts a hand-written or older file may lack read "unknown".
  auto fact = [&](std::string_view key, size_t max = kMaxNameLength) {
    return c.opt(key) ? c.at(key).string(max) : std::string("unknown");
  };
  // Facts printed on a terminal (compare, merge, check): one line each.
  auto one_line_fact = [&](std::string_view key) {
    return c.opt(key) ? c.at(key).one_line() : std::string("unknown");
  };
  m.cpu_model = one_line_fact("cpu_model");
  m.cores = c.at("cores").integer(1, 1 << 24);
  m.threads = c.at("threads").integer(1, 1 << 24);
  m.host_pages = fact("host_pages", kMaxTextLength);
  m.blas = fact("blas", kMaxTextLength);
  m.cpu_mhz = opt_non_negative(c, "cpu_mhz");
  if (auto g = c.opt("gpu")) m.gpu = gpu_from(*g);
  m.compiler = fact("compiler");
  m.build_type = fact("build_type");
  m.build_flags = fact("build_flags", kMaxTextLength);
  m.cuda_compiler = opt_string(c, "cuda_compiler");
  m.lmroof_version = fact("lmroof_version");
  m.git_commit = fact("git_commit");
  m.bench_date = opt_string(c, "bench_date");
  m.date = fact("date");
  m.hostname = one_line_fact("hostname");
  if (auto s = c.opt("suite")) m.suite = suite_from(*s);
  return m;
}

Metrics metrics_from(const JsonCursor& c) {
  Metrics m;
  m.source = c.at("source").one_of({"analytic", "cupti"});
  m.reason = opt_string(c, "reason", kMaxTextLength);
  m.chip = opt_string(c, "chip");
  if (auto v = c.opt("metrics")) m.metrics = v->strings();
  if (auto v = c.opt("dropped_metrics")) m.dropped_metrics = v->strings();
  if (auto v = c.opt("passes")) m.passes = v->integer(0, kMaxCount);
  return m;
}

// ---- catalogue --------------------------------------------------------------------

VariantImpl variant_impl_from(const JsonCursor& c) { return {name_of(c.at("variant")), name_of(c.at("impl"))}; }

bool valid_chart_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-'; });
}

std::string chart_id_from(const JsonCursor& c) {
  std::string id = c.string();
  if (!valid_chart_id(id)) c.fail(fmt::format("a chart id must be 1 to 128 of a-z, 0-9 and '-' (is {})", json(id).dump()));
  return id;
}

// ---- a pair's model mapping (kernels/model_config.h: PairModelMapping) -------------

ModelSettings model_settings_from(const JsonCursor& c) {
  c.require_object();
  ModelSettings s;
  for (const auto& [key, value] : c.members()) {
    if (key == "family") s.family = name_of(value);
    else if (key == "activation") s.activation = name_of(value);
    else if (key == "gated_mlp") s.gated_mlp = value.boolean();
    else if (key == "parallel_block") s.parallel_block = value.boolean();
    else if (key == "norm") s.norm = value.one_of({"layernorm", "rmsnorm"}) == "rmsnorm" ? NormKind::rmsnorm : NormKind::layernorm;
    else value.fail("must be one of \"family\", \"activation\", \"gated_mlp\", \"parallel_block\", \"norm\"");
  }
  return s;
}

json model_settings_json(const ModelSettings& s) {
  json j = json::object();
  if (s.family) j["family"] = *s.family;
  if (s.activation) j["activation"] = *s.activation;
  if (s.gated_mlp) j["gated_mlp"] = *s.gated_mlp;
  if (s.parallel_block) j["parallel_block"] = *s.parallel_block;
  if (s.norm) j["norm"] = *s.norm == NormKind::rmsnorm ? "rmsnorm" : "layernorm";
  return j;
}

PairModelMapping model_mapping_from(const JsonCursor& c) {
  PairModelMapping m;
  for (const auto& [field, dim] : c.at("dims").members()) {
    if (std::find(std::begin(kMappedModelFields), std::end(kMappedModelFields), field) == std::end(kMappedModelFields))
      dim.fail("is no model field a run's dimension may set (hidden, q_heads, kv_heads, head_dim, d_ff)");
    m.dims.emplace_back(field, name_of(dim));
  }
  m.tokens_dim = name_of(c.at("tokens_dim"));
  if (auto b = c.opt("batch_dim")) m.batch_dim = name_of(*b);
  if (auto d = c.opt("decode_impls")) m.decode_impls = d->strings();
  if (auto o = c.opt("ops")) m.ops = o->strings();
  if (auto s = c.opt("settings")) m.settings = model_settings_from(*s);
  if (auto v = c.opt("variant_settings"))
    for (const auto& [variant, settings] : v->members()) m.variant_settings.emplace_back(variant, model_settings_from(settings));
  return m;
}

json model_mapping_json(const PairModelMapping& m) {
  json dims = json::object(), variants = json::object();
  for (const auto& [field, dim] : m.dims) dims[field] = dim;
  for (const auto& [variant, settings] : m.variant_settings) variants[variant] = model_settings_json(settings);
  json j = {{"dims", dims}, {"tokens_dim", m.tokens_dim}, {"decode_impls", m.decode_impls}, {"ops", m.ops},
            {"settings", model_settings_json(m.settings)}, {"variant_settings", variants}};
  if (!m.batch_dim.empty()) j["batch_dim"] = m.batch_dim;
  return j;
}

Catalogue catalogue_from(const JsonCursor& c) {
  Catalogue cat;
  std::set<std::string> names, charts;
  for (const auto& p : c.at("pairs").items()) {
    CataloguePair pair;
    pair.name = name_of(p.at("name"));
    if (!names.insert(pair.name).second) p.at("name").fail(fmt::format("pair '{}' is listed twice", pair.name));
    pair.title = p.at("title").string(kMaxTextLength);
    if (auto s = p.opt("summary")) pair.summary = s->string(kMaxTextLength);
    pair.chart = chart_id_from(p.at("chart"));
    if (!charts.insert(pair.chart).second) p.at("chart").fail(fmt::format("chart id '{}' is used twice", pair.chart));
    for (const auto& combo : p.at("combos").items()) pair.combos.push_back(variant_impl_from(combo));
    if (auto d = p.opt("dims")) pair.dims = d->strings();
    if (auto d = p.opt("variant_dims")) pair.variant_dims = d->strings();
    if (auto cmps = p.opt("comparisons"))
      for (const auto& cmp : cmps->items()) {
        const auto less_work = cmp.opt("less_work_control");
        pair.comparisons.push_back({variant_impl_from(cmp.at("baseline")), variant_impl_from(cmp.at("candidate")),
                                    cmp.at("question").string(kMaxTextLength), less_work && less_work->boolean()});
      }
    if (auto preds = p.opt("intensity_predictions"))
      for (const auto& pred : preds->items())
        pair.intensity_predictions.push_back(
            {name_of(pred.at("impl")), pred.at("model").one_of({kShazeerDecodeModel})});
    if (auto mapping = p.opt("model_mapping")) pair.model_mapping = model_mapping_from(*mapping);
    cat.pairs.push_back(std::move(pair));
  }
  if (auto d = c.opt("dimension_order")) cat.dimension_order = d->strings();
  if (auto ch = c.opt("charts"))
    for (const auto& id : ch->items()) cat.charts.push_back(chart_id_from(id));
  return cat;
}

json variant_impl_json(const VariantImpl& v) { return {{"variant", v.variant}, {"impl", v.impl}}; }

// ---- ceilings, runs --------------------------------------------------------------

// ---- issue 38: ceilings within physical ranges ---------------------------------------
// Far outside any machine lmroof measures, on either side (a 1 MB/s memory, an exaflop
// core, a launch under 10 ps or over 1 s), so a denormal (5e-324), a 1e308 or a unit
// slip is refused with its path rather than drawn as a roof every run is judged against.
struct PhysicalRange {
  double low, high;
};
PhysicalRange physical_range(CeilingKind kind) {
  switch (kind) {
    case CeilingKind::bandwidth: return {1e6, 1e16};  // B/s
    case CeilingKind::compute: return {1e6, 1e19};    // FLOP/s
    case CeilingKind::latency: return {1e-11, 1};     // s per launch
  }
  return {0, 0};
}

void check_physical_range(const JsonCursor& value, const Ceiling& x) {
  const auto [low, high] = physical_range(x.kind);
  if (x.value < low || x.value > high)
    value.fail(fmt::format("{:.6g} {} is outside the physical range of a {} ceiling ({:g} to {:g} {})", x.value, x.unit(),
                           to_string(x.kind), low, high, x.unit()));
}
// ---- end issue 38 ------------------------------------------------------------------------

Ceiling ceiling_from(const JsonCursor& c) {
  Ceiling x;
  x.name = name_of(c.at("name"));
  const std::string kind = c.at("kind").one_of({"bandwidth", "compute", "latency"});
  x.kind = kind == "bandwidth" ? CeilingKind::bandwidth : kind == "compute" ? CeilingKind::compute : CeilingKind::latency;
  x.backend = c.at("backend").one_of({"cpu", "cuda"});
  x.value = c.at("value").positive();
  const std::string unit = c.at("unit").one_of({"B/s", "FLOP/s", "s"});
  if (unit != x.unit()) c.at("unit").fail(fmt::format("a {} ceiling is in {}", to_string(x.kind), x.unit()));
  // Absent in files from before the launch ceilings: every ceiling then was a best.
  const bool latency = x.kind == CeilingKind::latency;
  x.statistic = c.opt("statistic") ? c.at("statistic").one_of({"best", "median"}) : std::string(latency ? "" : "best");
  if (x.statistic != (latency ? "median" : "best"))
    c.at("statistic").fail(latency ? "a latency ceiling is the median of its calls" : "a roof is the best of its repetitions");
  if (latency && x.value > 1) c.at("value").fail("is above one second per launch: seconds, not microseconds?");
  x.source = c.at("source").one_of({"measured", "datasheet"});
  if (auto d = c.opt("detail")) x.detail = d->string(kMaxTextLength);
  if (auto s = c.opt("samples")) x.samples = s->integer(0, kMaxCount);
  if (auto w = c.opt("working_set_bytes")) x.working_set_bytes = w->positive();
  if (auto b = c.opt("cache_bytes")) x.cache_bytes = b->positive();
  if (auto t = c.opt("threads")) x.threads = t->integer(1, 1 << 20);
  if (auto b = c.opt("best_before_suite")) x.best_before_suite = b->positive();
  if (auto a = c.opt("best_after_suite")) x.best_after_suite = a->positive();
  if (x.best_before_suite.has_value() != x.best_after_suite.has_value())
    c.fail("best_before_suite and best_after_suite come together");
  if (x.best_before_suite && std::max(*x.best_before_suite, *x.best_after_suite) > x.value * (1 + 1e-9))
    c.fail("value is the best of best_before_suite and best_after_suite, not below them");
  // ... and not above them either, unless a probe during the suite raised it (below).
  if (x.best_before_suite && !c.has("best_probed_during_suite") &&
      x.value > std::max(*x.best_before_suite, *x.best_after_suite) * (1 + 1e-9))
    c.at("value").fail(fmt::format("{:.6g} is above both best_before_suite ({:.6g}) and best_after_suite ({:.6g}): it is "
                                   "the best of them",
                                   x.value, *x.best_before_suite, *x.best_after_suite));
  check_physical_range(c.at("value"), x);
  if (auto n = c.opt("repeats")) x.repeats = n->integer(1, kMaxCount);
  if (auto sp = c.opt("spread")) x.spread = sp->fraction();
  if (x.repeats.has_value() != x.spread.has_value()) c.fail("repeats and spread come together");
  if (auto u = c.opt("unstable")) x.unstable = u->boolean();
  if (x.unstable && (!x.spread || *x.spread <= kCeilingSpreadBound))
    c.at("unstable").fail(fmt::format("a ceiling is unstable only when its spread is above {}", kCeilingSpreadBound));
  if (auto p = c.opt("best_probed_during_suite")) {
    x.best_probed_during_suite = p->positive();
    if (x.kind != CeilingKind::bandwidth || x.backend != "cpu" || (x.name != "read" && x.name != "copy_nt"))
      p->fail("only the CPU read and copy_nt ceilings are probed during a suite");
    // present only when it raised the roof: then it is the value, above both ends
    if (std::abs(*x.best_probed_during_suite - x.value) > 1e-9 * x.value)
      c.fail("value is best_probed_during_suite when that is present (the probe raised the roof)");
    if (x.best_before_suite && std::max(*x.best_before_suite, *x.best_after_suite) >= x.value)
      p->fail("present only when a probe beat both best_before_suite and best_after_suite");
  }
  return x;
}

// A rate or size lmroof can have measured: positive, and neither denormal nor beyond any
// machine (issue #38: 5e-324 and 100x raised ceilings were accepted).
double physical(const JsonCursor& c, double low, double high) {
  const double v = c.positive();
  if (v < low || v > high) c.fail(fmt::format("must be between {:g} and {:g} (is {:g})", low, high, v));
  return v;
}
constexpr double kLowestBandwidth = 1e3, kHighestBandwidth = 1e16;  // B/s: 1 kB/s .. 10 PB/s
constexpr double kLargestWorkingSet = 1e15;                           // bytes

void must_agree(const JsonCursor& field, double value, double expected, std::string_view formula);

BandwidthCurve bandwidth_curve_from(const JsonCursor& c, const std::string& backend) {
  BandwidthCurve curve;
  curve.backend = c.at("backend").one_of({"cpu", "cuda"});
  if (curve.backend != backend) c.at("backend").fail(fmt::format("a {} curve in a {} results file", curve.backend, backend));
  curve.threads = c.at("threads").integer(1, 1 << 20);
  const auto points = c.at("points").items();
  if (points.size() < 2) c.at("points").fail("must hold at least two points");
  for (const auto& p : points) {
    BandwidthPoint x;
    x.working_set_bytes = physical(p.at("working_set_bytes"), 1, kLargestWorkingSet);
    if (!curve.points.empty() && !(x.working_set_bytes > curve.points.back().working_set_bytes))
      p.at("working_set_bytes").fail("the points ascend by working set");
    x.read = physical(p.at("read"), kLowestBandwidth, kHighestBandwidth);
    if (auto cp = p.opt("copy"); cp && !cp->json().is_null()) x.copy = physical(*cp, kLowestBandwidth, kHighestBandwidth);
    x.spread = p.at("spread").fraction();
    x.repetitions = p.at("repetitions").integer(1, kMaxCount);
    if (auto u = p.opt("unstable"); u && !u->json().is_null()) x.unstable = u->boolean();
    if (x.unstable && !(x.spread > kCeilingSpreadBound))
      p.at("unstable").fail(fmt::format("a curve point is unstable only when its spread is above {}", kCeilingSpreadBound));
    curve.points.push_back(x);
  }
  const auto levels = c.at("levels").items();
  for (size_t i = 0; i < levels.size(); ++i) {
    const auto& l = levels[i];
    MemoryLevel x;
    const bool gpu = curve.backend == "cuda";
    x.name = gpu ? l.at("name").one_of({"L2", "HBM"}) : l.at("name").one_of({"L1", "L2", "L3", "DRAM"});
    const bool far = x.name == "DRAM" || x.name == "HBM";
    if (auto cap = l.opt("capacity_bytes"); cap && !cap->json().is_null()) {
      if (far) cap->fail(fmt::format("{} has no capacity here", x.name));
      x.capacity_bytes = physical(*cap, 1, kLargestWorkingSet);
      if (!curve.levels.empty() && curve.levels.back().capacity_bytes && *x.capacity_bytes <= *curve.levels.back().capacity_bytes)
        cap->fail("the levels ascend by capacity");
    } else if (!far) {
      l.fail(fmt::format("{} needs its capacity_bytes", x.name));
    }
    if (far && i + 1 != levels.size()) l.at("name").fail(fmt::format("{} is the last level", x.name));
    for (const auto& prev : curve.levels)
      if (prev.name == x.name) l.at("name").fail(fmt::format("level '{}' appears twice", x.name));
    x.bandwidth = physical(l.at("bandwidth"), kLowestBandwidth, kHighestBandwidth);
    curve.levels.push_back(std::move(x));
  }
  if (auto agreement = c.opt("agreement"); agreement && !agreement->json().is_null())
    for (const auto& a : agreement->items()) {
      CurveAgreement x;
      x.level = a.at("level").string();
      x.ceiling = a.at("ceiling").string();
      x.ceiling_value = physical(a.at("ceiling_value"), kLowestBandwidth, kHighestBandwidth);
      x.working_set_bytes = physical(a.at("working_set_bytes"), 1, kLargestWorkingSet);
      x.curve_value = physical(a.at("curve_value"), kLowestBandwidth, kHighestBandwidth);
      x.ratio = a.at("ratio").positive();
      must_agree(a.at("ratio"), x.ratio, x.curve_value / x.ceiling_value, "curve_value / ceiling_value");
      x.tolerance = a.at("tolerance").fraction();
      if (auto v = a.opt("level_value")) x.level_value = physical(*v, kLowestBandwidth, kHighestBandwidth);
      x.agrees = a.at("agrees").boolean();
      if (x.agrees != x.values_agree())
        a.at("agrees").fail(x.level_value ? "must say whether |ratio - 1| and |level_value / ceiling_value - 1| are within tolerance"
                                          : "must say whether |ratio - 1| is within tolerance");
      curve.agreement.push_back(std::move(x));
    }
  if (auto u = c.opt("unstable"); u && !u->json().is_null()) curve.unstable = u->boolean();
  const bool disagrees = std::any_of(curve.agreement.begin(), curve.agreement.end(), [](const CurveAgreement& a) { return !a.agrees; });
  if (curve.unstable != disagrees && !curve.agreement.empty())
    c.at("unstable").fail("a curve is unstable exactly when a level disagrees with its ceiling (agreement)");
  curve.unstable_reason = opt_string(c, "unstable_reason", 4096);
  if (curve.unstable != curve.unstable_reason.has_value())
    c.at("unstable").fail("an unstable curve says why in unstable_reason, and only an unstable one");
  return curve;
}

json to_json(const BandwidthCurve& curve) {
  json points = json::array(), levels = json::array();
  for (const auto& p : curve.points)
    points.push_back({{"working_set_bytes", p.working_set_bytes}, {"read", p.read}, {"copy", opt(p.copy)},
                      {"spread", p.spread}, {"repetitions", p.repetitions}, {"unstable", p.unstable}});
  for (const auto& l : curve.levels)
    levels.push_back({{"name", l.name}, {"capacity_bytes", opt(l.capacity_bytes)}, {"bandwidth", l.bandwidth}});
  json agreement = json::array();
  for (const auto& a : curve.agreement)
    agreement.push_back({{"level", a.level}, {"ceiling", a.ceiling}, {"ceiling_value", a.ceiling_value},
                         {"working_set_bytes", a.working_set_bytes}, {"curve_value", a.curve_value}, {"ratio", a.ratio},
                         {"tolerance", a.tolerance}, {"level_value", opt(a.level_value)}, {"agrees", a.agrees}});
  return {{"backend", curve.backend}, {"threads", curve.threads}, {"points", std::move(points)},
          {"levels", std::move(levels)}, {"agreement", std::move(agreement)}, {"unstable", curve.unstable},
          {"unstable_reason", opt(curve.unstable_reason)}};
}

JudgedAgainst judged_from(const JsonCursor& c) {
  JudgedAgainst j;
  if (auto r = c.opt("roof")) {
    j.roof = r->string();
    j.unit = c.at("unit").one_of({"B/s", "FLOP/s"});
    // A rate a machine can have (issue 47: 5e-324 was accepted). B/s as the curve's
    // points. FLOP/s: a roof made of steps ("fp32_fma+L3 curve by step") is the run's
    // FLOPs over the sum of its steps' roof times, so it can sit far below the compute
    // ceiling (a norm's few FLOPs per byte) but never above it: from the curve's lowest
    // rate's 1e3 to the compute ceilings' highest.
    j.value = j.unit == "B/s" ? physical(c.at("value"), kLowestBandwidth, kHighestBandwidth)
                              : physical(c.at("value"), kLowestBandwidth, physical_range(CeilingKind::compute).high);
    j.seconds = c.at("seconds").positive();
    j.fraction = c.at("fraction").positive();
    j.rule = c.at("rule").string(kMaxTextLength);
    if (auto l = c.opt("level")) j.level = l->one_of({"L1", "L2", "L3", "DRAM", "HBM"});
    if (auto w = c.opt("working_set_bytes")) j.working_set_bytes = w->positive();
    if (auto k = c.opt("composite")) j.composite = k->boolean();
    if (auto u = c.opt("unstable_ceilings"))
      for (const auto& name : u->items()) j.unstable_ceilings.push_back(name.string());
  } else {
    j.reason = c.at("reason").string(kMaxTextLength);
  }
  return j;
}

json judged_json(const JudgedAgainst& j) {
  if (!j.roof) return {{"roof", nullptr}, {"reason", opt(j.reason)}};
  json out = {{"roof", *j.roof}, {"unit", j.unit}, {"value", j.value}, {"seconds", j.seconds},
              {"fraction", j.fraction}, {"rule", j.rule}};
  if (j.level) out["level"] = *j.level;
  if (j.working_set_bytes) out["working_set_bytes"] = *j.working_set_bytes;
  if (j.composite) out["composite"] = true;
  if (!j.unstable_ceilings.empty()) out["unstable_ceilings"] = j.unstable_ceilings;
  return out;
}

Validated validated_from(const JsonCursor& c) {
  Validated v;
  v.error = c.at("error").non_negative();
  v.tolerance = c.at("tolerance").positive();
  // issue 38: a norm-wise relative error tolerance; above 1 any output passes, below
  // 1e-12 no float64 reference could meet it.
  if (v.tolerance > 1 || v.tolerance < 1e-12)
    c.at("tolerance").fail(fmt::format("{:.6g} is outside the range of a relative-error tolerance (1e-12 to 1)", v.tolerance));
  v.shapes = c.at("shapes").integer(1, 1 << 20);
  v.shape = shape_from(c.at("shape"));
  // A run that failed validation is not timed (it is in skipped[]).
  if (v.error > v.tolerance) c.at("error").fail(fmt::format("{:.6g} exceeds tolerance {:.6g}: a run failing validation is not timed", v.error, v.tolerance));
  return v;
}

json validated_json(const Validated& v) {
  return {{"error", v.error}, {"tolerance", v.tolerance}, {"shapes", v.shapes}, {"shape", shape_json(v.shape)}};
}

BytesBasis basis_from(const JsonCursor& c) {
  return c.one_of({"model", "measured"}) == "model" ? BytesBasis::model : BytesBasis::measured;
}

// ---- derived fields ------------------------------------------------------------------
//
// A field the writer computes from others (intensity = FLOPs / bytes, achieved rates =
// work / median time, the roofline placement, a comparison's ratios) must agree with
// them: a value that does not is refused with its path, as an impossible value is.

constexpr double kDerivedTolerance = 1e-6;  // relative

bool agrees(double value, double expected) {
  return std::abs(value - expected) <= kDerivedTolerance * std::max(std::abs(value), std::abs(expected));
}

// `field` holds `value`, which must be `expected` (= `formula`).
void must_agree(const JsonCursor& field, double value, double expected, std::string_view formula) {
  if (!agrees(value, expected))
    field.fail(fmt::format("is {:.9g} but {} is {:.9g} (they must agree within a relative {:g})", value, formula,
                           expected, kDerivedTolerance));
}

// ---- issue 47 #12: the curve cross-checked as the ceilings are --------------------
// A level is the median of its plateau's points, so it lies within the read rates of
// the points in its range; an agreement reads a ceiling of this file at that ceiling's
// working set, and the curve there; a run's roof is made of ceilings of this file and
// levels of its curve. A curve whose levels were scaled 100x, or swapped, or an
// agreement naming a ceiling the file lacks, was accepted and drawn.
void check_curve_in_file(const JsonCursor& c, const BandwidthCurve& curve, const std::vector<Ceiling>& ceilings) {
  const auto levels = c.at("levels").items();
  double previous = 0;
  for (size_t i = 0; i < curve.levels.size(); ++i) {
    const MemoryLevel& l = curve.levels[i];
    const double high = l.capacity_bytes.value_or(std::numeric_limits<double>::infinity());
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& p : curve.points)
      if (p.working_set_bytes > previous && p.working_set_bytes <= high) lo = std::min(lo, p.read), hi = std::max(hi, p.read);
    if (hi == 0)
      levels[i].at("bandwidth").fail(fmt::format("level '{}' has no curve point in its range of working sets", l.name));
    if (l.bandwidth < lo * (1 - kDerivedTolerance) || l.bandwidth > hi * (1 + kDerivedTolerance))
      levels[i].at("bandwidth").fail(fmt::format("is {:.4g} B/s, outside the {:.4g} to {:.4g} B/s the curve's points read in "
                                                 "level '{}' (a level is the median of its points)",
                                                 l.bandwidth, lo, hi, l.name));
    if (l.capacity_bytes) previous = *l.capacity_bytes;
  }
  if (curve.agreement.empty()) return;
  const auto agreement = c.at("agreement").items();
  for (size_t i = 0; i < curve.agreement.size(); ++i) {
    const CurveAgreement& a = curve.agreement[i];
    const JsonCursor& at = agreement[i];
    const auto level = std::find_if(curve.levels.begin(), curve.levels.end(), [&](const auto& l) { return l.name == a.level; });
    if (level == curve.levels.end()) at.at("level").fail(fmt::format("names no level of the curve ('{}')", a.level));
    const auto ceiling = std::find_if(ceilings.begin(), ceilings.end(), [&](const auto& x) { return x.name == a.ceiling; });
    if (ceiling == ceilings.end()) at.at("ceiling").fail(fmt::format("names no ceiling of this file ('{}')", a.ceiling));
    // Each level is held to its own ceiling: an L2 level against l3_read says nothing.
    if (const auto own = level_ceiling_name(a.level, curve.backend); !own || *own != a.ceiling)
      at.at("ceiling").fail(fmt::format("level '{}' is checked against {}, not '{}'", a.level,
                                        own ? "'" + *own + "'" : std::string("no ceiling"), a.ceiling));
    must_agree(at.at("ceiling_value"), a.ceiling_value, ceiling->value, fmt::format("the value of ceiling '{}'", a.ceiling));
    if (!ceiling->working_set_bytes) at.at("ceiling").fail(fmt::format("ceiling '{}' has no working_set_bytes", a.ceiling));
    must_agree(at.at("working_set_bytes"), a.working_set_bytes, *ceiling->working_set_bytes,
               fmt::format("the working set of ceiling '{}'", a.ceiling));
    must_agree(at.at("curve_value"), a.curve_value, curve.read_at(a.working_set_bytes), "the curve's points' rate there");
    if (a.level_value) must_agree(at.at("level_value"), *a.level_value, level->bandwidth, fmt::format("level '{}'", a.level));
  }
}

// The ceilings and curve levels a judged roof's name is made of ("copy_nt+read",
// "fp32_fma+L3 curve by step") are this file's.
void check_judged_roof(const JsonCursor& c, const JudgedAgainst& j, const std::set<std::string>& ceiling_names,
                       const std::optional<BandwidthCurve>& curve) {
  if (!j.roof) return;
  std::string name = *j.roof;
  if (name.ends_with(" by step")) name.resize(name.size() - 8);
  for (size_t start = 0; start <= name.size();) {
    const size_t end = std::min(name.find('+', start), name.size());
    const std::string part = name.substr(start, end - start);
    start = end + 1;
    if (ceiling_names.count(part) || part == "none") continue;  // "none": a step that moves no bytes
    if (part.ends_with(" curve") && curve) {
      const std::string level = part.substr(0, part.size() - 6);
      if (std::any_of(curve->levels.begin(), curve->levels.end(), [&](const auto& l) { return l.name == level; }) ||
          level == (curve->backend == "cuda" ? "HBM" : "DRAM"))
        continue;
    }
    c.at("roof").fail(fmt::format("'{}' names neither a ceiling of this file nor a level of its bandwidth curve", part));
  }
}
// ---- end issue 47 #12 ---------------------------------------------------------------

void check_derived(const JsonCursor& c, const Run& r) {
  // Times: min and max are the extremes of the samples, mean their mean.
  const auto& t = r.time_s;
  const JsonCursor time = c.at("time_s");
  const auto [lo, hi] = std::minmax_element(t.samples.begin(), t.samples.end());
  must_agree(time.at("min"), t.min, *lo, "the smallest sample");
  must_agree(time.at("max"), t.max, *hi, "the largest sample");
  double sum = 0;
  for (double x : t.samples) sum += x;
  must_agree(time.at("mean"), t.mean, sum / static_cast<double>(t.samples.size()), "the mean of the samples");
  if (t.median < t.min || t.median > t.max) time.at("median").fail("lies outside [min, max]");

  // FLOPs: the total of the cost model is its matrix, vector and special parts.
  const JsonCursor flops = c.at("flops");
  if (r.flops.source == "analytic")
    must_agree(flops.at("total"), r.flops.total, r.flops.matrix + r.flops.vector + r.flops.special,
               "matrix + vector + special");

  // Bytes over the minimum.
  const JsonCursor bytes = c.at("bytes");
  const double work = r.flops.total;
  auto over_minimum = [&](std::string_view key, const std::optional<double>& ratio, std::optional<double> of,
                          std::string_view of_name) {
    if (!ratio) return;
    if (!(r.bytes.minimum > 0)) bytes.at(key).fail("must be null when bytes.minimum is 0");
    if (!of) bytes.at(key).fail(fmt::format("must be null when {} is null", of_name));
    must_agree(bytes.at(key), *ratio, *of / r.bytes.minimum, fmt::format("{} / bytes.minimum", of_name));
  };
  over_minimum("model_over_minimum", r.bytes.model_over_minimum, r.bytes.model, "bytes.model");
  over_minimum("measured_over_minimum", r.bytes.measured_over_minimum, r.bytes.measured, "bytes.measured");

  // Intensity: FLOPs per byte of each kind; `value` uses the kind named in `bytes`.
  const JsonCursor intensity = c.at("intensity");
  const bool measured = r.intensity.bytes == BytesBasis::measured;
  const double basis = measured ? *r.bytes.measured : r.bytes.model;
  const char* basis_name = measured ? "bytes.measured" : "bytes.model";
  if (!(basis > 0)) intensity.at("bytes").fail("names bytes.measured, which is 0");
  must_agree(intensity.at("value"), r.intensity.value, work / basis, fmt::format("flops.total / {}", basis_name));
  must_agree(intensity.at("model"), r.intensity.model, work / r.bytes.model, "flops.total / bytes.model");
  auto per_byte = [&](std::string_view key, const std::optional<double>& value, std::optional<double> of,
                      std::string_view of_name) {
    if (!value) return;
    if (!of || !(*of > 0)) intensity.at(key).fail(fmt::format("must be null when {} is {}", of_name, of ? "0" : "null"));
    must_agree(intensity.at(key), *value, work / *of, fmt::format("flops.total / {}", of_name));
  };
  per_byte("minimum", r.intensity.minimum, r.bytes.minimum, "bytes.minimum");
  per_byte("measured", r.intensity.measured, r.bytes.measured, "bytes.measured");
  per_byte("measured_l2", r.intensity.measured_l2, r.bytes.measured_l2, "bytes.measured_l2");

  // Achieved rates: work over the median time.
  const JsonCursor achieved = c.at("achieved");
  must_agree(achieved.at("flop_per_s"), r.achieved.flop_per_s, work / t.median, "flops.total / time_s.median");
  must_agree(achieved.at("byte_per_s"), r.achieved.byte_per_s, basis / t.median,
             fmt::format("{} / time_s.median", basis_name));
  must_agree(achieved.at("byte_per_s_minimum"), r.achieved.byte_per_s_minimum, r.bytes.minimum / t.median,
             "bytes.minimum / time_s.median");

  // The roofline placement (docs/results-schema.md#roofline-placement). Optional
  // fields are checked when present.
  const auto& p = r.roofline;
  const bool latency_bound = p.launch && t.median <= kLatencyBoundFactor * *p.launch;
  const JsonCursor roofline = c.at("roofline");
  if (p.bandwidth && p.bandwidth_utilization)
    must_agree(roofline.at("bandwidth_utilization"), *p.bandwidth_utilization, r.achieved.byte_per_s / *p.bandwidth,
               "achieved.byte_per_s / roofline.bandwidth");
  if (p.bandwidth && p.compute) {
    const double ridge = *p.compute / *p.bandwidth;
    const double attainable = std::min(*p.compute, r.intensity.value * *p.bandwidth);
    if (p.ridge) must_agree(roofline.at("ridge"), *p.ridge, ridge, "roofline.compute / roofline.bandwidth");
    if (p.attainable_flop_per_s)
      must_agree(roofline.at("attainable_flop_per_s"), *p.attainable_flop_per_s, attainable,
                 "min(roofline.compute, intensity.value x roofline.bandwidth)");
    if (p.efficiency && attainable > 0)
      must_agree(roofline.at("efficiency"), *p.efficiency, r.achieved.flop_per_s / attainable,
                 "achieved.flop_per_s / attainable_flop_per_s");
    if (r.bound && !latency_bound && *r.bound != (r.intensity.value < ridge ? Bound::memory : Bound::compute))
      c.at("bound").fail(fmt::format("says {} but intensity.value {:.6g} is {} the ridge {:.6g}", to_string(*r.bound),
                                     r.intensity.value, r.intensity.value < ridge ? "below" : "at or above", ridge));
  } else {
    if (p.ridge) roofline.at("ridge").fail("needs both roofline.bandwidth and roofline.compute");
    if (p.attainable_flop_per_s) roofline.at("attainable_flop_per_s").fail("needs both roofline.bandwidth and roofline.compute");
    if (r.bound && !latency_bound) c.at("bound").fail("needs a ridge: roofline.bandwidth and roofline.compute");
  }
  // Latency-bound exactly when the median is within kLatencyBoundFactor of the launch
  // ceiling the run was held against.
  if (latency_bound && (!r.bound || *r.bound != Bound::latency))
    c.at("bound").fail(fmt::format("must be latency: time_s.median {:.6g} s is within {}x of roofline.launch {:.6g} s",
                                   t.median, kLatencyBoundFactor, *p.launch));
  if (r.bound == Bound::latency && !latency_bound)
    c.at("bound").fail(p.launch ? fmt::format("says latency but time_s.median {:.6g} s is over {}x roofline.launch {:.6g} s",
                                              t.median, kLatencyBoundFactor, *p.launch)
                                : std::string("says latency but the run has no roofline.launch"));
  if (r.predicted)
    must_agree(c.at("predicted").at("error"), r.predicted->error, (r.predicted->time_s - t.median) / t.median,
               "(predicted.time_s - time_s.median) / time_s.median");
  if (p.l2_bandwidth && p.l2_bandwidth_utilization && r.bytes.measured_l2)
    must_agree(roofline.at("l2_bandwidth_utilization"), *p.l2_bandwidth_utilization,
               *r.bytes.measured_l2 / t.median / *p.l2_bandwidth, "bytes.measured_l2 / time_s.median / roofline.l2_bandwidth");

  // The speed of light: the time at the roof over the median time.
  if (r.judged_against && r.judged_against->roof)
    must_agree(c.at("judged_against").at("fraction"), r.judged_against->fraction,
               r.judged_against->seconds / t.median, "judged_against.seconds / time_s.median");
  if (r.judged_against_probe && !r.dram_probe) c.at("judged_against_probe").fail("needs dram_probe");
  if (r.judged_against_probe && r.judged_against_probe->roof)
    must_agree(c.at("judged_against_probe").at("fraction"), r.judged_against_probe->fraction,
               r.judged_against_probe->seconds / t.median, "judged_against_probe.seconds / time_s.median");
}

Run run_from(const JsonCursor& c) {
  Run r;
  r.id = name_of(c.at("id"));
  r.pair = name_of(c.at("pair"));
  r.variant = name_of(c.at("variant"));
  r.impl = name_of(c.at("impl"));
  r.backend = c.at("backend").one_of({"cpu", "cuda"});
  r.dtype = c.at("dtype").one_of({"fp32", "bf16", "fp16"});
  r.shape = shape_from(c.at("shape"));
  r.time_s = read_fields<TimeStats>(c.at("time_s"));
  r.flops = read_fields<Flops>(c.at("flops"));
  r.bytes = read_fields<Bytes>(c.at("bytes"));
  r.intensity = read_fields<Intensity>(c.at("intensity"));
  r.achieved = read_fields<Achieved>(c.at("achieved"));
  r.roofline = read_fields<RooflinePlacement>(c.at("roofline"));
  if (auto b = c.opt("bound")) {
    const std::string bound = b->one_of({"memory", "compute", "latency"});
    r.bound = bound == "memory" ? Bound::memory : bound == "compute" ? Bound::compute : Bound::latency;
  }
  if (auto p = c.opt("predicted")) r.predicted = read_fields<PredictedTime>(*p);
  if (auto j = c.opt("judged_against")) r.judged_against = judged_from(*j);
  if (auto p = c.opt("dram_probe")) r.dram_probe = read_fields<DramProbe>(*p);
  if (auto j = c.opt("judged_against_probe")) r.judged_against_probe = judged_from(*j);
  if (auto p = c.opt("predicted_intensity")) r.predicted_intensity = p->positive();
  if (auto b = c.opt("breakdown")) r.breakdown = read_fields<Breakdown>(*b);
  if (auto k = c.opt("kernels")) r.kernels = read_fields<Kernels>(*k);
  if (auto v = c.opt("validated")) r.validated = validated_from(*v);
  if (auto k = c.opt("contention"); k && !k->is_null()) r.contention = run_contention_from(*k);
  if (r.intensity.bytes == BytesBasis::measured && !r.bytes.measured)
    c.at("intensity").at("bytes").fail("says measured but bytes.measured is null");
  check_derived(c, r);
  return r;
}

// A run's pair, variant and impl are the catalogue's: a pair it lists, one of that
// pair's combinations of variant and impl.
void check_in_catalogue(const JsonCursor& c, const Run& run, const Catalogue& catalogue) {
  const CataloguePair* pair = catalogue.find(run.pair);
  if (!pair) c.at("pair").fail(fmt::format("pair '{}' is not in the catalogue", run.pair));
  for (const auto& combo : pair->combos)
    if (combo.variant == run.variant && combo.impl == run.impl) return;
  auto listed = [](const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? std::string("none") : out;
  };
  const auto variants = pair->variants();
  if (std::find(variants.begin(), variants.end(), run.variant) == variants.end())
    c.at("variant").fail(fmt::format("pair '{}' has no variant '{}' in the catalogue (has: {})", run.pair, run.variant,
                                     listed(variants)));
  const auto impls = pair->impls();
  if (std::find(impls.begin(), impls.end(), run.impl) == impls.end())
    c.at("impl").fail(fmt::format("pair '{}' has no impl '{}' in the catalogue (has: {})", run.pair, run.impl,
                                  listed(impls)));
  c.at("impl").fail(fmt::format("pair '{}' has no impl '{}' of variant '{}' in the catalogue", run.pair, run.impl,
                                run.variant));
}

// A comparison describes the two runs it names, and its ratios are theirs
// (docs/results-schema.md#comparisons).
void check_comparison(const JsonCursor& c, const Comparison& x, const Run& base, const Run& cand) {
  for (auto [side, run, key] : {std::tuple{&x.baseline, &base, "baseline"}, std::tuple{&x.candidate, &cand, "candidate"}}) {
    if (run->pair != x.pair)
      c.at("pair").fail(fmt::format("is '{}' but the {} run '{}' is of pair '{}'", x.pair, key, run->id, run->pair));
    if (side->variant != run->variant)
      c.at(key).at("variant").fail(fmt::format("is '{}' but run '{}' is variant '{}'", side->variant, run->id, run->variant));
    if (side->impl != run->impl)
      c.at(key).at("impl").fail(fmt::format("is '{}' but run '{}' is impl '{}'", side->impl, run->id, run->impl));
    if (run->backend != x.backend)
      c.at("backend").fail(fmt::format("is '{}' but run '{}' is '{}'", x.backend, run->id, run->backend));
    if (run->dtype != x.dtype)
      c.at("dtype").fail(fmt::format("is '{}' but run '{}' is '{}'", x.dtype, run->id, run->dtype));
  }
  must_agree(c.at("speedup"), x.speedup, base.time_s.median / cand.time_s.median,
             "the baseline's time_s.median / the candidate's");
  const bool measured = x.bytes_basis == BytesBasis::measured;
  if (measured && !(base.bytes.measured && cand.bytes.measured && *base.bytes.measured > 0))
    c.at("bytes_basis").fail("says measured but the runs lack measured bytes");
  const double base_bytes = measured ? *base.bytes.measured : base.bytes.model;
  const double cand_bytes = measured ? *cand.bytes.measured : cand.bytes.model;
  must_agree(c.at("bytes_ratio"), x.bytes_ratio, cand_bytes / base_bytes,
             fmt::format("the candidate's bytes.{0} / the baseline's", measured ? "measured" : "model"));
  must_agree(c.at("flops_ratio"), x.flops_ratio, base.flops.total > 0 ? cand.flops.total / base.flops.total : 0.0,
             "the candidate's flops.total / the baseline's");
  if (x.machine_drift) {
    const auto drift = probed_drift(base, cand);
    if (!drift) c.at("machine_drift").fail("needs both runs' dram_probe");
    must_agree(c.at("machine_drift"), *x.machine_drift, *drift, "the ratio of the runs' dram_probe.read, minus 1");
  }
  if (c.has("repetitions") && !c.at("repetitions").is_null()) {
    const auto fewer = static_cast<int64_t>(std::min(base.time_s.samples.size(), cand.time_s.samples.size()));
    if (x.repetitions != fewer)
      c.at("repetitions").fail(fmt::format("is {} but the runs have {} and {} samples (the smaller count)", x.repetitions,
                                           base.time_s.samples.size(), cand.time_s.samples.size()));
  }
}

PairedRounds paired_from(const JsonCursor& c) {
  PairedRounds p;
  p.rounds = c.at("rounds").integer(1, int64_t{1} << 30);
  p.speedup = c.at("speedup").positive();
  p.low = opt_positive(c, "low");
  p.high = opt_positive(c, "high");
  if (c.has("extra_rounds")) p.extra_rounds = c.at("extra_rounds").integer(0, p.rounds);
  if (p.low.has_value() != p.high.has_value()) c.fail("low and high must be given together");
  if (p.low && !(*p.low <= p.speedup && p.speedup <= *p.high))
    c.at("speedup").fail(fmt::format("{:.6g} lies outside its interval [low, high] = [{:.6g}, {:.6g}]", p.speedup,
                                     *p.low, *p.high));
  if (const auto sittings = c.opt("sittings"); sittings && !sittings->is_null()) {
    // Each sitting's speedup, the suite's and the re-measurement's: two, only when the
    // re-measurement added some of the rounds, and inside the interval stretched to them.
    if (!(p.extra_rounds > 0 && p.extra_rounds < p.rounds))
      sittings->fail("is given only when extra_rounds is some but not all of rounds (two sittings)");
    const auto items = sittings->items();
    if (items.size() != 2) sittings->fail(fmt::format("must list two speedups, one per sitting (lists {})", items.size()));
    for (const auto& item : items) {
      p.sittings.push_back(item.positive());
      if (p.low && !(*p.low <= p.sittings.back() && p.sittings.back() <= *p.high))
        item.fail(fmt::format("{:.6g} lies outside the interval [low, high] = [{:.6g}, {:.6g}], which covers each sitting",
                              p.sittings.back(), *p.low, *p.high));
    }
  }
  if (auto k = c.opt("contention"); k && !k->is_null()) {
    p.contention = run_contention_from(*k);
    if (p.contention->repetitions > p.rounds)
      k->at("repetitions").fail(fmt::format("{} exceeds the {} rounds", p.contention->repetitions, p.rounds));
  }
  return p;
}

json paired_json(const PairedRounds& p) {
  json out = {{"rounds", p.rounds}, {"speedup", p.speedup}, {"low", p.low ? json(*p.low) : json(nullptr)},
              {"high", p.high ? json(*p.high) : json(nullptr)}};
  if (p.extra_rounds > 0) out["extra_rounds"] = p.extra_rounds;  // absent: none, as in files from before it
  if (!p.sittings.empty()) out["sittings"] = p.sittings;          // absent: one sitting
  if (p.contention) out["contention"] = to_json(*p.contention);   // absent: not measured
  return out;
}

NoiseFloor noise_floor_from(const JsonCursor& c) {
  NoiseFloor f;
  f.pair = name_of(c.at("pair"));
  f.run = name_of(c.at("run"));
  f.rounds = paired_from(c.at("paired"));
  if (!f.rounds.has_interval()) c.at("paired").fail("a noise floor needs an interval (low and high)");
  f.floor = c.at("floor").non_negative();
  const double expected = std::max(*f.rounds.high, 1 / *f.rounds.low) - 1;
  if (std::abs(f.floor - expected) > 1e-9 * (1 + expected))
    c.at("floor").fail(fmt::format("is {:.6g} but max(high, 1 / low) - 1 of its interval is {:.6g}", f.floor, expected));
  return f;
}

ComparedRun compared_from(const JsonCursor& c) {
  return {name_of(c.at("variant")), name_of(c.at("impl")), name_of(c.at("run"))};
}

Comparison comparison_from(const JsonCursor& c) {
  Comparison x;
  x.pair = name_of(c.at("pair"));
  x.question = c.at("question").string(kMaxTextLength);
  x.baseline = compared_from(c.at("baseline"));
  x.candidate = compared_from(c.at("candidate"));
  x.shape = shape_from(c.at("shape"));
  x.backend = c.at("backend").one_of({"cpu", "cuda"});
  x.dtype = c.at("dtype").one_of({"fp32", "bf16", "fp16"});
  x.speedup = c.at("speedup").positive();
  x.bytes_ratio = c.at("bytes_ratio").non_negative();
  x.bytes_basis = c.has("bytes_basis") ? basis_from(c.at("bytes_basis")) : BytesBasis::model;
  x.flops_ratio = c.at("flops_ratio").non_negative();
  // null: no interval (too few repetitions); files written before intervals existed
  // carry the runs' largest cv here and no interval.
  x.noise = c.at("noise").is_null() ? std::numeric_limits<double>::infinity() : c.at("noise").non_negative();
  x.speedup_low = opt_positive(c, "speedup_low");
  x.speedup_high = opt_positive(c, "speedup_high");
  if (x.speedup_low.has_value() != x.speedup_high.has_value())
    c.fail("speedup_low and speedup_high must be given together");
  if (x.speedup_low && *x.speedup_low > *x.speedup_high) c.fail("speedup_low is above speedup_high");
  if (auto p = c.opt("p_value")) x.p_value = p->fraction();
  x.hodges_lehmann = opt_positive(c, "hodges_lehmann");
  if (auto n = c.opt("repetitions")) x.repetitions = n->integer(1, int64_t{1} << 40);
  if (auto d = c.opt("machine_drift")) x.machine_drift = d->non_negative();
  if (auto p = c.opt("paired"); p && !p->is_null()) x.paired = paired_from(*p);
  x.level_change = opt_string(c, "level_change", kMaxTextLength);
  if (auto by = c.opt("claimed_by"); by && !by->is_null()) {
    for (const auto& id : by->items()) x.claimed_by.push_back(id.string(kMaxNameLength));
    if (x.claimed_by.empty()) by->fail("must name a claim when given (absent: a catalogue comparison)");
  }
  if (x.speedup_low && (x.speedup < *x.speedup_low || x.speedup > *x.speedup_high))
    c.at("speedup").fail(fmt::format("{:.6g} lies outside its interval [speedup_low, speedup_high] = [{:.6g}, {:.6g}]",
                                     x.speedup, *x.speedup_low, *x.speedup_high));
  return x;
}

json compared_json(const ComparedRun& r) { return {{"variant", r.variant}, {"impl", r.impl}, {"run", r.run}}; }

// The one table of each enum's names: written by to_json, read back by the readers below.
constexpr std::pair<EvidenceKind, std::string_view> kEvidenceKindNames[] = {{EvidenceKind::measured, "measured"},
                                                                           {EvidenceKind::model, "model"}};
constexpr std::pair<Cause, std::string_view> kCauseNames[] = {{Cause::architecture, "architecture"},
                                                              {Cause::implementation, "implementation"},
                                                              {Cause::machine, "machine"},
                                                              {Cause::noise, "noise"}};

template <typename Enum, size_t N>
std::string_view name_in(const std::pair<Enum, std::string_view> (&table)[N], Enum value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return table[0].second;
}

// The enum named by the value at `c`: one of the table's names, else InputError naming them.
template <typename Enum, size_t N>
Enum from_name(const std::pair<Enum, std::string_view> (&table)[N], const JsonCursor& c) {
  std::string_view names[N];
  for (size_t i = 0; i < N; ++i) names[i] = table[i].second;
  const std::string name = c.one_of(std::span<const std::string_view>(names, N));
  for (const auto& [e, n] : table)
    if (n == name) return e;
  return table[0].first;
}

Verdict verdict_from(const JsonCursor& c) {
  const std::string v = c.one_of({"holds", "fails", "inconclusive", "not measured"});
  if (v == "holds") return Verdict::holds;
  if (v == "fails") return Verdict::fails;
  if (v == "inconclusive") return Verdict::inconclusive;
  return Verdict::not_measured;
}

ClaimVerdict claim_from(const JsonCursor& c) {
  ClaimVerdict v;
  v.id = name_of(c.at("id"));
  v.statement = c.at("statement").string(kMaxTextLength);
  v.source = c.at("source").string(kMaxTextLength);
  v.kind = c.at("kind").string();
  v.verdict = verdict_from(c.at("verdict"));
  v.expected = c.at("expected").string(kMaxTextLength);
  v.measured = c.at("measured").string(kMaxTextLength);
  for (const auto& e : c.at("evidence").items())
    v.evidence.push_back({opt_string(e, "run"), e.at("metric").string(), opt_number(e, "value")});
  v.reason = opt_string(c, "reason", kMaxTextLength);
  if (auto cause = c.opt("cause"); cause && !cause->is_null()) v.cause = from_name(kCauseNames, *cause);
  v.cause_detail = opt_string(c, "cause_detail", kMaxTextLength);
  v.untrustworthy = opt_string(c, "untrustworthy", kMaxTextLength);
  if (v.cause && v.verdict != Verdict::fails && v.verdict != Verdict::inconclusive)
    c.at("cause").fail("only a fails or inconclusive verdict has a cause");
  v.chart = c.at("chart").string();
  if (auto f = c.opt("claims_file")) v.claims_file = f->string(kMaxTextLength);
  if (auto k = c.opt("evidence_kind")) {
    v.evidence_kind = from_name(kEvidenceKindNames, *k);
  } else {
    // Files written before evidence kinds: a speed comparison, or a number read from a
    // time or a counter, is measured; the rest came from the cost model.
    v.evidence_kind = v.kind == "faster" ? EvidenceKind::measured : EvidenceKind::model;
    for (const auto& e : v.evidence)
      if (e.metric.find("time") != std::string::npos || e.metric.find("measured") != std::string::npos ||
          e.metric.rfind("achieved", 0) == 0 || e.metric == "speedup" || e.metric == "noise")
        v.evidence_kind = EvidenceKind::measured;
  }
  if (auto t = c.opt("cases")) {
    constexpr int64_t kMax = int64_t{1} << 40;
    if (auto n = t->opt("holds")) v.cases.holds = n->integer(0, kMax);
    if (auto n = t->opt("fails")) v.cases.fails = n->integer(0, kMax);
    if (auto n = t->opt("inconclusive")) v.cases.inconclusive = n->integer(0, kMax);
    if (auto n = t->opt("not_measured")) v.cases.not_measured = n->integer(0, kMax);
  }
  return v;
}

}  // namespace

// ---- checks of the types whose fields are declared in results_model.h ----------------

void TimeStats::check(const JsonCursor& c) const {
  if (min > max) c.at("min").fail("is larger than max");
  if (samples.empty()) c.at("samples").fail("must hold at least one sample");
}

void Flops::check(const JsonCursor& c) {
  (void)c.at("source").one_of({"analytic", "cupti"});
  if (!c.has("analytic_total")) analytic_total = total;
}

void Bytes::check(const JsonCursor& c) const {
  if (measured_source) (void)c.at("measured_source").one_of({"cupti"});
}

void read_field(const JsonCursor& c, BytesBasis& basis, Range) { basis = basis_from(c); }

void RooflinePlacement::check(const JsonCursor& c) const {
  if (bandwidth_roof.has_value() != bandwidth.has_value()) c.fail("bandwidth_roof and bandwidth go together");
  if (compute_roof.has_value() != compute.has_value()) c.fail("compute_roof and compute go together");
  if (launch_roof.has_value() != launch.has_value()) c.fail("launch_roof and launch go together");
}

void PredictedTime::check(const JsonCursor& c) const { (void)c.at("bound").one_of({"memory", "compute", "latency"}); }

void DramProbe::check(const JsonCursor& c) const {
  if (samples > (1 << 30)) (void)c.at("samples").integer(1, 1 << 30);  // says why
  if (read_best && *read_best < read) c.at("read_best").fail("the best probe is at least the median (read)");
  if (copy_nt_best && *copy_nt_best < copy_nt) c.at("copy_nt_best").fail("the best probe is at least the median (copy_nt)");
}

void Breakdown::check(const JsonCursor& c) const { (void)c.at("time_source").one_of({"phase_timers", "cupti", "none"}); }

void Kernels::check(const JsonCursor& c) const {
  if (dropped_records > kMaxCount) (void)c.at("dropped_records").integer(0, kMaxCount);  // says why
}

void KernelTime::check(const JsonCursor& c) const {
  (void)launch_dims(c.at("grid"));
  (void)launch_dims(c.at("block"));
}

// ---- names ---------------------------------------------------------------------------

std::string_view to_string(CeilingKind kind) {
  return kind == CeilingKind::bandwidth ? "bandwidth" : kind == CeilingKind::compute ? "compute" : "latency";
}
std::string_view to_string(BytesBasis basis) { return basis == BytesBasis::model ? "model" : "measured"; }
std::string_view to_string(Bound bound) {
  return bound == Bound::memory ? "memory" : bound == Bound::compute ? "compute" : "latency";
}
std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::holds: return "holds";
    case Verdict::fails: return "fails";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::not_measured: return "not measured";
  }
  return "not measured";
}

std::string_view to_string(EvidenceKind kind) { return name_in(kEvidenceKindNames, kind); }
std::string_view to_string(Cause cause) { return name_in(kCauseNames, cause); }

std::string_view to_string(WarningKind kind) {
  switch (kind) {
    case WarningKind::contention: return "contention";
    case WarningKind::disturbed_runs: return "disturbed_runs";
    case WarningKind::roof_faults: return "roof_faults";
    case WarningKind::unstable_ceilings: return "unstable_ceilings";
    case WarningKind::curve_set_aside: return "curve_set_aside";
    case WarningKind::roofs_moved: return "roofs_moved";
    case WarningKind::unmeasurable_pairs: return "unmeasurable_pairs";
    case WarningKind::untrustworthy_claims: return "untrustworthy_claims";
  }
  return "contention";
}

std::string_view to_string(Shown shown) {
  switch (shown) {
    case Shown::faster: return "faster";
    case Shown::slower: return "slower";
    case Shown::within_noise: return "within noise";
    case Shown::no_interval: return "no interval";
  }
  return "no interval";
}

// ---- catalogue helpers -------------------------------------------------------------

std::vector<std::string> CataloguePair::variants() const {
  std::vector<std::string> out;
  for (const auto& c : combos)
    if (std::find(out.begin(), out.end(), c.variant) == out.end()) out.push_back(c.variant);
  return out;
}

std::vector<std::string> CataloguePair::impls() const {
  std::vector<std::string> out;
  for (const auto& c : combos)
    if (std::find(out.begin(), out.end(), c.impl) == out.end()) out.push_back(c.impl);
  return out;
}

Catalogue catalogue_without_pairs() {
  Catalogue c;
  c.charts = {std::string(kRooflineChart), std::string(kBlockSharesChart), std::string(kRunsTableChart)};
  return c;
}

const CataloguePair* Catalogue::find(std::string_view pair) const {
  for (const auto& p : pairs)
    if (p.name == pair) return &p;
  return nullptr;
}

std::vector<std::pair<std::string, int64_t>> Catalogue::ordered(const Shape& shape) const {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& d : dimension_order)
    if (auto it = shape.find(d); it != shape.end()) out.emplace_back(d, it->second);
  for (const auto& [d, v] : shape)
    if (std::find(dimension_order.begin(), dimension_order.end(), d) == dimension_order.end()) out.emplace_back(d, v);
  return out;
}

std::string Catalogue::label(const Shape& shape, std::string_view separator, const std::vector<std::string>& skip) const {
  std::string out;
  for (const auto& [d, v] : ordered(shape)) {
    if (std::find(skip.begin(), skip.end(), d) != skip.end()) continue;
    if (!out.empty()) out += separator;
    out += fmt::format("{}={}", d, v);
  }
  return out;
}

std::vector<std::string> merge_dimension_orders(const std::vector<std::vector<std::string>>& sequences) {
  // Kahn's topological sort over "a comes before b" edges between neighbours of each
  // sequence, always taking the first-seen dimension among those free to go next.
  std::vector<std::string> names;  // first-appearance order
  std::map<std::string, size_t> index;
  for (const auto& seq : sequences)
    for (const auto& d : seq)
      if (index.emplace(d, names.size()).second) names.push_back(d);
  const size_t n = names.size();
  std::vector<std::set<size_t>> after(n);
  std::vector<size_t> before(n, 0);
  for (const auto& seq : sequences)
    for (size_t i = 1; i < seq.size(); ++i) {
      const size_t a = index[seq[i - 1]], b = index[seq[i]];
      if (a != b && after[a].insert(b).second) ++before[b];
    }
  std::vector<std::string> out;
  std::vector<bool> placed(n, false);
  while (out.size() < n) {
    size_t next = n;
    for (size_t i = 0; i < n && next == n; ++i)
      if (!placed[i] && before[i] == 0) next = i;
    for (size_t i = 0; i < n && next == n; ++i)  // a cycle: the sequences disagree
      if (!placed[i]) next = i;
    placed[next] = true;
    out.push_back(names[next]);
    for (size_t b : after[next])
      if (before[b] > 0) --before[b];
  }
  return out;
}

std::string chart_id_for_pair(std::string_view pair) {
  std::string id = "pair-";
  for (char ch : pair) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) id += ch;
    else if (ch >= 'A' && ch <= 'Z') id += static_cast<char>(ch - 'A' + 'a');
    else if (id.back() != '-') id += '-';
  }
  while (id.size() > 5 && id.back() == '-') id.pop_back();
  if (id.size() > 100) id.resize(100);
  return id;
}

// ---- Results -------------------------------------------------------------------------

const Ceiling* Results::ceiling(std::string_view name) const {
  for (const auto& c : ceilings)
    if (c.name == name) return &c;
  return nullptr;
}

bool Results::index() {
  run_index_.clear();
  for (size_t i = 0; i < runs.size(); ++i) run_index_.emplace(runs[i].id, i);
  return run_index_.size() == runs.size();
}

const Run* Results::run(std::string_view id) const {
  if (run_index_.size() == runs.size()) {
    auto it = run_index_.find(id);
    return it == run_index_.end() ? nullptr : &runs[it->second];
  }
  for (const auto& r : runs)
    if (r.id == id) return &r;
  return nullptr;
}

const Findings& Results::decided() const {
  if (!findings)
    throw std::logic_error("results read before the analysis decided their findings (lmroof::decide, "
                           "analysis/results/findings.h)");
  return *findings;
}

const ComparisonEvidence& Results::evidence(const Comparison& comparison) const {
  const Findings& f = decided();
  const auto at = static_cast<size_t>(&comparison - comparisons.data());
  if (&comparison < comparisons.data() || at >= comparisons.size() || at >= f.comparison_evidence.size())
    throw std::logic_error("evidence asked for a comparison that is not this document's, or decided before it was added");
  return f.comparison_evidence[at];
}

std::optional<std::string> Results::judged_level(const Run& run) const {
  const Findings& f = decided();
  if (const auto it = f.judged_levels.find(run.id); it != f.judged_levels.end()) return it->second;
  return std::nullopt;
}

const RoofFault* Results::roof_fault(const Run& run) const {
  for (const RoofFault& fault : decided().roof_faults)
    if (fault.run == run.id) return &fault;
  return nullptr;
}

const NoiseFloor* Results::noise_floor(std::string_view pair) const {
  for (const auto& f : noise_floors)
    if (f.pair == pair) return &f;
  return nullptr;
}

const Comparison* Results::comparison(std::string_view baseline_run, std::string_view candidate_run) const {
  for (const auto& c : comparisons)
    if (c.baseline.run == baseline_run && c.candidate.run == candidate_run) return &c;
  return nullptr;
}

std::vector<std::string> Results::pairs_present() const {
  std::set<std::string_view> seen;
  for (const auto& r : runs) seen.insert(r.pair);
  std::vector<std::string> out;
  for (const auto& p : catalogue.pairs)
    if (seen.erase(p.name)) out.push_back(p.name);
  for (const auto& r : runs)
    if (seen.erase(r.pair)) out.push_back(r.pair);
  return out;
}

Results results_from_json(const json& doc, const std::string& file) {
  const JsonCursor root(doc, file);
  root.require_object();
  if (!root.has("schema")) root.fail(fmt::format("missing 'schema': not a {} document", kResultsSchema));
  const std::string schema = root.at("schema").string();
  if (schema != kResultsSchema)
    root.at("schema").fail(fmt::format("this lmroof reads {} documents (is {})", kResultsSchema, json(schema).dump()));
  Results r;
  r.machine = machine_from(root.at("machine"));
  r.metrics = root.opt("metrics") ? metrics_from(root.at("metrics")) : Metrics{};
  if (auto c = root.opt("catalogue")) r.catalogue = catalogue_from(*c);

  std::set<std::string> ceiling_names;
  for (const auto& c : root.at("ceilings").items()) {
    Ceiling x = ceiling_from(c);
    if (x.backend != r.machine.backend)
      c.at("backend").fail(fmt::format("a {} ceiling in a {} results file", x.backend, r.machine.backend));
    // Two values for one roof (a "read" ceiling twice, 1000x apart) leave no way to
    // tell which the runs were judged against.
    if (!ceiling_names.insert(x.name).second) c.at("name").fail(fmt::format("ceiling '{}' appears twice", x.name));
    r.ceilings.push_back(std::move(x));
  }
  if (auto curve = root.opt("bandwidth_curve"); curve && !curve->json().is_null()) {
    r.bandwidth_curve = bandwidth_curve_from(*curve, r.machine.backend);
    check_curve_in_file(*curve, *r.bandwidth_curve, r.ceilings);
  }
  if (auto k = root.opt("contention"); k && !k->is_null()) r.contention = machine_contention_from(*k);
  if (auto roofs = root.opt("roofs")) {
    auto roof = [&](std::string_view key) -> std::optional<std::string> {
      auto v = roofs->opt(key);
      if (!v) return std::nullopt;
      std::string name = v->string();
      const Ceiling* c = nullptr;
      for (const auto& x : r.ceilings)
        if (x.name == name && x.source == "measured") c = &x;
      if (!c) v->fail(fmt::format("names no measured ceiling ('{}')", name));
      return name;
    };
    r.roofs = {roof("bandwidth"), roof("vector"), roof("matrix"), roof("l2_bandwidth"), roof("launch"), std::nullopt};
    if (r.roofs.launch && r.ceiling(*r.roofs.launch)->kind != CeilingKind::latency)
      roofs->at("launch").fail(fmt::format("names '{}', which is not a latency ceiling", *r.roofs.launch));
    if (!r.roofs.launch) r.roofs.launch_reason = opt_string(*roofs, "launch_reason", kMaxTextLength);
  }
  // A file from before the launch ceilings: t0 is missing, and says why, rather than 0.
  if (!r.roofs.launch && !r.roofs.launch_reason)
    r.roofs.launch_reason = "not measured: this results.json was written before lmroof measured a launch ceiling";

  const auto runs = root.at("runs").items();
  r.runs.reserve(runs.size());
  for (const auto& c : runs) {
    Run run = run_from(c);
    if (run.backend != r.machine.backend)
      c.at("backend").fail(fmt::format("a {} run in a {} results file", run.backend, r.machine.backend));
    if (!r.catalogue.pairs.empty()) check_in_catalogue(c, run, r.catalogue);
    for (auto [roof, key] : {std::pair{&run.roofline.bandwidth_roof, "bandwidth_roof"},
                             std::pair{&run.roofline.compute_roof, "compute_roof"},
                             std::pair{&run.roofline.l2_bandwidth_roof, "l2_bandwidth_roof"},
                             std::pair{&run.roofline.launch_roof, "launch_roof"}})
      if (*roof && !ceiling_names.count(**roof))
        c.at("roofline").at(key).fail(fmt::format("names no ceiling of this file ('{}')", **roof));
    // issue 38: the roof a run was placed against is the value of the ceiling it names,
    // so the roofline drawn from the ceilings and every run's fraction agree.
    for (auto [name, value, key] :
         {std::tuple{&run.roofline.bandwidth_roof, &run.roofline.bandwidth, "bandwidth"},
          std::tuple{&run.roofline.compute_roof, &run.roofline.compute, "compute"},
          std::tuple{&run.roofline.l2_bandwidth_roof, &run.roofline.l2_bandwidth, "l2_bandwidth"},
          std::tuple{&run.roofline.launch_roof, &run.roofline.launch, "launch"}})
      if (*name && *value)
        must_agree(c.at("roofline").at(key), **value, r.ceiling(**name)->value,
                   fmt::format("the value of ceiling '{}'", **name));
    if (run.judged_against) check_judged_roof(c.at("judged_against"), *run.judged_against, ceiling_names, r.bandwidth_curve);
    if (run.judged_against_probe)
      check_judged_roof(c.at("judged_against_probe"), *run.judged_against_probe, ceiling_names, r.bandwidth_curve);
    r.runs.push_back(std::move(run));
  }
  if (!r.index()) {
    std::set<std::string_view> seen;
    for (size_t i = 0; i < r.runs.size(); ++i)
      if (!seen.insert(r.runs[i].id).second) runs[i].at("id").fail(fmt::format("run id '{}' appears twice", r.runs[i].id));
  }
  if (auto skipped = root.opt("skipped"))
    for (const auto& s : skipped->items()) r.skipped.push_back({s.at("id").string(), s.at("reason").string(kMaxTextLength)});
  std::set<std::pair<std::string, std::string>> compared;
  for (const auto& c : root.at("comparisons").items()) {
    Comparison x = comparison_from(c);
    if (!compared.insert({x.baseline.run, x.candidate.run}).second)
      c.fail(fmt::format("the comparison of '{}' with '{}' appears twice", x.candidate.run, x.baseline.run));
    for (auto [side, key] : {std::pair{&x.baseline, "baseline"}, std::pair{&x.candidate, "candidate"}})
      if (!r.run(side->run)) c.at(key).at("run").fail(fmt::format("names no run of this file ('{}')", side->run));
    check_comparison(c, x, *r.run(x.baseline.run), *r.run(x.candidate.run));
    r.comparisons.push_back(std::move(x));
  }
  if (auto floors = root.opt("noise_floors"))
    for (const auto& c : floors->items()) {
      NoiseFloor f = noise_floor_from(c);
      if (!r.run(f.run)) c.at("run").fail(fmt::format("names no run of this file ('{}')", f.run));
      // issue 38: a floor is its run's pair's, and the pair one of the catalogue's.
      if (r.run(f.run)->pair != f.pair)
        c.at("pair").fail(fmt::format("is '{}' but its run '{}' is of pair '{}'", f.pair, f.run, r.run(f.run)->pair));
      if (!r.catalogue.pairs.empty() && !r.catalogue.find(f.pair))
        c.at("pair").fail(fmt::format("pair '{}' is not in the catalogue", f.pair));
      if (r.noise_floor(f.pair)) c.at("pair").fail(fmt::format("pair '{}' has a noise floor already", f.pair));
      r.noise_floors.push_back(std::move(f));
    }
  if (auto claims = root.opt("claims")) {
    std::set<std::string> claim_ids;
    for (const auto& c : claims->items()) {
      r.claims.push_back(claim_from(c));
      if (!claim_ids.insert(r.claims.back().id).second)
        c.at("id").fail(fmt::format("claim id '{}' appears twice", r.claims.back().id));
    }
  }
  if (auto b = root.opt("bench_json")) r.bench_json = b->string(kMaxTextLength);
  return r;
}

Catalogue catalogue_from_json(const json& doc, const std::string& file) { return catalogue_from(JsonCursor(doc, file)); }
Suite suite_from_json(const json& doc, const std::string& file) { return suite_from(JsonCursor(doc, file)); }
Metrics metrics_from_json(const json& doc, const std::string& file) { return metrics_from(JsonCursor(doc, file)); }

Results load_results(const std::filesystem::path& path) {
  return results_from_json(read_json_file(path), path.string());
}

// ---- to_json -----------------------------------------------------------------------

json to_json(const Suite& s) {
  json j = {{"pairs", s.pairs ? json(*s.pairs) : json(nullptr)}, {"quick", s.quick}};
  if (s.model) j["model"] = {{"name", s.model->name}, {"source", s.model->source}, {"dims", s.model->dims}};
  return j;
}

json to_json(const Metrics& m) {
  json j = {{"source", m.source}, {"reason", opt(m.reason)}};
  if (m.chip) j["chip"] = *m.chip;
  if (!m.metrics.empty()) j["metrics"] = m.metrics;
  if (!m.dropped_metrics.empty()) j["dropped_metrics"] = m.dropped_metrics;
  if (m.passes) j["passes"] = *m.passes;
  return j;
}

json to_json(const Machine& m) {
  json j = {{"backend", m.backend}, {"cpu_model", m.cpu_model}, {"cores", m.cores}, {"threads", m.threads},
            {"host_pages", m.host_pages}, {"blas", m.blas}, {"gpu", m.gpu ? gpu_json(*m.gpu) : json(nullptr)}, {"compiler", m.compiler},
            {"build_type", m.build_type}, {"build_flags", m.build_flags}, {"cuda_compiler", opt(m.cuda_compiler)},
            {"lmroof_version", m.lmroof_version}, {"git_commit", m.git_commit}, {"date", m.date},
            {"hostname", m.hostname}, {"suite", to_json(m.suite)}};
  if (m.cpu_mhz) j["cpu_mhz"] = *m.cpu_mhz;
  if (m.bench_date) j["bench_date"] = *m.bench_date;
  return j;
}

json to_json(const Catalogue& c) {
  json pairs = json::array();
  for (const auto& p : c.pairs) {
    json combos = json::array(), cmps = json::array();
    for (const auto& v : p.combos) combos.push_back(variant_impl_json(v));
    for (const auto& x : p.comparisons) {
      cmps.push_back({{"baseline", variant_impl_json(x.baseline)}, {"candidate", variant_impl_json(x.candidate)},
                      {"question", x.question}});
      // Written only where declared, so older catalogues read back unchanged.
      if (x.less_work_control) cmps.back()["less_work_control"] = true;
    }
    json pair = {{"name", p.name}, {"title", p.title}, {"summary", p.summary}, {"chart", p.chart},
                 {"combos", combos}, {"dims", p.dims}, {"variant_dims", p.variant_dims}, {"comparisons", cmps}};
    // Written only where a pair declares one, so older catalogues read back unchanged.
    if (!p.intensity_predictions.empty()) {
      json preds = json::array();
      for (const auto& x : p.intensity_predictions) preds.push_back({{"impl", x.impl}, {"model", x.model}});
      pair["intensity_predictions"] = std::move(preds);
    }
    if (p.model_mapping) pair["model_mapping"] = model_mapping_json(*p.model_mapping);
    pairs.push_back(std::move(pair));
  }
  return {{"pairs", pairs}, {"dimension_order", c.dimension_order}, {"charts", c.charts}};
}

json to_json(const Run& r) {
  json j = {
      {"id", r.id}, {"pair", r.pair}, {"variant", r.variant}, {"impl", r.impl}, {"backend", r.backend},
      {"dtype", r.dtype}, {"shape", shape_json(r.shape)},
      {"time_s", write_fields(r.time_s)}, {"flops", write_fields(r.flops)}, {"bytes", write_fields(r.bytes)},
      {"intensity", write_fields(r.intensity)}, {"achieved", write_fields(r.achieved)}, {"roofline", write_fields(r.roofline)},
      {"bound", r.bound ? json(to_string(*r.bound)) : json(nullptr)},
      {"judged_against", r.judged_against ? judged_json(*r.judged_against) : json(nullptr)},
      {"dram_probe", write_field(r.dram_probe)},
      {"judged_against_probe", r.judged_against_probe ? judged_json(*r.judged_against_probe) : json(nullptr)},
      {"predicted_intensity", opt(r.predicted_intensity)},
      {"breakdown", write_field(r.breakdown)},
      {"kernels", write_field(r.kernels)},
      {"validated", r.validated ? validated_json(*r.validated) : json(nullptr)},
      {"predicted", write_field(r.predicted)},
  };
  if (r.contention) j["contention"] = to_json(*r.contention);  // absent: not measured
  return j;
}

json to_json(const ClaimVerdict& v) {
  json evidence = json::array();
  for (const auto& e : v.evidence) evidence.push_back({{"run", opt(e.run)}, {"metric", e.metric}, {"value", opt(e.value)}});
  return {{"id", v.id}, {"statement", v.statement}, {"source", v.source}, {"kind", v.kind},
          {"verdict", to_string(v.verdict)}, {"expected", v.expected}, {"measured", v.measured},
          {"evidence", evidence}, {"reason", opt(v.reason)}, {"chart", v.chart}, {"claims_file", v.claims_file},
          {"evidence_kind", to_string(v.evidence_kind)}, {"cause", v.cause ? json(to_string(*v.cause)) : json(nullptr)}, {"cause_detail", opt(v.cause_detail)},
          {"untrustworthy", opt(v.untrustworthy)},
          {"cases", {{"holds", v.cases.holds}, {"fails", v.cases.fails}, {"inconclusive", v.cases.inconclusive},
                     {"not_measured", v.cases.not_measured}}}};
}

json to_json(const Results& r) {
  json j;
  j["schema"] = kResultsSchema;
  j["machine"] = to_json(r.machine);
  j["metrics"] = to_json(r.metrics);
  j["catalogue"] = to_json(r.catalogue);
  j["ceilings"] = json::array();
  for (const auto& c : r.ceilings) {
    json cj = {{"name", c.name}, {"kind", to_string(c.kind)}, {"backend", c.backend}, {"value", c.value},
               {"unit", c.unit()}, {"source", c.source}, {"detail", c.detail}, {"samples", c.samples},
               {"statistic", c.statistic}};
    if (c.working_set_bytes) cj["working_set_bytes"] = *c.working_set_bytes;
    if (c.cache_bytes) cj["cache_bytes"] = *c.cache_bytes;
    if (c.threads) cj["threads"] = *c.threads;
    if (c.best_before_suite) cj["best_before_suite"] = *c.best_before_suite;
    if (c.best_after_suite) cj["best_after_suite"] = *c.best_after_suite;
    if (c.best_probed_during_suite) cj["best_probed_during_suite"] = *c.best_probed_during_suite;
    if (c.repeats) cj["repeats"] = *c.repeats;
    if (c.spread) cj["spread"] = *c.spread;
    if (c.repeats || c.unstable) cj["unstable"] = c.unstable;
    j["ceilings"].push_back(std::move(cj));
  }
  if (r.bandwidth_curve) j["bandwidth_curve"] = to_json(*r.bandwidth_curve);
  if (r.contention) j["contention"] = to_json(*r.contention);
  j["roofs"] = {{"bandwidth", opt(r.roofs.bandwidth)}, {"vector", opt(r.roofs.vector)},
                {"matrix", opt(r.roofs.matrix)}, {"l2_bandwidth", opt(r.roofs.l2_bandwidth)},
                {"launch", opt(r.roofs.launch)}, {"launch_reason", opt(r.roofs.launch_reason)}};
  j["runs"] = json::array();
  for (const auto& run : r.runs) j["runs"].push_back(to_json(run));
  j["skipped"] = json::array();
  for (const auto& s : r.skipped) j["skipped"].push_back({{"id", s.id}, {"reason", s.reason}});
  j["comparisons"] = json::array();
  for (const auto& x : r.comparisons) {
    j["comparisons"].push_back({{"pair", x.pair}, {"question", x.question}, {"baseline", compared_json(x.baseline)},
                                {"candidate", compared_json(x.candidate)}, {"shape", shape_json(x.shape)},
                                {"backend", x.backend}, {"dtype", x.dtype}, {"speedup", x.speedup},
                                {"bytes_ratio", x.bytes_ratio}, {"bytes_basis", to_string(x.bytes_basis)},
                                {"flops_ratio", x.flops_ratio},
                                {"noise", std::isfinite(x.noise) ? json(x.noise) : json(nullptr)},
                                {"speedup_low", opt(x.speedup_low)}, {"speedup_high", opt(x.speedup_high)},
                                {"p_value", opt(x.p_value)}, {"hodges_lehmann", opt(x.hodges_lehmann)}, {"machine_drift", opt(x.machine_drift)},
                                {"repetitions", x.repetitions > 0 ? json(x.repetitions) : json(nullptr)},
                                {"paired", x.paired ? paired_json(*x.paired) : json(nullptr)}});
    if (x.level_change) j["comparisons"].back()["level_change"] = *x.level_change;
    if (!x.claimed_by.empty()) j["comparisons"].back()["claimed_by"] = x.claimed_by;  // absent: the catalogue's
  }
  j["noise_floors"] = json::array();
  for (const auto& f : r.noise_floors)
    j["noise_floors"].push_back({{"pair", f.pair}, {"run", f.run}, {"paired", paired_json(f.rounds)}, {"floor", f.floor}});
  j["claims"] = json::array();
  for (const auto& v : r.claims) j["claims"].push_back(to_json(v));
  j["bench_json"] = r.bench_json;
  return j;
}

// ---- metrics by name -------------------------------------------------------------------

namespace {
using Getter = std::function<std::optional<double>(const Run&)>;
const std::vector<std::pair<std::string, Getter>>& metric_table() {
  static const std::vector<std::pair<std::string, Getter>> table = {
      {"time_s.median", [](const Run& r) { return std::optional(r.time_s.median); }},
      {"time_s.min", [](const Run& r) { return std::optional(r.time_s.min); }},
      {"time_s.max", [](const Run& r) { return std::optional(r.time_s.max); }},
      {"time_s.mean", [](const Run& r) { return std::optional(r.time_s.mean); }},
      {"time_s.cv", [](const Run& r) { return std::optional(r.time_s.cv); }},
      {"flops.total", [](const Run& r) { return std::optional(r.flops.total); }},
      {"flops.matrix", [](const Run& r) { return std::optional(r.flops.matrix); }},
      {"flops.vector", [](const Run& r) { return std::optional(r.flops.vector); }},
      {"flops.special", [](const Run& r) { return std::optional(r.flops.special); }},
      {"flops.analytic_total", [](const Run& r) { return std::optional(r.flops.analytic_total); }},
      {"bytes.minimum", [](const Run& r) { return std::optional(r.bytes.minimum); }},
      {"bytes.model", [](const Run& r) { return std::optional(r.bytes.model); }},
      {"bytes.measured", [](const Run& r) { return r.bytes.measured; }},
      {"bytes.measured_l2", [](const Run& r) { return r.bytes.measured_l2; }},
      {"bytes.model_over_minimum", [](const Run& r) { return r.bytes.model_over_minimum; }},
      {"bytes.measured_over_minimum", [](const Run& r) { return r.bytes.measured_over_minimum; }},
      {"intensity.value", [](const Run& r) { return std::optional(r.intensity.value); }},
      {"intensity.minimum", [](const Run& r) { return r.intensity.minimum; }},
      {"intensity.model", [](const Run& r) { return std::optional(r.intensity.model); }},
      {"intensity.measured", [](const Run& r) { return r.intensity.measured; }},
      {"intensity.measured_l2", [](const Run& r) { return r.intensity.measured_l2; }},
      {"achieved.flop_per_s", [](const Run& r) { return std::optional(r.achieved.flop_per_s); }},
      {"achieved.byte_per_s", [](const Run& r) { return std::optional(r.achieved.byte_per_s); }},
      {"achieved.byte_per_s_minimum", [](const Run& r) { return std::optional(r.achieved.byte_per_s_minimum); }},
      {"roofline.bandwidth", [](const Run& r) { return r.roofline.bandwidth; }},
      {"roofline.compute", [](const Run& r) { return r.roofline.compute; }},
      {"roofline.ridge", [](const Run& r) { return r.roofline.ridge; }},
      {"roofline.ridge_probed", [](const Run& r) { return probed_ridge(r); }},
      {"roofline.attainable_flop_per_s", [](const Run& r) { return r.roofline.attainable_flop_per_s; }},
      {"roofline.efficiency", [](const Run& r) { return r.roofline.efficiency; }},
      {"roofline.bandwidth_utilization", [](const Run& r) { return r.roofline.bandwidth_utilization; }},
      {"roofline.l2_bandwidth", [](const Run& r) { return r.roofline.l2_bandwidth; }},
      {"roofline.l2_bandwidth_utilization", [](const Run& r) { return r.roofline.l2_bandwidth_utilization; }},
  };
  return table;
}
}  // namespace

const std::vector<std::string>& run_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, get] : metric_table()) out.push_back(name);
    return out;
  }();
  return names;
}

bool is_run_metric(std::string_view name) {
  const auto& names = run_metric_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

ClaimVerdict claim_verdict_from_json(const JsonCursor& c) { return claim_from(c); }

std::optional<double> run_metric(const Run& run, std::string_view name) {
  for (const auto& [n, get] : metric_table())
    if (n == name) return get(run);
  throw std::invalid_argument(fmt::format("unknown run metric '{}'", name));
}

}  // namespace lmroof::model
