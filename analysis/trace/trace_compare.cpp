#include "analysis/trace/trace_compare.h"

#include "analysis/trace/what_if.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

namespace lmroof::trace {

namespace {

using nlohmann::json;

json change(double a, double b) {
  return {{"base_s", a}, {"new_s", b}, {"delta_s", b - a}, {"ratio", a > 0 ? json(b / a) : json(nullptr)}};
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json side(const model::TraceResult& t) {
  return {{"file", t.file},
          {"device", t.device.name},
          {"step_time_s", opt(t.step_time_s())},
          {"steps", t.window.step_count},
          {"busy_s", t.total_time_s}};
}

// One op shape's time on one side, and its time at the roof where every row of it has one.
struct SideTime {
  double time_s = 0, roof_time_s = 0;
  bool present = false, roof_known = true;
  void add(const model::TraceOpRow& op) {
    present = true;
    time_s += op.time_s;
    if (op.roof_time_s) roof_time_s += *op.roof_time_s;
    else roof_known = false;
  }
  // The fraction of the roof the shape reaches on this side: its time at the roof over
  // its time, summed over its rows (devices, layouts); null where unknown or absent.
  json fraction_of_roof() const { return present && roof_known && time_s > 0 ? json(roof_time_s / time_s) : json(nullptr); }
};

}  // namespace

json compare_traces(const model::TraceResult& base, const model::TraceResult& next) {
  json out;
  out["schema"] = "lmroof.trace-compare/2";
  out["base"] = side(base);
  out["new"] = side(next);
  out["busy"] = change(base.total_time_s, next.total_time_s);
  const auto step_a = base.step_time_s(), step_b = next.step_time_s();
  out["step"] = step_a && step_b ? change(*step_a, *step_b) : json(nullptr);
  std::map<std::string, std::pair<double, double>> classes;
  for (const auto& c : base.classes) classes[c.op_class].first = c.time_s;
  for (const auto& c : next.classes) classes[c.op_class].second = c.time_s;
  json class_rows = json::array();
  for (const auto& [name, t] : classes) {
    auto row = change(t.first, t.second);
    row["class"] = name;
    class_rows.push_back(row);
  }
  out["classes"] = class_rows;
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::pair<SideTime, SideTime>> ops;
  std::map<Key, std::string> op_class;
  for (const auto& [side_ops, first] : {std::pair(&base.ops, true), std::pair(&next.ops, false)})
    for (const auto& o : *side_ops) {
      // The shapes as their JSON text: one key however a side's arrays were written.
      const Key k{o.name, o.input_dims.dump(), o.input_types.dump()};
      auto& t = ops[k];
      (first ? t.first : t.second).add(o);
      op_class[k] = o.op_class;
    }
  std::vector<std::pair<Key, std::pair<SideTime, SideTime>>> sorted(ops.begin(), ops.end());
  auto delta = [](const std::pair<SideTime, SideTime>& t) { return std::abs(t.second.time_s - t.first.time_s); };
  std::stable_sort(sorted.begin(), sorted.end(), [&](const auto& x, const auto& y) { return delta(x.second) > delta(y.second); });
  json op_rows = json::array();
  for (const auto& [k, t] : sorted) {
    auto row = change(t.first.time_s, t.second.time_s);
    row["name"] = std::get<0>(k);
    row["input_dims"] = json::parse(std::get<1>(k));
    row["input_types"] = json::parse(std::get<2>(k));
    row["class"] = op_class[k];
    row["status"] = !t.first.present ? "added" : !t.second.present ? "gone" : "both";
    row["base_fraction_of_roof"] = t.first.fraction_of_roof();
    row["new_fraction_of_roof"] = t.second.fraction_of_roof();
    op_rows.push_back(row);
  }
  out["ops"] = op_rows;
  // The base's --what-if for the new side's device, set beside what was measured there.
  if (auto prediction = prediction_versus_measured(base, next); !prediction.is_null()) out["prediction"] = prediction;
  return out;
}

}  // namespace lmroof::trace
