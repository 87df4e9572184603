// Reading a claims file: YAML (JSON is YAML too) into Claim, with every problem
// reported as "FILE:LINE: problem". Format: docs/claims.md.
#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/claims/claims.h"
#include "analysis/claims/claims_internal.h"
#include "analysis/model/json_input.h"
#include "analysis/trace/cost_models.h"
#include "analysis/trace/op_classes.h"

namespace lmroof {

ClaimsFileError::ClaimsFileError(std::string file, int line, const std::string& problem)
    : std::runtime_error(line > 0 ? fmt::format("{}:{}: {}", file, line, problem) : fmt::format("{}: {}", file, problem)),
      file_(std::move(file)),
      line_(line) {}

const char* to_string(CheckKind kind) {
  switch (kind) {
    case CheckKind::bound: return "bound";
    case CheckKind::faster: return "faster";
    case CheckKind::ratio: return "ratio";
    case CheckKind::share: return "share";
    case CheckKind::scaling: return "scaling";
    case CheckKind::class_share: return "class_share";
  }
  return "?";
}

const char* to_string(Grouping grouping) { return grouping == Grouping::ivanov ? "ivanov" : "lmroof"; }

namespace {
// The names trace.json gives a class enum's values, in its order.
template <typename Class, size_t N>
std::vector<std::string> class_names(const Class (&all)[N]) {
  std::vector<std::string> out;
  for (const auto c : all) out.emplace_back(lmroof::to_string(c));
  return out;
}
}  // namespace

const std::vector<std::string>& grouping_classes(Grouping grouping) {
  // Both lists are lmroof's one vocabulary (kernels/run_names/op_class.h: the rows
  // trace.json writes), so a class added there is claimable at once. Ivanov et al.
  // (MLSys 2021, table "Proportions for operator classes in PyTorch") have three; the
  // trace adds communication, memory and other, which their table has no row for.
  static const std::vector<std::string> lmroof = class_names(kAllOpClasses);
  static const std::vector<std::string> ivanov = class_names(kAllIvanovClasses);
  return grouping == Grouping::ivanov ? ivanov : lmroof;
}

namespace claims_detail {

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

}  // namespace claims_detail

namespace {

using claims_detail::join;

int line_of(const YAML::Node& n) {
  const auto m = n.Mark();
  return m.is_null() ? 0 : m.line + 1;
}

// Flow collections nested deeper than this, or block indentation deeper than
// kMaxIndent columns, are refused before yaml-cpp (which recurses) sees them.
constexpr int kMaxYamlDepth = 64;
constexpr size_t kMaxIndent = 512;

// Counts brackets without regard to quoting: a quoted string full of unbalanced
// brackets may be refused, but nothing deep reaches the parser.
void check_depth(const std::string& text, const std::string& file) {
  int depth = 0, line = 1;
  size_t indent = 0;
  bool at_line_start = true;
  for (char ch : text) {
    if (ch == '\n') {
      ++line, indent = 0, at_line_start = true;
      continue;
    }
    if (at_line_start && (ch == ' ' || ch == '-' || ch == '\t')) {
      if (++indent > kMaxIndent) throw ClaimsFileError(file, line, fmt::format("nested deeper than {} columns", kMaxIndent));
      continue;
    }
    at_line_start = false;
    if (ch == '[' || ch == '{') {
      if (++depth > kMaxYamlDepth) throw ClaimsFileError(file, line, fmt::format("nested deeper than {} levels", kMaxYamlDepth));
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
  }
}

class Reader {
 public:
  Reader(std::string file, const model::Catalogue& catalogue, ClaimsTarget target)
      : file_(std::move(file)), catalogue_(catalogue), target_(target) {}
  const model::Catalogue& catalogue() const { return catalogue_; }
  ClaimsTarget target() const { return target_; }
  const std::vector<std::string>& dims() const { return catalogue_.dimension_order; }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& problem) const {
    throw ClaimsFileError(file_, line_of(at), problem);
  }
  [[noreturn]] void fail(int line, const std::string& problem) const { throw ClaimsFileError(file_, line, problem); }

  // A mapping whose keys are all in `allowed`; duplicate keys are an error.
  void require_map(const YAML::Node& n, const std::string& what, const std::vector<std::string>& allowed) const {
    if (!n.IsMap()) fail(n, fmt::format("{} must be a mapping (key: value lines)", what));
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const auto key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(kv.first, fmt::format("unknown field '{}' in {} (expected {})", key, what, join(allowed, ", ")));
      if (!seen.insert(key).second) fail(kv.first, fmt::format("field '{}' appears twice in {}", key, what));
    }
  }

