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

// A side's time per step (docs/trace.md "Ranks"): one trace's window over its
// ProfilerStep ranges; a folder of ranks, its slowest rank's (the merged window sums
// the ranks, so it is no step). None where there are no steps: a capture's length is
// no step time.
std::optional<double> step_time(const json& doc) {
  if (doc.contains("ranks")) {
    for (const auto& r : doc.at("ranks"))
      if (r.at("slowest").get<bool>() && r.at("step_time_s").is_number()) return r.at("step_time_s").get<double>();
    return std::nullopt;
  }
  const json& w = doc.at("window");
  const double steps = w.at("step_count").get<double>();
  if (w.at("kind") != "steps" || steps < 1) return std::nullopt;
  return w.at("total_s").get<double>() / steps;
}

json side(const json& doc, const std::string& file) {
  return {{"file", file},
          {"device", doc.at("device").at("name")},
          {"step_time_s", opt(step_time(doc))},
          {"steps", doc.at("window").at("step_count")},
          {"busy_s", doc.at("total_time_s")}};
}

// One op shape's time on one side, and its time at the roof where every row of it has one.
struct SideTime {
  double time_s = 0, roof_time_s = 0;
  bool present = false, roof_known = true;
  void add(const json& op) {
    present = true;
    time_s += op.at("time_s").get<double>();
    if (op.at("roof_time_s").is_number()) roof_time_s += op.at("roof_time_s").get<double>();
    else roof_known = false;
  }
  // The fraction of the roof the shape reaches on this side: its time at the roof over
  // its time, summed over its rows (devices, layouts); null where unknown or absent.
  json fraction_of_roof() const { return present && roof_known && time_s > 0 ? json(roof_time_s / time_s) : json(nullptr); }
};

}  // namespace

json compare_traces(const json& base, const json& next, const std::string& base_name, const std::string& next_name) {
  json out;
  out["schema"] = "lmroof.trace-compare/2";
  // Read with at(), never a const operator[] (undefined on an absent key): the
  // documents passed require_trace_document, and at() keeps any other caller safe.
  out["base"] = side(base, base_name);
  out["new"] = side(next, next_name);
  out["busy"] = change(base.at("total_time_s").get<double>(), next.at("total_time_s").get<double>());
  const json &step_a = out["base"]["step_time_s"], &step_b = out["new"]["step_time_s"];
  out["step"] = step_a.is_number() && step_b.is_number() ? change(step_a.get<double>(), step_b.get<double>()) : json(nullptr);
  std::map<std::string, std::pair<double, double>> classes;
  for (const auto& c : base.at("classes")) classes[c.at("class").get<std::string>()].first = c.at("time_s").get<double>();
  for (const auto& c : next.at("classes")) classes[c.at("class").get<std::string>()].second = c.at("time_s").get<double>();
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
  for (const auto& [doc, first] : {std::pair(&base, true), std::pair(&next, false)})
    for (const auto& o : doc->at("ops")) {
      // The shapes as their JSON text: one key however a side's arrays were written.
      const Key k{o.at("name"), o.at("input_dims").dump(), o.at("input_types").dump()};
      auto& t = ops[k];
      (first ? t.first : t.second).add(o);
      op_class[k] = o.at("class");
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
