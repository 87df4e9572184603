// Vega-Lite specs for the report; see reports/charts.h.
#include "reports/charts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/format.h"

namespace lmroof::report {

using nlohmann::json;

namespace {

using model::Results;
using model::Run;

void push_unique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// The ceiling a roof role names (results.roofs); nullopt when the roof was not measured.
struct Roof {
  std::string role, name;
  double value = 0;
};
std::optional<Roof> roof(const Results& results, std::string_view role, const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  const model::Ceiling* c = results.ceiling(*name);
  if (!c || !(c->value > 0)) return std::nullopt;
  return Roof{std::string(role), *name, c->value};
}
std::optional<Roof> bandwidth_roof_of(const Results& r) { return roof(r, "bandwidth", r.roofs.bandwidth); }
std::optional<Roof> vector_roof_of(const Results& r) { return roof(r, "vector", r.roofs.vector); }
std::optional<Roof> matrix_roof_of(const Results& r) { return roof(r, "matrix", r.roofs.matrix); }
std::optional<Roof> l2_roof_of(const Results& r) { return roof(r, "l2_bandwidth", r.roofs.l2_bandwidth); }

double pow10_floor(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double pow10_ceil(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

// Unit for a set of values so the largest shows between 1 and 1000.
struct Unit {
  double scale;
  std::string name;
};
Unit time_unit(double largest_s) {
  if (largest_s >= 1) return {1, "s"};
  if (largest_s >= 1e-3) return {1e-3, "ms"};
  if (largest_s >= 1e-6) return {1e-6, "\u00b5s"};
  return {1e-9, "ns"};
}
Unit byte_unit(double largest) {
  if (largest >= 1e12) return {1e12, "TB"};
  if (largest >= 1e9) return {1e9, "GB"};
  if (largest >= 1e6) return {1e6, "MB"};
  if (largest >= 1e3) return {1e3, "kB"};
  return {1, "B"};
}

std::string combo_label(const Run& run) { return run.variant + " / " + run.impl; }

json tooltip_field(std::string_view field, std::string_view title) {
  return {{"field", field}, {"type", "nominal"}, {"title", title}};
}

std::string pair_title(const Results& results, std::string_view pair) {
  if (const auto* p = results.catalogue.find(pair)) return p->title;
  return fmt::format("Pair {}", pair);
}

// A pair the catalogue lacks still gets a safe, unique chart id.
std::string pair_chart_id(const Results& results, std::string_view pair) {
  if (const auto* p = results.catalogue.find(pair)) return p->chart;
  return model::chart_id_for_pair(pair) + "-x";
}

std::string shape_text(const Results& results, const model::Shape& shape, const std::vector<std::string>& skip = {}) {
  return shape_label(results.catalogue, shape, skip);
}

}  // namespace

// The axes a roofline point can be drawn on. "model": the cost model's FLOPs over the
// bytes this implementation moves by design; "dram": counter FLOPs over measured DRAM
// bytes; "l2": the same FLOPs over the bytes L2 served (the upper level of a
// hierarchical roofline). Each point carries x_<axes>, y_<axes> when it has them.
struct Axes {
  const char* key;
  const char* label;
};
constexpr Axes kAxes[] = {{"model", "analytic (model FLOPs and bytes)"},
                          {"dram", "measured (counter FLOPs, DRAM bytes)"},
                          {"l2", "measured at L2 (counter FLOPs, L2 bytes)"}};

json roofline_chart(const Results& results) {
  constexpr double kWidth = 720, kHeight = 440;
  json points = json::array();
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = 0;
  double y_lo = std::numeric_limits<double>::infinity(), y_hi = 0;
  std::vector<std::string> pairs, impls;
  bool any_model = false, any_dram = false, any_l2 = false;
  for (const Run& r : results.runs) {
    const std::optional<double> t = r.time_s.median;
    // Model axes from the analytic numbers kept beside any measured ones.
    const std::optional<double> model_flops = r.flops.analytic_total;
    const std::optional<double> model_bytes = r.bytes.model;
    // The measured axes divide counter FLOPs when the counters gave them, else the model's.
    const std::optional<double> flops = r.flops.source == "cupti" ? std::optional(r.flops.total) : model_flops;
    const std::optional<double> dram = r.bytes.measured;
    const std::optional<double> l2 = r.bytes.measured_l2;
    json p = json::object();
    auto put = [&](const char* key, std::optional<double> f, std::optional<double> bytes) {
      if (!f || !bytes || *f <= 0 || *bytes <= 0) return false;  // log scales: positive only
      const double x = *f / *bytes, y = *f / *t / 1e9;
      p[std::string("x_") + key] = x;
      p[std::string("y_") + key] = y;
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
      return true;
    };
    const bool has_model = put("model", model_flops, model_bytes);
    const bool has_dram = put("dram", flops, dram);
    const bool has_l2 = put("l2", flops, l2);
    if (!has_model && !has_dram && !has_l2) continue;
    any_model |= has_model;
    any_dram |= has_dram;
    any_l2 |= has_l2;
    push_unique(pairs, r.pair);
    push_unique(impls, r.impl);
    auto fmt_or_dash = [](std::optional<double> v, auto&& f) { return v ? f(*v) : std::string(kDash); };
    const auto& measured_over = r.bytes.measured_over_minimum;
    const auto& model_over = r.bytes.model_over_minimum;
    auto intensity_text = [&](std::optional<double> f, std::optional<double> bytes) {
      return f && bytes && *bytes > 0 ? sig(*f / *bytes) + " FLOP/B" : std::string(kDash);
    };
    p.update({
        {"id", r.id},
        {"pair", r.pair},
        {"variant", r.variant},
        {"impl", r.impl},
        {"shape", shape_text(results, r.shape)},
        {"time", si(*t, "s")},
        {"gflops", si(r.achieved.flop_per_s, "FLOP/s")},
        {"gbs", si(r.achieved.byte_per_s, "B/s")},
        {"i_model", intensity_text(model_flops, model_bytes)},
        {"i_dram", intensity_text(flops, dram)},
        {"i_l2", intensity_text(flops, l2)},
        {"over_min", measured_over ? sig(*measured_over) + "\u00d7 (measured)"
                     : model_over  ? sig(*model_over) + "\u00d7 (model)"
                                   : std::string(kDash)},
        {"bound", r.bound ? std::string(model::to_string(*r.bound)) : std::string(kDash)},
        {"efficiency", fmt_or_dash(r.roofline.efficiency, [](double v) { return percent(v); })},
    });
    points.push_back(p);
  }
  if (points.empty()) return nullptr;

  // The axes offered: analytic always (when any run has it), measured ones when some
  // run was measured. The first offered is shown first, measured before analytic.
  std::vector<const Axes*> offered;
  const bool present[std::size(kAxes)] = {any_model, any_dram, any_l2};
  for (size_t i = 0; i < std::size(kAxes); ++i)
    if (present[i]) offered.push_back(&kAxes[i]);
  const std::string initial = any_dram ? "dram" : offered.front()->key;

  const auto bandwidth = bandwidth_roof_of(results);
  const auto l2_roof = any_l2 ? l2_roof_of(results) : std::nullopt;
  std::vector<Roof> compute;
  for (const auto& c : {vector_roof_of(results), matrix_roof_of(results)})
    if (c) compute.push_back(*c);
  std::sort(compute.begin(), compute.end(), [](const Roof& a, const Roof& b) { return a.value > b.value; });

  // GB/s times FLOP/byte is GFLOP/s: a bandwidth roof is the line y = (B/s / 1e9) * x.
  for (const auto& c : compute) {
    y_hi = std::max(y_hi, c.value / 1e9);
    if (bandwidth) x_hi = std::max(x_hi, c.value / bandwidth->value);
  }
  const double xmin = pow10_floor(x_lo / 2), xmax = pow10_ceil(x_hi * 3);
  const double ymin = pow10_floor(y_lo / 2), ymax = pow10_ceil(y_hi * 2);

  const json x_scale = {{"type", "log"}, {"domain", {xmin, xmax}}, {"nice", false}};
  const json y_scale = {{"type", "log"}, {"domain", {ymin, ymax}}, {"nice", false}};
  const json x_enc = {{"field", "x"}, {"type", "quantitative"}, {"scale", x_scale},
                      {"axis", {{"title", "arithmetic intensity (FLOP/byte)"}, {"format", "~g"}}}};
  const json y_enc = {{"field", "y"}, {"type", "quantitative"}, {"scale", y_scale},
                      {"axis", {{"title", "achieved GFLOP/s"}, {"format", "~g"}}}};
  const bool switchable = offered.size() > 1;
  // Roofs and labels belong to a level: "dram" (the memory roof of the model and
  // measured-DRAM axes), "l2" (the L2 roof, L2 axes only) or "all" (compute roofs).
  const json level_filter = {
      {"filter", "datum.level == 'all' || (datum.level == 'l2') == (axes == 'l2')"}};

  json layers = json::array();
  json lines = json::array();
  json labels = json::array();  // one text layer per label: align and angle are mark properties
  auto label_layer = [&](double x, double y, const std::string& label, const std::string& level, json mark_props) {
    json mark = {{"type", "text"}, {"fontSize", 11}, {"color", "#333"}, {"fontWeight", "bold"}};
    mark.update(mark_props);
    json layer = {{"data", {{"values", json::array({{{"x", x}, {"y", y}, {"label", label}, {"level", level}}})}}},
                  {"mark", mark},
                  {"encoding", {{"x", x_enc}, {"y", y_enc}, {"text", {{"field", "label"}, {"type", "nominal"}}}}}};
    if (switchable) layer["transform"] = json::array({level_filter});
    labels.push_back(layer);
  };
  auto bandwidth_roof = [&](const Roof& bw, const std::string& level) {
    const double g = bw.value / 1e9;
    const double x_start = std::max(xmin, ymin / g);
    const double x_end = compute.empty() ? std::min(xmax, ymax / g) : std::min(xmax, compute.front().value / bw.value);
    lines.push_back({{"roof", bw.name}, {"x", x_start}, {"y", g * x_start}, {"dash", "solid"}, {"level", level}});
    lines.push_back({{"roof", bw.name}, {"x", x_end}, {"y", g * x_end}, {"dash", "solid"}, {"level", level}});
    // Text along the slope: its angle on screen follows from the decades per pixel.
    const double px_per_decade_x = kWidth / std::log10(xmax / xmin);
    const double px_per_decade_y = kHeight / std::log10(ymax / ymin);
    const double angle = -std::atan(px_per_decade_y / px_per_decade_x) * 180.0 / std::numbers::pi;
    const double x_label = x_start * std::pow(x_end / x_start, 0.12);
    label_layer(x_label, g * x_label,
                fmt::format("{} ({}bandwidth): {}", bw.name, level == "l2" ? "L2 " : "", si(bw.value, "B/s")), level,
                {{"align", "left"}, {"baseline", "bottom"}, {"angle", angle}, {"dy", -6}});
  };
  if (bandwidth) bandwidth_roof(*bandwidth, "dram");
  if (l2_roof) bandwidth_roof(*l2_roof, "l2");
  for (size_t i = 0; i < compute.size(); ++i) {
    const auto& c = compute[i];
    const double y = c.value / 1e9;
    const double x_start = std::max(xmin, bandwidth ? c.value / bandwidth->value : xmin);
    const std::string dash = c.role == "matrix" ? "dashed" : "solid";
    lines.push_back({{"roof", c.name}, {"x", x_start}, {"y", y}, {"dash", dash}, {"level", "all"}});
    lines.push_back({{"roof", c.name}, {"x", xmax}, {"y", y}, {"dash", dash}, {"level", "all"}});
    // Labels stack above the highest roof, where no run can sit (compute-bound runs
    // crowd just under the roofs); a dashed roof says so in its label.
    const double top = compute.front().value / 1e9;
    label_layer(xmax, top,
                fmt::format("{} ({}{}): {}", c.name, c.role, compute.size() > 1 ? (dash == "dashed" ? ", dashed" : ", solid") : "",
                            si(c.value, "FLOP/s")),
                "all", {{"align", "right"}, {"dx", -6}, {"baseline", "bottom"}, {"dy", -4 - 15.0 * static_cast<double>(i)}});
  }
  if (!lines.empty()) {
    json line_layer = {
        {"data", {{"values", lines}}},
        {"mark", {{"type", "line"}, {"strokeWidth", 2}, {"color", "#555"}}},
        {"encoding",
         {{"x", x_enc},
          {"y", y_enc},
          {"detail", {{"field", "roof"}, {"type", "nominal"}}},
          {"strokeDash",
           {{"field", "dash"},
            {"type", "nominal"},
            {"scale", {{"domain", {"solid", "dashed"}}, {"range", json::array({json::array({1, 0}), json::array({6, 4})})}}},
            {"legend", nullptr}}}}},
    };
    if (switchable) line_layer["transform"] = json::array({level_filter});
    layers.push_back(line_layer);
  }
  for (auto& l : labels) layers.push_back(std::move(l));

  // Points: x and y from the chosen axes; runs without them drop out of that view.
  const std::string pick_x = switchable ? "axes == 'l2' ? datum.x_l2 : axes == 'dram' ? datum.x_dram : datum.x_model"
                                        : "datum.x_" + initial;
  const std::string pick_y = switchable ? "axes == 'l2' ? datum.y_l2 : axes == 'dram' ? datum.y_dram : datum.y_model"
                                        : "datum.y_" + initial;
  json tooltip = json::array({tooltip_field("id", "run"), tooltip_field("variant", "variant"), tooltip_field("impl", "impl"),
                              tooltip_field("shape", "shape"), tooltip_field("time", "median time"),
                              tooltip_field("gflops", "achieved"), tooltip_field("gbs", "bandwidth"),
                              tooltip_field("i_model", "intensity, model bytes")});
  if (any_dram) tooltip.push_back(tooltip_field("i_dram", "intensity, measured DRAM bytes"));
  if (any_l2) tooltip.push_back(tooltip_field("i_l2", "intensity, measured L2 bytes"));
  for (auto [field, title] : {std::pair{"over_min", "bytes vs minimum"}, std::pair{"bound", "bound"},
                              std::pair{"efficiency", "efficiency"}})
    tooltip.push_back(tooltip_field(field, title));
  layers.push_back({
      {"data", {{"values", points}}},
      {"transform", json::array({{{"calculate", pick_x}, {"as", "x"}},
                                 {{"calculate", pick_y}, {"as", "y"}},
                                 {{"filter", "isValid(datum.x) && isValid(datum.y)"}}})},
      {"params", json::array({{{"name", "zoom"}, {"select", "interval"}, {"bind", "scales"}}})},
      {"mark", {{"type", "point"}, {"filled", true}, {"size", 110}, {"opacity", 0.85}, {"stroke", "#222"}, {"strokeWidth", 0.6}}},
      {"encoding",
       {{"x", x_enc},
        {"y", y_enc},
        {"color", {{"field", "pair"}, {"type", "nominal"}, {"scale", {{"domain", pairs}}}, {"legend", {{"title", "pair"}}}}},
        {"shape", {{"field", "impl"}, {"type", "nominal"}, {"scale", {{"domain", impls}}}, {"legend", {{"title", "impl"}}}}},
        {"tooltip", tooltip}}},
  });
  json spec = {{"$schema", kVegaLiteSchema},
               {"description", "Roofline: achieved FLOP/s against arithmetic intensity, under the measured roofs"},
               {"width", kWidth},
               {"height", kHeight},
               {"layer", layers}};
  if (switchable) {
    json options = json::array(), names = json::array();
    for (const Axes* a : offered) options.push_back(a->key), names.push_back(a->label);
    spec["params"] = json::array({{{"name", "axes"},
                                   {"value", initial},
                                   {"bind", {{"input", "radio"}, {"options", options}, {"labels", names}, {"name", "axes: "}}}}});
  }
  return spec;
}

json pair_chart(const Results& results, std::string_view pair) {
  // Dimensions a variant decides (decode's kv_heads, the catalogue's variant_dims)
  // would split one shape into one column per variant; group by the rest and show
  // them in the bar label.
  const auto* entry = results.catalogue.find(pair);
  const std::vector<std::string> variant_dims = entry ? entry->variant_dims : std::vector<std::string>{};
  std::vector<const Run*> runs;
  double max_time = 0, max_bytes = 0;
  for (const Run& r : results.runs) {
    if (r.pair != pair) continue;
    runs.push_back(&r);
    max_time = std::max(max_time, r.time_s.median);
    max_bytes = std::max(max_bytes, r.bytes.model);
  }
  if (runs.empty()) return nullptr;
  const Unit tu = time_unit(max_time > 0 ? max_time : 1), bu = byte_unit(max_bytes);
  const std::string time_metric = fmt::format("median time ({})", tu.name);
  const std::string bytes_metric = fmt::format("model bytes ({})", bu.name);

  json rows = json::array();
  std::vector<std::string> combos, groups, variants, metrics;
  for (const Run* rp : runs) {
    const Run& r = *rp;
    const std::string group = shape_text(results, r.shape, variant_dims);
    std::string combo = combo_label(r);
    for (const auto& d : variant_dims)
      if (auto it = r.shape.find(d); it != r.shape.end())
        combo += fmt::format(" ({} {})", d, integer_or_sig(static_cast<double>(it->second)));
    const json base = {{"group", group}, {"combo", combo}, {"variant", r.variant}, {"impl", r.impl},
                       {"id", r.id}, {"shape", shape_text(results, r.shape)}};
    {
      json row = base;
      row["metric"] = time_metric;
      row["value"] = r.time_s.median / tu.scale;
      row["lo"] = r.time_s.min / tu.scale;
      row["hi"] = r.time_s.max / tu.scale;
      row["text"] = fmt::format("{} (min {}, max {})", si(r.time_s.median, "s"), si(r.time_s.min, "s"), si(r.time_s.max, "s"));
      rows.push_back(row);
      push_unique(metrics, time_metric);
    }
    {
      json row = base;
      row["metric"] = bytes_metric;
      row["value"] = r.bytes.model / bu.scale;
      row["text"] = si(r.bytes.model, "B");
      rows.push_back(row);
      push_unique(metrics, bytes_metric);
    }
    push_unique(combos, combo);
    push_unique(groups, group);
    push_unique(variants, r.variant);
  }
  if (rows.empty()) return nullptr;
  std::stable_sort(metrics.begin(), metrics.end(), [&](const std::string& a, const std::string&) { return a == time_metric; });

  const json x_enc = {{"field", "combo"}, {"type", "nominal"}, {"sort", combos},
                      {"axis", {{"title", nullptr}, {"labelAngle", -35}, {"labelLimit", 160}}}};
  const json color = {{"field", "variant"}, {"type", "nominal"}, {"scale", {{"domain", variants}}}, {"legend", {{"title", "variant"}}}};
  const json tooltip = json::array({tooltip_field("id", "run"), tooltip_field("shape", "shape"), tooltip_field("metric", "metric"),
                                    tooltip_field("text", "value")});
  // One panel per metric (time with min–max error bars, then model bytes), each a
  // row of columns by shape with its own y scale: shapes differ by orders of magnitude.
  auto panel = [&](const std::string& metric, bool error_bars) {
    json layers = json::array({{{"mark", {{"type", "bar"}, {"width", {{"band", 0.75}}}}},
                                {"encoding",
                                 {{"x", x_enc},
                                  {"y", {{"field", "value"}, {"type", "quantitative"}, {"axis", {{"title", metric}}}}},
                                  {"color", color},
                                  {"tooltip", tooltip}}}}});
    if (error_bars)
      layers.push_back({{"mark", {{"type", "errorbar"}, {"ticks", {{"size", 8}}}, {"color", "#222"}}},
                        {"encoding",
                         {{"x", x_enc},
                          {"y", {{"field", "lo"}, {"type", "quantitative"}, {"title", metric}}},
                          {"y2", {{"field", "hi"}}}}}});
    return json{{"title", {{"text", error_bars ? metric + ", min–max bars" : metric}, {"fontSize", 13}, {"anchor", "start"}}},
                {"transform", json::array({{{"filter", {{"field", "metric"}, {"equal", metric}}}}})},
                {"facet", {{"column", {{"field", "group"}, {"type", "nominal"}, {"sort", groups},
                                       {"header", {{"title", nullptr}, {"labelFontSize", 11}, {"labelLimit", 400}}}}}}},
                {"spec", {{"width", {{"step", 34}}}, {"height", 200}, {"layer", layers}}},
                {"resolve", {{"scale", {{"y", "independent"}}}}}};
  };
  json panels = json::array();
  const bool all_have_range = std::all_of(rows.begin(), rows.end(), [&](const json& r) {
    return r["metric"] != time_metric || r.contains("lo");
  });
  for (const auto& metric : metrics) panels.push_back(panel(metric, metric == time_metric && all_have_range));
  return {{"$schema", kVegaLiteSchema},
          {"description", pair_title(results, pair)},
          {"data", {{"values", rows}}},
          {"hconcat", panels},
          {"spacing", 40}};
}

json block_shares_chart(const Results& results) {
  const std::string kFlops = "FLOP share", kRuntime = "runtime share";
  const std::string kPaper = "Ivanov et al. 2021 (paper): BERT-large, V100, PyTorch";
  std::vector<const Run*> runs;
  std::vector<std::string> shapes;
  for (const Run& r : results.runs) {
    if (!r.breakdown || r.breakdown->classes.empty()) continue;
    runs.push_back(&r);
    push_unique(shapes, shape_text(results, r.shape));
  }
  if (runs.empty()) return nullptr;

  json rows = json::array();
  std::vector<std::string> panels, classes;
  auto add = [&](const std::string& panel, const std::string& cls, const std::string& measure, double fraction) {
    rows.push_back({{"panel", panel}, {"class", cls}, {"measure", measure}, {"share", fraction * 100}, {"text", percent(fraction)}});
    push_unique(panels, panel);
    push_unique(classes, cls);
  };
  for (const Run* rp : runs) {
    const Run& r = *rp;
    std::string panel = "measured: " + combo_label(r);
    if (shapes.size() > 1) panel += " \u00b7 " + shape_text(results, r.shape);
    for (const auto& c : r.breakdown->classes) {
      add(panel, c.op_class, kFlops, c.flop_share);
      if (c.time_share) add(panel, c.op_class, kRuntime, *c.time_share);
    }
  }
  if (rows.empty()) return nullptr;
  // Ivanov, Dryden, Ben-Nun, Li, Hoefler, "Data Movement Is All You Need" (MLSys 2021), Table 1.
  struct PaperRow {
    const char* cls;
    double flops, runtime;
  };
  for (const PaperRow& p : {PaperRow{"tensor contraction", 0.9980, 0.610}, PaperRow{"normalization", 0.0017, 0.255},
                            PaperRow{"element-wise", 0.0003, 0.135}}) {
    add(kPaper, p.cls, kFlops, p.flops);
    add(kPaper, p.cls, kRuntime, p.runtime);
  }

  const json x_enc = {{"field", "class"}, {"type", "nominal"}, {"sort", classes},
                      {"axis", {{"title", nullptr}, {"labelAngle", 0}, {"labelExpr", "split(datum.label, ' ')"}}}};
  const json offset = {{"field", "measure"}, {"type", "nominal"}, {"sort", {kFlops, kRuntime}}};
  const json y_enc = {{"field", "share"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}}},
                      {"axis", {{"title", "share (%)"}}}};
  return {{"$schema", kVegaLiteSchema},
          {"description", "FLOP share vs runtime share by operator class"},
          {"data", {{"values", rows}}},
          {"facet", {{"field", "panel"}, {"type", "nominal"}, {"sort", panels},
                     {"header", {{"title", nullptr}, {"labelFontSize", 12}, {"labelLimit", 360}}}}},
          {"columns", 3},
          {"spec",
           {{"width", {{"step", 38}}},
            {"height", 220},
            {"layer",
             json::array(
                 {{{"mark", {{"type", "bar"}}},
                   {"encoding",
                    {{"x", x_enc},
                     {"xOffset", offset},
                     {"y", y_enc},
                     {"color", {{"field", "measure"}, {"type", "nominal"}, {"sort", {kFlops, kRuntime}},
                                {"scale", {{"domain", {kFlops, kRuntime}}, {"range", {"#4c78a8", "#f58518"}}}},
                                {"legend", {{"title", nullptr}, {"orient", "top"}}}}},
                     {"tooltip", json::array({tooltip_field("panel", "source"), tooltip_field("class", "class"),
                                              tooltip_field("measure", "measure"), tooltip_field("text", "share")})}}}},
                  {{"mark", {{"type", "text"}, {"baseline", "bottom"}, {"dy", -3}, {"fontSize", 10}}},
                   {"encoding", {{"x", x_enc}, {"xOffset", offset}, {"y", y_enc}, {"text", {{"field", "text"}}}}}}})}}}};
}

std::vector<Chart> build_charts(const Results& results) {
  std::vector<Chart> charts;
  auto add = [&](std::string id, std::string title, std::string caption, json spec) {
    if (!spec.is_null()) charts.push_back({std::move(id), std::move(title), std::move(caption), std::move(spec)});
  };
  std::string roofs_text;
  if (auto bw = bandwidth_roof_of(results)) roofs_text += fmt::format("{} bandwidth {}", bw->name, si(bw->value, "B/s"));
  for (const auto& c : {vector_roof_of(results), matrix_roof_of(results)})
    if (c) roofs_text += fmt::format("{}{} {} {}", roofs_text.empty() ? "" : ", ", c->name, c->role, si(c->value, "FLOP/s"));
  if (auto l2 = l2_roof_of(results))
    roofs_text += fmt::format("{}{} L2 bandwidth {}", roofs_text.empty() ? "" : ", ", l2->name, si(l2->value, "B/s"));
  json roofline = roofline_chart(results);
  const bool switchable = !roofline.is_null() && roofline.contains("params");
  add(std::string(model::kRooflineChart), "Roofline",
      "One point per run at its median time: x is FLOPs per byte, y is the achieved FLOP rate. " +
          (roofs_text.empty() ? std::string("No roofs were measured, so none are drawn. ")
                              : "The lines are the measured roofs (" + roofs_text +
                                    "); a point left of the ridge is memory-bound. ") +
          (switchable ? "The buttons under the chart switch the axes between the cost model's FLOPs and bytes and "
                        "what the hardware counters measured (DRAM bytes, or L2 bytes for the upper level of a "
                        "hierarchical roofline). "
                      : "") +
          "Drag to pan, scroll to zoom, hover a point for details.",
      std::move(roofline));
  for (const auto& pair : results.pairs_present()) {
    std::string caption =
        "Left: median time per variant and implementation, one column per shape, the error bars spanning the fastest "
        "and slowest repetition. Right: the bytes the cost model says each run must move. Each column has its own "
        "y scale.";
    if (const auto* p = results.catalogue.find(pair); p && !p->variant_dims.empty())
      caption += fmt::format(" {} follow{} the variant and {} shown in the bar label.", fmt::join(p->variant_dims, ", "),
                             p->variant_dims.size() == 1 ? "s" : "", p->variant_dims.size() == 1 ? "is" : "are");
    add(pair_chart_id(results, pair), pair_title(results, pair), caption, pair_chart(results, pair));
  }
  add(std::string(model::kBlockSharesChart), "Block: FLOP share vs runtime share",
      "Per operator class, the share of the block's FLOPs and of its runtime. The last panel is not measured here: it "
      "shows the figures Ivanov et al. report for BERT-large on a V100 in PyTorch (\"Data Movement Is All You Need\", "
      "MLSys 2021), where normalization is 0.17% of the FLOPs but 25.5% of the runtime.",
      block_shares_chart(results));
  return charts;
}

}  // namespace lmroof::report