  std::string string(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, fmt::format("'{}' must be a string", what));
    if (n.Scalar().size() > model::kMaxTextLength)
      fail(n, fmt::format("'{}' is longer than {} characters", what, model::kMaxTextLength));
    return n.Scalar();
  }

  std::string required_string(const YAML::Node& map, const std::string& key, const std::string& owner) const {
    const auto n = map[key];
    if (!n) fail(map, fmt::format("{} has no '{}'", owner, key));
    auto s = string(n, key);
    if (s.empty()) fail(n, fmt::format("'{}' of {} is empty", key, owner));
    return s;
  }

  double number(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, fmt::format("'{}' must be a number", what));
    const std::string s = n.Scalar();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
      fail(n, fmt::format("'{}' must be a number, got '{}'", what, s));
    return v;
  }

  int64_t integer(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, fmt::format("'{}' must be a whole number", what));
    const std::string s = n.Scalar();
    int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
      fail(n, fmt::format("'{}' must be a whole number, got '{}'", what, s));
    return v;
  }

  bool boolean(const YAML::Node& n, const std::string& what) const {
    if (n.IsScalar()) {
      const auto& s = n.Scalar();
      if (s == "true" || s == "yes") return true;
      if (s == "false" || s == "no") return false;
    }
    fail(n, fmt::format("'{}' must be true or false", what));
  }

  // A string or a list of strings.
  std::vector<std::string> strings(const YAML::Node& n, const std::string& what) const {
    std::vector<std::string> out;
    if (n.IsScalar()) {
      out.push_back(n.Scalar());
    } else if (n.IsSequence()) {
      for (const auto& item : n) out.push_back(string(item, what));
    } else {
      fail(n, fmt::format("'{}' must be a string or a list of strings", what));
    }
    if (out.empty()) fail(n, fmt::format("'{}' is an empty list", what));
    return out;
  }

  // [min, max] with either end null, or {min: x, max: y}.
  Range range(const YAML::Node& n, const std::string& what) const {
    Range r;
    if (n.IsSequence()) {
      if (n.size() != 2) fail(n, fmt::format("'{}' must be [min, max] (use null for an open end)", what));
      if (!n[0].IsNull()) r.min = number(n[0], what);
      if (!n[1].IsNull()) r.max = number(n[1], what);
    } else if (n.IsMap()) {
      require_map(n, fmt::format("'{}'", what), {"min", "max"});
      if (n["min"] && !n["min"].IsNull()) r.min = number(n["min"], what + ".min");
      if (n["max"] && !n["max"].IsNull()) r.max = number(n["max"], what + ".max");
    } else {
      fail(n, fmt::format("'{}' must be [min, max] or {{min: x, max: y}}", what));
    }
    if (!r.min && !r.max) fail(n, fmt::format("'{}' has neither a min nor a max", what));
    if (r.min && r.max && *r.min > *r.max) fail(n, fmt::format("'{}' has min {} > max {}", what, *r.min, *r.max));
    return r;
  }

  std::vector<std::pair<std::string, int64_t>> shape(const YAML::Node& n, const std::string& what) const {
    if (!n.IsMap()) fail(n, fmt::format("'{}' must be a mapping of dimension: value", what));
    std::vector<std::pair<std::string, int64_t>> out;
    const auto& dims = this->dims();
    for (const auto& kv : n) {
      const auto dim = string(kv.first, "dimension");
      if (std::find(dims.begin(), dims.end(), dim) == dims.end())
        fail(kv.first, fmt::format("unknown dimension '{}' in {} (known: {})", dim, what, join(dims, ", ")));
      for (const auto& [d, _] : out)
        if (d == dim) fail(kv.first, fmt::format("dimension '{}' appears twice in {}", dim, what));
      const auto v = integer(kv.second, dim);
      if (v <= 0) fail(kv.second, fmt::format("dimension '{}' must be positive, got {}", dim, v));
      out.emplace_back(dim, v);
    }
    return out;
  }

  RunSelector selector(const YAML::Node& n, const std::string& what) const {
    require_map(n, fmt::format("run selector '{}'", what), {"pair", "variant", "impl", "backend", "dtype", "shape"});
    RunSelector s;
    s.line = line_of(n);
    s.pair = required_string(n, "pair", fmt::format("run selector '{}'", what));
    if (n["variant"]) s.variants = strings(n["variant"], "variant");
    if (n["impl"]) s.impls = strings(n["impl"], "impl");
    if (n["backend"]) {
      s.backend = string(n["backend"], "backend");
      if (*s.backend != "cpu" && *s.backend != "cuda")
        fail(n["backend"], fmt::format("unknown backend '{}' (expected cpu, cuda)", *s.backend));
    }
    if (n["dtype"]) {
      s.dtype = string(n["dtype"], "dtype");
      if (*s.dtype != "fp32" && *s.dtype != "bf16")
        fail(n["dtype"], fmt::format("unknown dtype '{}' (expected fp32, bf16)", *s.dtype));
    }
    if (n["shape"]) s.shape = shape(n["shape"], "shape");
    return s;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
  const model::Catalogue& catalogue_;
  ClaimsTarget target_;
};

