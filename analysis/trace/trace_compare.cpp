#include "analysis/trace/trace_compare.h"

#include "analysis/trace/what_if.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace lmroof::trace {

namespace {

nlohmann::json change(double a, double b) {
  return {{"base_s", a}, {"new_s", b}, {"delta_s", b - a}, {"ratio", a > 0 ? nlohmann::json(b / a) : nlohmann::json(nullptr)}};
}

}  // namespace

nlohmann::json compare_traces(const nlohmann::json& base, const nlohmann::json& next, const std::string& base_name,
                              const std::string& next_name) {
  nlohmann::json out;
  out["schema"] = "lmroof.trace-compare/1";
  // Read with at(), never a const operator[] (undefined on an absent key): the
  // documents passed require_trace_document, and at() keeps any other caller safe.
  out["base"] = {{"file", base_name}, {"device", base.at("device").at("name")}, {"total_time_s", base.at("total_time_s")}};
  out["new"] = {{"file", next_name}, {"device", next.at("device").at("name")}, {"total_time_s", next.at("total_time_s")}};
  out["total"] = change(base.at("total_time_s").get<double>(), next.at("total_time_s").get<double>());
  std::map<std::string, std::pair<double, double>> classes;
  for (const auto& c : base.at("classes")) classes[c.at("class").get<std::string>()].first = c.at("time_s").get<double>();
  for (const auto& c : next.at("classes")) classes[c.at("class").get<std::string>()].second = c.at("time_s").get<double>();
  nlohmann::json class_rows = nlohmann::json::array();
  for (const auto& [name, t] : classes) {
    auto row = change(t.first, t.second);
    row["class"] = name;
    class_rows.push_back(row);
  }
  out["classes"] = class_rows;
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::pair<double, double>> ops;
  std::map<Key, std::string> op_class;
  for (const auto& [doc, first] : {std::pair(&base, true), std::pair(&next, false)})
    for (const auto& o : doc->at("ops")) {
      const Key k{o.at("name"), o.at("input_dims"), o.at("input_types")};
      auto& t = ops[k];
      (first ? t.first : t.second) += o.at("time_s").get<double>();
      op_class[k] = o.at("class");
    }
  std::vector<std::pair<Key, std::pair<double, double>>> sorted(ops.begin(), ops.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
    return std::abs(x.second.second - x.second.first) > std::abs(y.second.second - y.second.first);
  });
  nlohmann::json op_rows = nlohmann::json::array();
  for (const auto& [k, t] : sorted) {
    auto row = change(t.first, t.second);
    row["name"] = std::get<0>(k);
    row["input_dims"] = std::get<1>(k);
    row["input_types"] = std::get<2>(k);
    row["class"] = op_class[k];
    row["status"] = t.first == 0 ? "added" : t.second == 0 ? "gone" : "both";
    op_rows.push_back(row);
  }
  out["ops"] = op_rows;
  // The base's --what-if for the new side's device, set beside what was measured there.
  if (auto prediction = prediction_versus_measured(base, next); !prediction.is_null()) out["prediction"] = prediction;
  return out;
}

}  // namespace lmroof::trace
