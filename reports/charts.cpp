// Fills the Vega-Lite chart templates from the results; see reports/charts.h.
#include "reports/charts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/numbers/numbers.h"
#include "reports/embedded_assets.h"
#include "reports/attention_chart.h"

namespace lmroof::report {

using nlohmann::json;
namespace num = lmroof::numbers;

json chart_template(std::string_view name) {
  std::string_view text;
  if (name == "roofline.vl.json") text = assets::chart_roofline();
  else if (name == "pair.vl.json") text = assets::chart_pair();
  else if (name == "block-shares.vl.json") text = assets::chart_block_shares();
  else if (name == "intensity-vs-batch.vl.json") text = assets::chart_intensity_vs_batch();
  else throw std::logic_error(fmt::format("no chart template '{}'", name));
  return json::parse(text);
}

void fill_dataset(json& spec, std::string_view name, json rows) { spec["datasets"][std::string(name)] = std::move(rows); }

std::string ivanov_category(OpClass op_class) {
  // The grouping is the analysis's (kernels/run_names/op_class.h); these are its words
  // on the chart, matching the paper's rows below.
  switch (ivanov_class(op_class, false)) {
    case IvanovClass::tensor_contraction: return "tensor contraction";
    case IvanovClass::statistical_normalization: return "normalization";
    case IvanovClass::elementwise: return "element-wise";
    default: return std::string(to_string(op_class));
  }
}

namespace {

// "tokens=4096 · d_model=1024", dimensions in the catalogue's order, `skip` left out.
std::string shape_label(const model::Results& results, const model::Shape& shape,
                        const std::vector<std::string>& skip = {}) {
  return results.catalogue.label(shape, " \u00b7 ", skip);
}

// Catalogue positions: pair i, variant j -> 10 i + j (so a pair's variants are adjacent
// in every legend and take distinct default shapes).
struct Order {
  std::map<std::string, int> pair;
  std::map<std::pair<std::string, std::string>, int> variant;
  int pair_of(const std::string& p) const {
    auto it = pair.find(p);
    return it == pair.end() ? 1000 : it->second;
  }
  int variant_of(const std::string& p, const std::string& v) const {
    auto it = variant.find({p, v});
    return it == variant.end() ? 10 * pair_of(p) + 9 : it->second;
  }
};
Order catalogue_order(const model::Results& results) {
  Order o;
  int i = 0;
  for (const auto& p : results.catalogue.pairs) {
    o.pair[p.name] = i;
    int j = 0;
    for (const auto& v : p.variants()) o.variant[{p.name, v}] = 10 * i + j++;
    ++i;
  }
  for (const auto& p : results.pairs_present())
    if (!o.pair.count(p)) o.pair[p] = i++;
  return o;
}

double positive_or_nan(double v) { return v > 0 && std::isfinite(v) ? v : std::numeric_limits<double>::quiet_NaN(); }
json number_or_null(double v) { return std::isfinite(v) && v > 0 ? json(v) : json(nullptr); }

// The analytic FLOPs (cost model) and the ones the points use on measured axes.
double analytic_flops(const model::Run& r) { return r.flops.analytic_total > 0 ? r.flops.analytic_total : r.flops.total; }
double measured_flops(const model::Run& r) { return r.flops.source == "cupti" ? r.flops.total : analytic_flops(r); }

struct Point {
  double x_minimum, x_model, x_measured, x_l2, y_analytic, y_measured;
};
Point place(const model::Run& r) {
  const double t = r.time_s.median, fa = analytic_flops(r), fm = measured_flops(r);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Point p{nan, nan, nan, nan, nan, nan};
  if (!(t > 0)) return p;
  p.x_minimum = positive_or_nan(fa / r.bytes.minimum);
  p.x_model = positive_or_nan(fa / r.bytes.model);
  if (r.bytes.measured) p.x_measured = positive_or_nan(fm / *r.bytes.measured);
  if (r.bytes.measured_l2) p.x_l2 = positive_or_nan(fm / *r.bytes.measured_l2);
  p.y_analytic = positive_or_nan(fa / t);
  if (r.bytes.measured || r.bytes.measured_l2) p.y_measured = positive_or_nan(fm / t);
  return p;
}

// A cache capacity as its datasheet gives it: "48 KiB", "2 MiB", "480 MiB".
std::string capacity_text(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return fmt::format("{:.3g} GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024) return fmt::format("{:.3g} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.3g} KiB", bytes / 1024.0);
}

// The level a run is judged at, as the roofline's legend names it: its memory level
// ("L1", "L2", "L3", "DRAM"; GPU "L2", "HBM") when memory-bound, "compute" (its roof, FP32
// FMA on a CPU, a tensor-core peak on a GPU, named in the roofs legend and its tooltip)
// when its FLOPs hold it, "sum of steps" for a composite run, "not judged" without a roof.
std::string level_judged_at(const model::Results& results, const model::Run& r) {
  const auto& j = r.judged_against;
  if (!j || !j->roof) return "not judged";
  if (j->composite) return "sum of steps";
  if (j->unit == "FLOP/s") return "compute";
  return results.judged_level(r).value_or("memory");
}

// Legend order and colours: inner levels first, one colour each (Okabe-Ito, readable by
// the colour-blind), the same for a level's points, their judged-roof ticks and the
// level's roof line, so a point is read against the line of its own colour.
const std::vector<std::pair<std::string, std::string>>& level_colours() {
  static const std::vector<std::pair<std::string, std::string>> colours = {
      {"L1", "#0072b2"}, {"L2", "#009e73"}, {"L3", "#e69f00"}, {"DRAM", "#d55e00"}, {"HBM", "#d55e00"},
      {"memory", "#cc79a7"}, {"compute", "#6f42c1"}, {"sum of steps", "#56b4e9"},
      {"not judged", "#8c959f"}};
  return colours;
}
// "#rrggbb" with each channel times `factor` (< 1: darker).
std::string darker(const std::string& colour, double factor) {
  if (colour.size() != 7 || colour[0] != '#') return colour;
  std::string out = "#";
  for (int i = 1; i < 7; i += 2) {
    const int channel = static_cast<int>(std::stoi(colour.substr(i, 2), nullptr, 16) * factor);
    out += fmt::format("{:02x}", std::clamp(channel, 0, 255));
  }
  return out;
}
std::string level_colour(const std::string& level) {
  for (const auto& [name, colour] : level_colours())
    if (name == level) return colour;
  return "#57606a";
}

}  // namespace

// A run's launch floor (FLOPs / t0) is drawn when its time is within this factor of t0.
constexpr double kLaunchFloorShown = 100;

json roofline_chart(const model::Results& results) {
  const Order order = catalogue_order(results);
  json points = json::array();
  std::map<std::string, Point> placed;
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = 0;
  double y_lo = std::numeric_limits<double>::infinity(), y_hi = 0;
  bool any_measured = false, any_l2 = false;
  for (const auto& r : results.runs) {
    const Point p = place(r);
    if (!std::isfinite(p.y_analytic) || !std::isfinite(p.x_model)) continue;
    placed[r.id] = p;
    for (double x : {p.x_minimum, p.x_model, p.x_measured, p.x_l2})
      if (std::isfinite(x)) x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
    for (double y : {p.y_analytic, p.y_measured})
      if (std::isfinite(y)) y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    any_measured |= std::isfinite(p.x_measured);
    any_l2 |= std::isfinite(p.x_l2);
    std::string intensity = fmt::format("{} / {} / {} FLOP/B", num::sig(p.x_minimum), num::sig(p.x_model),
                                        num::sig(p.x_measured));
    points.push_back({
        {"id", r.id},
        {"pair", r.pair},
        {"variant", r.variant},
        {"impl", r.impl},
        {"pair_order", order.pair_of(r.pair)},
        {"variant_order", order.variant_of(r.pair, r.variant)},
        {"shape_label", shape_label(results, r.shape)},
        {"time", num::si(r.time_s.median, "s")},
        {"time_s", r.time_s.median},
        {"achieved", num::si(p.y_analytic, "FLOP/s")},
        {"intensity", intensity},
        {"bound", r.bound ? std::string(model::to_string(*r.bound)) + "-bound" : std::string(num::kDash)},
        // The one fraction of a roof shown for a run: of the roof it is judged against, and
        // that roof's height at the run (its FLOPs over its time at the roof), drawn as a
        // tick above the point; a run above it beyond 5% is a measurement fault.
        {"judged_level", level_judged_at(results, r)},
        {"judged_roof", r.judged_against && r.judged_against->roof ? *r.judged_against->roof : std::string(num::kDash)},
        {"sol", model::sol_fraction(r.judged_against) ? num::percent(*model::sol_fraction(r.judged_against))
                                                       : std::string(num::kDash)},
        {"y_judged_roof", model::sol_fraction(r.judged_against) && std::isfinite(p.y_analytic)
                              ? json(p.y_analytic / *model::sol_fraction(r.judged_against)) : json(nullptr)},
        {"fault", results.roof_fault(r) != nullptr},
        {"x_minimum", number_or_null(p.x_minimum)},
        {"x_model", number_or_null(p.x_model)},
        {"x_measured", number_or_null(p.x_measured)},
        {"x_l2", number_or_null(p.x_l2)},
        {"y_analytic", number_or_null(p.y_analytic)},
        {"y_measured", number_or_null(p.y_measured)},
        // The launch floor and the prediction on the same axes: a run's FLOPs over t0
        // (the rate it would reach if it took only the launch time), and over its
        // predicted time; the template scales the point's y by these time ratios.
        // Drawn only within kLaunchFloorShown of the run: far above it the floor says
        // nothing about the run and would stretch the axis by decades.
        {"time_over_launch", r.roofline.launch && r.time_s.median <= kLaunchFloorShown * *r.roofline.launch
                                 ? json(r.time_s.median / *r.roofline.launch) : json(nullptr)},
        {"launch", r.roofline.launch ? num::si(*r.roofline.launch, "s") : std::string(num::kDash)},
        {"time_over_predicted", r.predicted ? json(r.time_s.median / r.predicted->time_s) : json(nullptr)},
        {"predicted", r.predicted ? fmt::format("{} ({} error, {}-bound)", num::si(r.predicted->time_s, "s"),
                                                num::percent(r.predicted->error), r.predicted->bound)
                                  : std::string(num::kDash)},
    });
    // The axes fit the points and the roofs drawn for them (their ticks); a prediction
    // or a launch floor far off is clipped, not allowed to stretch the axes by decades.
    if (const auto f = model::sol_fraction(r.judged_against)) y_hi = std::max(y_hi, p.y_analytic / *f);
  }
  if (points.empty()) return nullptr;

  // Baseline -> candidate of every comparison whose runs are both on the chart.
  json arrows = json::array();
  for (const auto& c : results.comparisons) {
    auto a = placed.find(c.baseline.run), b = placed.find(c.candidate.run);
    if (a == placed.end() || b == placed.end()) continue;
    const Point &p = a->second, &q = b->second;
    const std::string impl = c.baseline.impl == c.candidate.impl ? c.baseline.impl
                                                                 : c.baseline.impl + " \u2192 " + c.candidate.impl;
    arrows.push_back({
        {"pair", c.pair},
        {"pair_order", order.pair_of(c.pair)},
        {"label", fmt::format("{} \u2192 {} ({})", c.baseline.variant, c.candidate.variant, impl)},
        {"shape", shape_label(results, c.shape)},
        {"speedup", c.has_interval()
                        ? fmt::format("{} (95% {}\u2013{}; Hodges\u2013Lehmann {}{})", num::ratio(c.speedup),
                                      num::sig(*c.speedup_low), num::sig(*c.speedup_high),
                                      num::ratio(c.hodges_lehmann.value_or(c.speedup)),
                                      c.p_value ? "; U test p = " + num::sig(*c.p_value, 2) : std::string())
                        : num::ratio(c.speedup)},
        {"x_minimum", number_or_null(p.x_minimum)}, {"x2_minimum", number_or_null(q.x_minimum)},
        {"x_model", number_or_null(p.x_model)}, {"x2_model", number_or_null(q.x_model)},
        {"x_measured", number_or_null(p.x_measured)}, {"x2_measured", number_or_null(q.x_measured)},
        {"x_l2", number_or_null(p.x_l2)}, {"x2_l2", number_or_null(q.x_l2)},
        {"y_analytic", number_or_null(p.y_analytic)}, {"y2_analytic", number_or_null(q.y_analytic)},
        {"y_measured", number_or_null(p.y_measured)}, {"y2_measured", number_or_null(q.y_measured)},
    });
  }

  // Roofs, by the role results.roofs gives them.
  auto ceiling = [&](const std::optional<std::string>& name) -> const model::Ceiling* {
    if (!name) return nullptr;
    const model::Ceiling* c = results.ceiling(*name);
    return c && c->value > 0 ? c : nullptr;
  };
  const model::Ceiling* bandwidth = ceiling(results.roofs.bandwidth);
  const model::Ceiling* l2 = any_l2 ? ceiling(results.roofs.l2_bandwidth) : nullptr;
  struct ComputeRoof {
    const model::Ceiling* ceiling;
    std::string role;
  };
  std::vector<ComputeRoof> compute;
  if (auto* c = ceiling(results.roofs.vector)) compute.push_back({c, "vector"});
  if (auto* c = ceiling(results.roofs.matrix)) compute.push_back({c, "matrix"});
  std::sort(compute.begin(), compute.end(),
            [](const ComputeRoof& a, const ComputeRoof& b) { return a.ceiling->value > b.ceiling->value; });
  // The top compute roof and its ridge are always on the chart: they give the roofline
  // its shape even when every run is far below or left of them.
  if (!compute.empty()) {
    y_hi = std::max(y_hi, compute.front().ceiling->value);
    if (bandwidth) x_lo = std::min(x_lo, compute.front().ceiling->value / bandwidth->value),
                   x_hi = std::max(x_hi, compute.front().ceiling->value / bandwidth->value);
  }
  // A margin of kAxisMargin on each side (in log space, about a fifth of a decade): the
  // largest points and the labels of the axes stay inside.
  constexpr double kAxisMargin = 1.6;
  const double xmin = x_lo / kAxisMargin, xmax = x_hi * kAxisMargin;
  const double ymin = y_lo / kAxisMargin, ymax = y_hi * kAxisMargin;

  // Every roof is one line (two rows) with its label and colour (its level's): the "roofs"
  // legend lists them all (the L2 roof's line is drawn only under the L2 bytes basis), so no
  // label sits on the data. Its dash (solid: the DRAM and compute roofs, dotted: a memory
  // level's, dashed: the matrix roof) is in the caption.
  json roofs = json::array(), ridges = json::array();
  // Each roof has a colour of its own, so the legend tells them apart: a second roof of one
  // level (DRAM read beside copy_nt, the matrix roof beside the vector one) takes its
  // level's colour darkened.
  std::map<std::string, std::string> label_of_colour;
  auto own_colour = [&](std::string colour, const std::string& label) {
    while (label_of_colour.count(colour) && label_of_colour[colour] != label) colour = darker(colour, 0.75);
    label_of_colour[colour] = label;
    return colour;
  };
  auto add_roof = [&](const std::string& name, double x_start, double y_start, double x_end, double y_end,
                      const std::string& dash, const std::string& basis_level, const std::string& label,
                      std::string colour) {
    colour = own_colour(colour, label);
    for (const auto& [x, y] : {std::pair{x_start, y_start}, std::pair{x_end, y_end}})
      roofs.push_back({{"roof", name}, {"x", x}, {"y", y}, {"dash", dash}, {"level", basis_level}, {"label", label}, {"colour", colour}});
  };
  auto sloped_roof = [&](const std::string& name, double value, const std::string& dash, const std::string& basis_level,
                         const std::string& label, const std::string& colour) {
    const double x_start = std::max(xmin, ymin / value);
    const double x_end = compute.empty() ? std::min(xmax, ymax / value) : std::min(xmax, compute.front().ceiling->value / value);
    if (!(x_end > x_start)) return;
    add_roof(name, x_start, value * x_start, x_end, value * x_end, dash, basis_level, label, colour);
  };
  const std::string memory_level = results.machine.backend == "cuda" ? "HBM" : "DRAM";
  if (bandwidth)
    sloped_roof(bandwidth->name, bandwidth->value, "solid", "dram",
                fmt::format("{} {}: {}", memory_level, bandwidth->name, num::si(bandwidth->value, "B/s")),
                level_colour(memory_level));
  if (l2)
    sloped_roof(l2->name, l2->value, "solid", "l2", fmt::format("{} (L2): {}", l2->name, num::si(l2->value, "B/s")),
                level_colour("L2"));
  // A roof per memory level (issue #34, as Intel Advisor and Nsight Compute draw them):
  // the bandwidth curve's plateaus, or without a curve the CPU cache read ceilings. A
  // run judged at a level sits under its own tick, the curve's rate at its working set,
  // drawn in that level's colour.
  auto level_roof = [&](const std::string& level, const std::string& name, double value) {
    sloped_roof(name, value, "dotted", "memory", fmt::format("{}: {}", name, num::si(value, "B/s")), level_colour(level));
  };
  // An unstable curve judged no run (analysis/roofs/curve_agreement.h): the level
  // ceilings the runs were judged at are drawn instead.
  if (results.bandwidth_curve && !results.bandwidth_curve->unstable) {
    for (const auto& l : results.bandwidth_curve->levels)
      if (l.bandwidth > 0)
        level_roof(l.name,
                   l.capacity_bytes ? fmt::format("{} read ({})", l.name, capacity_text(*l.capacity_bytes))
                                    : fmt::format("{} read", l.name),
                   l.bandwidth);
  } else {
    for (const auto& c : results.ceilings)
      if (c.backend == "cpu" && c.kind == model::CeilingKind::bandwidth && c.value > 0 && c.name.size() == 7 &&
          c.name[0] == 'l' && c.name.substr(2) == "_read")
        level_roof(fmt::format("L{}", c.name[1]),
                   fmt::format("L{} read{}", c.name[1], c.cache_bytes ? " (" + capacity_text(*c.cache_bytes) + ")" : ""),
                   c.value);
  }
  for (size_t i = 0; i < compute.size(); ++i) {
    const model::Ceiling& c = *compute[i].ceiling;
    const std::string dash = compute[i].role == "matrix" ? "dashed" : "solid";
    const double x_start = bandwidth ? std::max(xmin, c.value / bandwidth->value) : xmin;
    std::string label = fmt::format("{} ({}): {}", c.name, compute[i].role, num::si(c.value, "FLOP/s"));
    if (bandwidth) {
      const double ridge_x = c.value / bandwidth->value;
      ridges.push_back({{"x", ridge_x}, {"y", c.value}, {"level", "all"},
                        {"label", fmt::format("ridge {} FLOP/B ({} / {})", num::sig(ridge_x), c.name, bandwidth->name)}});
      label += fmt::format(", ridge {} FLOP/B", num::sig(ridge_x));
    }
    add_roof(c.name, x_start, c.value, xmax, c.value, dash, "all", label, level_colour("compute"));
  }

  json spec = chart_template("roofline.vl.json");
  // A layer whose dataset is empty makes Vega warn about infinite extents (a results
  // file without comparisons, ridges or roofs): such layers are dropped.
  for (const auto& [name, rows] : {std::pair<const char*, const json*>{"arrows", &arrows}, {"ridges", &ridges},
                                   {"roofs", &roofs}})
    if (rows->empty()) {
      auto& layers = spec["layer"];
      for (auto it = layers.begin(); it != layers.end();)
        if (it->contains("data") && (*it)["data"].value("name", "") == name) it = layers.erase(it);
        else ++it;
    }
  // The launch floor and the predictions draw from the points; with no run carrying them
  // the layers would filter to nothing and Vega warns of an infinite extent: dropped.
  for (const auto& [layer, field] : {std::pair{"launch_floor", "time_over_launch"}, std::pair{"predicted", "time_over_predicted"}})
    if (std::none_of(points.begin(), points.end(), [&](const json& p) { return !p[field].is_null(); })) {
      auto& layers = spec["layer"];
      for (auto it = layers.begin(); it != layers.end();)
        if (it->value("name", "") == layer) it = layers.erase(it);
        else ++it;
    }
  // The judged levels' colours, in legend order, only those present: the same scale on
  // every layer drawn from the points (the template resolves colour per layer, so that
  // the roofs keep their own legend).
  {
    json domain = json::array(), range = json::array();
    for (const auto& [level, colour] : level_colours())
      if (std::any_of(points.begin(), points.end(), [&](const json& p) { return p["judged_level"] == level; }))
        domain.push_back(level), range.push_back(colour);
    for (auto& layer : spec["layer"])
      if (layer.contains("encoding") && layer["encoding"].contains("color") &&
          layer["encoding"]["color"].value("field", "") == "judged_level")
        layer["encoding"]["color"]["scale"] = {{"domain", domain}, {"range", range}};
  }
  // The roofs' legend: one entry per roof, in the colour of its line (the rows' order).
  {
    json domain = json::array(), colours = json::array();
    for (const auto& row : roofs)
      if (std::find(domain.begin(), domain.end(), row["label"]) == domain.end())
        domain.push_back(row["label"]), colours.push_back(row["colour"]);
    for (auto& layer : spec["layer"])
      if (layer.value("name", "") == "roofs") layer["encoding"]["color"]["scale"] = {{"domain", domain}, {"range", colours}};
  }
  // The axes' domains, fitted above.
  spec["encoding"]["x"]["scale"]["domain"] = {xmin, xmax};
  spec["encoding"]["y"]["scale"]["domain"] = {ymin, ymax};
  if (std::none_of(points.begin(), points.end(), [](const json& p) { return !p["y_judged_roof"].is_null(); })) {
    auto& layers = spec["layer"];
    for (auto it = layers.begin(); it != layers.end();)
      if (it->value("name", "") == "judged_roof") it = layers.erase(it);
      else ++it;
  }
  fill_dataset(spec, "points", std::move(points));
  fill_dataset(spec, "arrows", std::move(arrows));
  fill_dataset(spec, "roofs", std::move(roofs));
  fill_dataset(spec, "ridges", std::move(ridges));
  // The bytes bases this results file has, measured first when present.
  json options = {"minimum", "model"}, names = {"minimum bytes", "model bytes"};
  if (any_measured) options.push_back("measured"), names.push_back("measured DRAM bytes");
  if (any_l2) options.push_back("l2"), names.push_back("measured L2 bytes");
  for (auto& param : spec["params"])
    if (param.value("name", "") == "basis") {
      param["value"] = any_measured ? "measured" : "model";
      param["bind"]["options"] = options;
      param["bind"]["labels"] = names;
    }
  return spec;
}

namespace {

// A run's speedup over each baseline the catalogue compares it with, by the estimator
// the claims and the key results use (model::ComparisonEvidence): "3.03x over mha/grouped
// (20 paired rounds)", "unpaired: medians" where there are no paired rounds.
std::string speedups_over_baselines(const model::Results& results, const model::Run& r) {
  std::string out;
  for (const model::Comparison& c : results.comparisons) {
    if (c.candidate.run != r.id || !c.claimed_by.empty()) continue;
    const model::ComparisonEvidence& e = results.evidence(c);
    out += fmt::format("{}{} over {}/{} ({})", out.empty() ? "" : "; ", num::ratio(e.speedup), c.baseline.variant,
                       c.baseline.impl, e.paired ? fmt::format("{} paired rounds", e.rounds) : "unpaired: medians");
  }
  return out.empty() ? "no baseline" : out;
}

}  // namespace

json pair_chart(const model::Results& results, const model::CataloguePair& pair) {
  const Order order = catalogue_order(results);
  const std::vector<std::string> impls = pair.impls();
  json rows = json::array();
  std::vector<std::string> panels;
  for (const auto& r : results.runs) {
    if (r.pair != pair.name || !(r.time_s.median > 0)) continue;
    // The variant's own dimensions (decode's kv_heads, the MLP's d_ff) do not split
    // panels, so the variants compared sit side by side.
    const std::string panel = shape_label(results, r.shape, pair.variant_dims);
    if (std::find(panels.begin(), panels.end(), panel) == panels.end()) panels.push_back(panel);
    double lo = r.time_s.min, hi = r.time_s.max;
    std::string spread = "min\u2013max";
    // The 95% interval of its median, where it has one (three repetitions or more).
    if (const auto ci = results.decided().median_intervals.find(r.id); ci != results.decided().median_intervals.end())
      lo = ci->second.low, hi = ci->second.high, spread = "95% interval";
    const auto impl_at = std::find(impls.begin(), impls.end(), r.impl);
    rows.push_back({
        {"panel", panel.empty() ? std::string("all shapes") : panel},
        {"panel_order", std::find(panels.begin(), panels.end(), panel) - panels.begin()},
        {"impl", r.impl},
        {"impl_order", impl_at - impls.begin()},
        {"variant", r.variant},
        {"variant_order", order.variant_of(r.pair, r.variant)},
        {"id", r.id},
        {"shape", shape_label(results, r.shape)},
        {"median", r.time_s.median},
        {"lo", lo},
        {"hi", hi},
        {"time", fmt::format("{} ({} {} \u2013 {})", num::si(r.time_s.median, "s"), spread, num::si(lo, "s"),
                             num::si(hi, "s"))},
        {"repetitions", r.time_s.samples.size()},
        {"bytes", num::si(r.bytes.model, "B")},
        // A disturbed median is drawn faded and marked, never as a plain bar (issue #45).
        {"disturbed", model::is_disturbed(r)},
        {"mark", model::is_disturbed(r) ? "disturbed" : ""},
        {"spread", num::ratio(model::repetition_spread(r))},
        {"versus", speedups_over_baselines(results, r)},
    });
  }
  if (rows.empty()) return nullptr;
  json spec = chart_template("pair.vl.json");
  spec["description"] = pair.title + ". " + spec.value("description", "");
  fill_dataset(spec, "runs", std::move(rows));
  return spec;
}

json block_shares_chart(const model::Results& results) {
  static const std::vector<std::string> kCategories = {"tensor contraction", "normalization", "element-wise"};
  auto category_order = [](const std::string& c) {
    auto it = std::find(kCategories.begin(), kCategories.end(), c);
    return static_cast<int>(it - kCategories.begin());
  };
  json rows = json::array();
  int panel_index = 0;
  auto add = [&](const std::string& panel, const std::string& category, const std::string& classes, double flop_share,
                 std::optional<double> time_share) {
    for (auto [measure, value] : {std::pair{"FLOP share", std::optional<double>(flop_share)},
                                  std::pair{"runtime share", time_share}}) {
      if (!value || !(*value >= 0)) continue;
      rows.push_back({{"panel", panel}, {"panel_order", panel_index}, {"category", category},
                      {"category_order", category_order(category)}, {"classes", classes}, {"measure", measure},
                      {"share", *value}, {"text", num::percent(*value)}});
    }
  };
  for (const auto& r : results.runs) {
    if (!r.breakdown || r.breakdown->classes.empty()) continue;
    struct Sum {
      double flops = 0;
      std::optional<double> time;
      std::string classes;
    };
    std::map<std::string, Sum> by_category;
    for (const auto& c : r.breakdown->classes) {
      Sum& s = by_category[ivanov_category(c.op_class)];
      s.flops += c.flop_share;
      if (c.time_share) s.time = s.time.value_or(0) + *c.time_share;
      s.classes += (s.classes.empty() ? "" : ", ") + std::string(to_string(c.op_class));
    }
    const std::string panel = fmt::format("measured: {} / {} \u00b7 {}", r.variant, r.impl, shape_label(results, r.shape));
    for (const auto& [category, s] : by_category) add(panel, category, s.classes, s.flops, s.time);
    ++panel_index;
  }
  if (rows.empty()) return nullptr;
  // Ivanov, Dryden, Ben-Nun, Li, Hoefler, "Data Movement Is All You Need" (MLSys 2021), Table 1.
  const std::string paper = "Ivanov et al. 2021 (paper) \u00b7 BERT-large, V100, PyTorch";
  add(paper, "tensor contraction", "paper", 0.9980, 0.610);
  add(paper, "normalization", "paper", 0.0017, 0.255);
  add(paper, "element-wise", "paper", 0.0003, 0.135);
  json spec = chart_template("block-shares.vl.json");
  fill_dataset(spec, "shares", std::move(rows));
  return spec;
}

std::vector<Chart> build_charts(const model::Results& results) {
  std::vector<Chart> charts;
  auto add = [&](std::string id, std::string title, std::string caption, json spec) {
    if (!spec.is_null()) charts.push_back({std::move(id), std::move(title), std::move(caption), std::move(spec)});
  };
  json roofline = roofline_chart(results);
  add(std::string(model::kRooflineChart), "Roofline",
      "One point per run at its median time: x is FLOPs per byte, y the achieved FLOP rate. A point's colour is the "
      "level it is judged at (where its bytes come from: L1, L2, L3 or DRAM; compute when its FLOPs hold it), the same "
      "colour as that level's roof line; its shape is its pair and its size its time. The tick above each point, joined "
      "to it by a thin line, is the roof it is judged against (its FLOPs over its time at that roof: the bandwidth "
      "curve's rate at its working set, which may lie between two levels' lines): no run may sit above its tick, and "
      "one beyond " +
          fmt::format("{:.0f}", results.decided().bounds.roof_fault * 100) + "% of it is a measurement fault, outlined in red. A "
      "grey arrow leads from each comparison's baseline to its candidate. Every roof is named, with its figure, in the "
      "legend: solid lines the DRAM and compute roofs measured on this machine, dotted ones the read roof of each memory "
      "level; a diamond marks each ridge point (compute roof / bandwidth roof), left of which a run is memory-bound. The "
      "axes fit the runs and their roofs. The bytes basis switches what the intensity divides by: the minimum (each input "
      "read once, each output written once), the cost model's bytes for this implementation, or measured counters when "
      "present. Click "
      "a pair in the legend to show only it; shift+wheel zooms, shift+drag pans, double-click resets.",
      std::move(roofline));
  for (const auto& name : results.pairs_present()) {
    const model::CataloguePair* pair = results.catalogue.find(name);
    model::CataloguePair unknown;  // a pair the catalogue lacks still gets a chart, with a safe, unique id
    if (!pair) {
      unknown.name = name;
      unknown.title = fmt::format("Pair {}", name);
      unknown.chart = model::chart_id_for_pair(name) + "-x";
      for (const auto& r : results.runs)
        if (r.pair == name && std::find(unknown.combos.begin(), unknown.combos.end(), model::VariantImpl{r.variant, r.impl}) == unknown.combos.end())
          unknown.combos.push_back({r.variant, r.impl});
      pair = &unknown;
    }
    std::string caption =
        "Median time per implementation level (x) and variant (colour), one panel per shape; the whiskers are the 95% "
        "bootstrap interval of the median. Each panel has its own time scale.";
    if (!pair->variant_dims.empty())
      caption += fmt::format(" The variants differ in {} by design, so they share a panel.",
                             fmt::join(pair->variant_dims, ", "));
    add(pair->chart, pair->title, caption, pair_chart(results, *pair));
  }
  // Intensity against batch, beside the analytic prediction, wherever runs carry one.
  add("intensity-vs-batch", "Decode intensity vs batch, beside Shazeer's prediction",
      "Each decode run's FLOPs per byte against its batch size (solid), beside Shazeer's (2019) prediction "
      "Θ(1/(n/d + 1/b)) with the cost model's constants (dashed): it rises with b while the weights dominate the "
      "bytes and flattens once the KV cache does (b ≈ 2d/n for MHA); GQA and MQA shrink the cache term.",
      attention_intensity_chart(results));
  add(std::string(model::kBlockSharesChart), "Block: FLOP share vs runtime share",
      "The block's FLOPs and runtime by operator category, in the categories of Ivanov et al. (\"Data Movement Is All "
      "You Need\", MLSys 2021): tensor contraction (lmroof's matrix and attention classes), normalization, "
      "element-wise. The last panel is not measured here: it is their BERT-large figures on a V100 in PyTorch, where "
      "normalization is 0.17% of the FLOPs but 25.5% of the runtime.",
      block_shares_chart(results));
  return charts;
}

}  // namespace lmroof::report