// The kinds a claims file for this document may use, for messages.
const char* kinds_for(ClaimsTarget target) {
  return target == ClaimsTarget::trace ? "class_share" : "bound, faster, ratio, share, scaling";
}

CheckKind parse_kind(const Reader& r, const YAML::Node& n) {
  const auto s = r.string(n, "kind");
  if (s == "bound") return CheckKind::bound;
  if (s == "faster") return CheckKind::faster;
  if (s == "ratio") return CheckKind::ratio;
  if (s == "share") return CheckKind::share;
  if (s == "scaling") return CheckKind::scaling;
  if (s == "class_share") return CheckKind::class_share;
  r.fail(n, fmt::format("unknown check kind '{}' (expected {})", s, kinds_for(r.target())));
}

// A claim of a kind its document cannot answer, refused when the file is read rather
// than judged "not measured" after a long run or a multi-GB trace.
void require_kind_for_target(const Reader& r, const YAML::Node& n, CheckKind kind) {
  if (r.target() == ClaimsTarget::trace && kind != CheckKind::class_share)
    r.fail(n, fmt::format("a {} check is checked against a results.json; a trace.json takes kind class_share "
                          "(docs/trace.md#claims)",
                          to_string(kind)));
  if (r.target() == ClaimsTarget::results && kind == CheckKind::class_share)
    r.fail(n, "a class_share check is checked against a trace.json (lmroof trace --claims, or lmroof check CLAIMS "
              "trace.json); a results.json takes kind share");
}

std::vector<std::string> fields_for(CheckKind kind) {
  switch (kind) {
    case CheckKind::bound:
      return {"kind",   "run",        "shape",       "expect",   "margin",
              "crossing", "factor", "min_points", "noise_floor", "max_noise"};
    case CheckKind::faster:
      return {"kind",         "candidate",      "baseline", "shape",      "ignore_dims",
              "factor",       "within_noise",   "max_difference", "max_noise", "noise_floor"};
    case CheckKind::ratio:
      return {"kind",  "candidate",   "baseline",  "shape", "ignore_dims", "metric",
              "range", "noise_floor", "max_noise"};
    case CheckKind::share:
      return {"kind", "run", "shape", "class", "flop_share", "time_share", "time_over_flop_share"};
    case CheckKind::scaling:
      return {"kind",     "run",       "shape",  "metric",     "dimension",
              "exponent", "tolerance", "across", "min_points", "noise_floor", "max_noise"};
    case CheckKind::class_share:
      return {"kind", "class", "grouping", "flop_share", "byte_share", "time_share", "fraction_of_roof",
              "time_over_flop_share"};
  }
  return {};
}

// The check-level `shape` is added to every selector of the check (a selector's own
// value for the same dimension wins).
void merge_shape(RunSelector& s, const std::vector<std::pair<std::string, int64_t>>& shape) {
  for (const auto& [dim, v] : shape) {
    bool present = false;
    for (const auto& [d, _] : s.shape) present = present || d == dim;
    if (!present) s.shape.emplace_back(dim, v);
  }
}

Check parse_check(const Reader& r, const YAML::Node& n, const std::string& claim_id) {
  const std::string where = fmt::format("the check of claim '{}'", claim_id);
  if (!n.IsMap()) r.fail(n, fmt::format("{} must be a mapping", where));
  if (!n["kind"]) r.fail(n, fmt::format("{} has no 'kind' (expected {})", where, kinds_for(r.target())));
  Check c;
  c.kind = parse_kind(r, n["kind"]);
  require_kind_for_target(r, n["kind"], c.kind);
  r.require_map(n, fmt::format("a {} check", to_string(c.kind)), fields_for(c.kind));

  auto need = [&](const char* key) {
    if (!n[key]) r.fail(n, fmt::format("{} check of claim '{}' has no '{}'", to_string(c.kind), claim_id, key));
    return n[key];
  };
  auto positive = [&](const char* key, double& out) {
    if (!n[key]) return;
    out = r.number(n[key], key);
    if (out < 0) r.fail(n[key], fmt::format("'{}' must not be negative, got {}", key, out));
  };

  std::vector<std::pair<std::string, int64_t>> shared_shape;
  if (n["shape"]) shared_shape = r.shape(n["shape"], "shape");
  if (n["ignore_dims"]) {
    c.ignore_dims = r.strings(n["ignore_dims"], "ignore_dims");
    for (const auto& d : c.ignore_dims)
      if (std::find(r.dims().begin(), r.dims().end(), d) == r.dims().end())
        r.fail(n["ignore_dims"], fmt::format("unknown dimension '{}' in ignore_dims (known: {})", d, join(r.dims(), ", ")));
  }
  positive("noise_floor", c.noise_floor);
  positive("max_noise", c.max_noise);

  switch (c.kind) {
    case CheckKind::bound: {
      c.run = r.selector(need("run"), "run");
      if (n["expect"] && n["crossing"])
        r.fail(n["crossing"], fmt::format("bound check of claim '{}' has both 'expect' and 'crossing' (pick one)",
                                          claim_id));
      if (!n["expect"] && !n["crossing"])
        r.fail(n, fmt::format("bound check of claim '{}' needs 'expect: memory' (or compute) or 'crossing: "
                              "DIMENSION'",
                              claim_id));
      if (n["expect"]) {
        c.expect = r.string(n["expect"], "expect");
        if (c.expect != "memory" && c.expect != "compute")
          r.fail(n["expect"], fmt::format("'expect' must be memory or compute, got '{}'", c.expect));
        positive("margin", c.margin);
        if (c.margin >= 1) r.fail(n["margin"], fmt::format("'margin' must be below 1, got {}", c.margin));
        for (const char* key : {"factor", "min_points", "noise_floor", "max_noise"})
          if (n[key]) r.fail(n[key], fmt::format("'{}' applies only with 'crossing: DIMENSION'", key));
        break;
      }
      // crossing: the dimension along which the runs turn compute-bound
      c.crossing = r.string(n["crossing"], "crossing");
      const auto& dims = r.dims();
      if (std::find(dims.begin(), dims.end(), c.crossing) == dims.end())
        r.fail(n["crossing"],
               fmt::format("unknown dimension '{}' in crossing (known: {})", c.crossing, join(dims, ", ")));
      if (n["margin"]) r.fail(n["margin"], "'margin' applies only with 'expect'");
      c.factor = rules::kCrossingFactor;
      if (n["factor"]) {
        c.factor = r.number(n["factor"], "factor");
        if (*c.factor <= 1)
          r.fail(n["factor"], fmt::format("'factor' must be greater than 1, got {} (the measured crossing may lie "
                                          "that many times below or above the predicted one)",
                                          *c.factor));
      }
      if (n["min_points"]) {
        const auto m = r.integer(n["min_points"], "min_points");
        if (m < 3 || m > 1'000'000)
          r.fail(n["min_points"],
                 fmt::format("'min_points' must be between 3 and 1000000 for a crossing, got {}", m));
        c.min_points = static_cast<int>(m);
      }
      break;
    }
    case CheckKind::faster: {
      c.candidate = r.selector(need("candidate"), "candidate");
      c.baseline = r.selector(need("baseline"), "baseline");
      if (n["within_noise"]) c.within_noise = r.boolean(n["within_noise"], "within_noise");
      if (n["factor"]) {
        c.factor = r.number(n["factor"], "factor");
        if (*c.factor < 1)
          r.fail(n["factor"], fmt::format("'factor' must be at least 1, got {} (to claim the other way, swap "
                                          "candidate and baseline)",
                                          *c.factor));
      }
      if (c.factor && c.within_noise)
        r.fail(n, fmt::format("faster check of claim '{}' has both 'factor' and 'within_noise: true' (pick one)",
                              claim_id));
      if (!c.factor && !c.within_noise)
        r.fail(n, fmt::format("faster check of claim '{}' needs 'factor: X' or 'within_noise: true'", claim_id));
      if (!c.within_noise && n["max_difference"])
        r.fail(n["max_difference"], "'max_difference' applies only with 'within_noise: true'");
      positive("max_difference", c.max_difference);
      break;
    }
    case CheckKind::ratio: {
      c.candidate = r.selector(need("candidate"), "candidate");
      c.baseline = r.selector(need("baseline"), "baseline");
      c.metric = r.string(need("metric"), "metric");
      c.range = r.range(need("range"), "range");
      break;
    }
    case CheckKind::share: {
      c.run = r.selector(need("run"), "run");
      {
        // One operator-class vocabulary (kernels/run_names/op_class.h); "matrix" is
        // matmul's name before 2026-12-07.
        const YAML::Node& class_node = need("class");
        const std::string name = r.string(class_node, "class");
        const auto op_class = parse_op_class(name);
        if (!op_class) r.fail(class_node, fmt::format("class '{}' of claim '{}' is no operator class", name, claim_id));
        c.op_class = std::string(to_string(*op_class));
      }
      if (n["flop_share"]) c.flop_share = r.range(n["flop_share"], "flop_share");
      if (n["time_share"]) c.time_share = r.range(n["time_share"], "time_share");
      if (n["time_over_flop_share"]) c.time_over_flop_share = r.range(n["time_over_flop_share"], "time_over_flop_share");
      if (!n["flop_share"] && !n["time_share"] && !n["time_over_flop_share"])
        r.fail(n, fmt::format("share check of claim '{}' needs flop_share, time_share or time_over_flop_share",
                              claim_id));
      break;
    }
    case CheckKind::class_share: {
      if (n["grouping"]) {
        const auto g = r.string(n["grouping"], "grouping");
        if (g == "ivanov") c.grouping = Grouping::ivanov;
        else if (g != "lmroof") r.fail(n["grouping"], fmt::format("unknown grouping '{}' (expected lmroof, ivanov)", g));
      }
      c.op_class = r.string(need("class"), "class");
      const auto& classes = grouping_classes(c.grouping);
      if (std::find(classes.begin(), classes.end(), c.op_class) == classes.end())
        r.fail(n["class"], fmt::format("unknown class '{}' in the {} grouping (known: {})", c.op_class,
                                       to_string(c.grouping), join(classes, ", ")));
      const std::pair<const char*, Range*> ranges[] = {{"flop_share", &c.flop_share},
                                                       {"byte_share", &c.byte_share},
                                                       {"time_share", &c.time_share},
                                                       {"fraction_of_roof", &c.fraction_of_roof},
                                                       {"time_over_flop_share", &c.time_over_flop_share}};
      bool any = false;
      for (const auto& [key, range] : ranges)
        if (n[key]) *range = r.range(n[key], key), any = true;
      if (!any)
        r.fail(n, fmt::format("class_share check of claim '{}' needs flop_share, byte_share, time_share, "
                              "fraction_of_roof or time_over_flop_share",
                              claim_id));
      break;
    }
    case CheckKind::scaling: {
      c.run = r.selector(need("run"), "run");
      c.metric = r.string(need("metric"), "metric");
      c.dimension = r.string(need("dimension"), "dimension");
      const auto& dims = r.dims();
      if (std::find(dims.begin(), dims.end(), c.dimension) == dims.end())
        r.fail(n["dimension"], fmt::format("unknown dimension '{}' (known: {})", c.dimension, join(dims, ", ")));
      c.exponent = r.number(need("exponent"), "exponent");
      positive("tolerance", c.tolerance);
      if (n["across"]) {
        c.across = r.strings(n["across"], "across");
        for (const auto& a : c.across)
          if (a != "variant" && a != "impl")
            r.fail(n["across"], fmt::format("'across' takes variant and/or impl, got '{}'", a));
      }
      if (n["min_points"]) {
        const auto m = r.integer(n["min_points"], "min_points");
        if (m < 2 || m > 1'000'000)
          r.fail(n["min_points"], fmt::format("'min_points' must be between 2 and 1000000, got {}", m));
        c.min_points = static_cast<int>(m);
      }
      break;
    }
  }
  if (c.kind == CheckKind::ratio || c.kind == CheckKind::scaling) {
    std::string problem;
    if (!claims_detail::valid_metric(c.metric, problem)) r.fail(n["metric"], problem);
  }
  for (auto* s : {&c.run, &c.candidate, &c.baseline})
    if (!s->pair.empty()) merge_shape(*s, shared_shape);
  return c;
}

// Every pair, variant and impl a selector names must be in the registry. A pair
// registered without combos (still being written) cannot be checked further.
void check_catalogue(const Reader& r, const RunSelector& s, bool pending) {
  const model::CataloguePair* pair = r.catalogue().find(s.pair);
  if (!pair) {
    if (pending) return;
    std::vector<std::string> known;
    for (const auto& p : r.catalogue().pairs) known.push_back(p.name);
    r.fail(s.line, fmt::format("unknown pair '{}' (known: {})", s.pair, join(known, ", ")));
  }
  if (pair->combos.empty()) return;
  const std::vector<std::string> variants = pair->variants(), impls = pair->impls();
  for (const auto& v : s.variants)
    if (std::find(variants.begin(), variants.end(), v) == variants.end())
      r.fail(s.line, fmt::format("pair '{}' has no variant '{}' (known: {})", s.pair, v, join(variants, ", ")));
  for (const auto& i : s.impls)
    if (std::find(impls.begin(), impls.end(), i) == impls.end())
      r.fail(s.line, fmt::format("pair '{}' has no impl '{}' (known: {})", s.pair, i, join(impls, ", ")));
  for (const auto& v : s.variants)
    for (const auto& i : s.impls) {
      bool found = false;
      for (const auto& c : pair->combos) found = found || (c.variant == v && c.impl == i);
      if (!found && s.variants.size() == 1 && s.impls.size() == 1)
        r.fail(s.line, fmt::format("pair '{}' has no variant/impl '{}/{}'", s.pair, v, i));
    }
}

std::string default_chart(const model::Catalogue& catalogue, const Check& c) {
  switch (c.kind) {
    case CheckKind::bound:
      if (c.crossing.empty()) return std::string(model::kRooflineChart);
      break;  // a crossing is read along the pair's sweep: its pair chart
    case CheckKind::share: return std::string(model::kBlockSharesChart);
    case CheckKind::class_share: return std::string(kTraceClassesChart);
    default: break;
  }
  const bool by_run = c.kind == CheckKind::scaling || c.kind == CheckKind::bound;
  const auto* pair = catalogue.find(by_run ? c.run.pair : c.candidate.pair);
  return pair ? pair->chart : std::string(model::kRunsTableChart);
}

}  // namespace

// ---- issue 38: YAML aliases --------------------------------------------------------
// An alias (*name) repeats what its anchor holds wherever it appears: a 0.35 MB file of
// aliases to 65 KB strings expanded to 1.2 GB around the 16 MiB cap. Claims files have
// no use for them (docs/claims.md), so one is refused at its line before anything is
// built, by a pass over yaml-cpp's events that keeps nothing.
namespace {

class AliasRefuser : public YAML::EventHandler {
 public:
  explicit AliasRefuser(const std::string& file) : file_(file) {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw ClaimsFileError(file_, mark.line + 1, "a YAML alias (*name): claims files refuse aliases; write the value out");
  }
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  const std::string& file_;
};

void refuse_aliases(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  AliasRefuser refuser(file);
  try {
    parser.HandleNextDocument(refuser);  // YAML::Load reads the first document only
  } catch (const YAML::Exception& e) {
    throw ClaimsFileError(file, e.mark.is_null() ? 0 : e.mark.line + 1, "malformed YAML: " + e.msg);
  }
}

}  // namespace
// ---- end issue 38 ------------------------------------------------------------------

std::vector<Claim> parse_claims(const std::string& text, const std::string& file, const model::Catalogue& catalogue,
                                ClaimsTarget target) {
  Reader r(file, catalogue, target);
  // UTF-8 first, whatever the text came from: a byte that is not would pass YAML and
  // fail only when the verdicts are written as JSON, after a run has measured
  // everything or a trace was read (the fuzz target found it for text in memory).
  if (const auto at = model::first_invalid_utf8(text))
    throw ClaimsFileError(file, static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(*at), '\n') + 1),
                          fmt::format("invalid UTF-8 (byte 0x{:02X}); save the file as UTF-8",
                                      static_cast<unsigned char>(text[*at])));
  check_depth(text, file);
  refuse_aliases(text, file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ClaimsFileError(file, e.mark.is_null() ? 0 : e.mark.line + 1, "malformed YAML: " + e.msg);
  }
  if (!root || root.IsNull()) r.fail(0, "empty claims file (expected 'claims:' with a list of claims)");
  try {
    r.require_map(root, "the claims file", {"claims"});
    const auto list = root["claims"];
    if (!list) r.fail(root, "no 'claims:' list");
    if (!list.IsSequence()) r.fail(list, "'claims' must be a list (each claim starts with '- id: ...')");
    std::vector<Claim> out;
    std::set<std::string> ids;
    for (const auto& n : list) {
      r.require_map(n, "a claim", {"id", "statement", "source", "chart", "pending", "notes", "check"});
      Claim c;
      c.file = file;
      c.line = line_of(n);
      c.id = r.required_string(n, "id", "a claim");
      for (char ch : c.id)
        if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.')) {
          // An id holding a terminal control (ESC) is named by the character, never printed raw.
          if (const auto unsafe = model::terminal_unsafe_character(c.id))
            r.fail(n["id"], fmt::format("a claim id holds {}: ids may hold only letters, digits, '-', '_' and '.'", *unsafe));
          r.fail(n["id"], fmt::format("claim id '{}' may hold only letters, digits, '-', '_' and '.'", c.id));
        }
      if (!ids.insert(c.id).second) r.fail(n["id"], fmt::format("claim id '{}' appears twice", c.id));
      const auto owner = fmt::format("claim '{}'", c.id);
      c.statement = r.required_string(n, "statement", owner);
      c.source = r.required_string(n, "source", owner);
      if (n["pending"]) c.pending = r.string(n["pending"], "pending");
      if (n["notes"]) r.string(n["notes"], "notes");
      if (!n["check"]) r.fail(n, fmt::format("{} has no 'check'", owner));
      c.check = parse_check(r, n["check"], c.id);
      if (n["chart"] && target == ClaimsTarget::trace)
        r.fail(n["chart"], "'chart' names a chart of the results page; a trace's claims are shown by its class table");
      if (n["chart"]) {
        c.chart = r.string(n["chart"], "chart");
        const auto& charts = catalogue.charts;
        if (std::find(charts.begin(), charts.end(), c.chart) == charts.end())
          r.fail(n["chart"], fmt::format("unknown chart '{}' (known: {})", c.chart, join(charts, ", ")));
      } else {
        c.chart = default_chart(catalogue, c.check);
      }
      for (const auto* s : {&c.check.run, &c.check.candidate, &c.check.baseline})
        if (!s->pair.empty()) check_catalogue(r, *s, !c.pending.empty());
      out.push_back(std::move(c));
    }
    return out;
  } catch (const YAML::Exception& e) {  // a conversion yaml-cpp refused
    throw ClaimsFileError(file, e.mark.is_null() ? 0 : e.mark.line + 1, e.msg);
  }
}

std::vector<Claim> load_claims(const std::filesystem::path& file, const model::Catalogue& catalogue,
                               ClaimsTarget target) {
  constexpr uintmax_t kMaxClaimsBytes = 16 << 20;
  // A regular file of at most 16 MiB (a FIFO or /dev/zero is refused at once); UTF-8
  // is parse_claims' to check.
  const std::string shown = file.string();
  std::string text;
  try {
    text = model::read_text_file(file, kMaxClaimsBytes);
  } catch (const model::InputError& e) {  // "FILE: problem"
    const std::string what = e.what();
    throw ClaimsFileError(shown, 0, what.starts_with(shown + ": ") ? what.substr(shown.size() + 2) : what);
  }
  return parse_claims(text, shown, catalogue, target);
}

}  // namespace lmroof
