#include "analysis/trace/trace_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "reports/text/numbers.h"

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
  out["base"] = {{"file", base_name}, {"device", base["device"]["name"]}, {"total_time_s", base["total_time_s"]}};
  out["new"] = {{"file", next_name}, {"device", next["device"]["name"]}, {"total_time_s", next["total_time_s"]}};
  out["total"] = change(base["total_time_s"].get<double>(), next["total_time_s"].get<double>());
  std::map<std::string, std::pair<double, double>> classes;
  for (const auto& c : base["classes"]) classes[c["class"].get<std::string>()].first = c["time_s"].get<double>();
  for (const auto& c : next["classes"]) classes[c["class"].get<std::string>()].second = c["time_s"].get<double>();
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
    for (const auto& o : (*doc)["ops"]) {
      const Key k{o["name"], o["input_dims"], o["input_types"]};
      auto& t = ops[k];
      (first ? t.first : t.second) += o["time_s"].get<double>();
      op_class[k] = o["class"];
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
  return out;
}

std::string compare_text(const nlohmann::json& r, bool markdown) {
  using numbers::si;
  auto ratio = [](const nlohmann::json& v) { return v.is_null() ? std::string("new") : numbers::ratio(v.get<double>()); };
  std::string out = fmt::format("base: {} ({})\nnew:  {} ({})\ntotal time: {} -> {} ({})\n\n", r["base"]["file"].get<std::string>(),
                                r["base"]["device"].get<std::string>(), r["new"]["file"].get<std::string>(),
                                r["new"]["device"].get<std::string>(), si(r["total"]["base_s"].get<double>(), "s"),
                                si(r["total"]["new_s"].get<double>(), "s"), ratio(r["total"]["ratio"]));
  out += markdown ? "| class | base | new | new/base |\n|---|---:|---:|---:|\n" : fmt::format("{:<14} {:>10} {:>10} {:>9}\n", "class", "base", "new", "new/base");
  for (const auto& c : r["classes"]) {
    if (c["base_s"].get<double>() == 0 && c["new_s"].get<double>() == 0) continue;
    out += markdown ? fmt::format("| {} | {} | {} | {} |\n", c["class"].get<std::string>(), si(c["base_s"].get<double>(), "s"),
                                  si(c["new_s"].get<double>(), "s"), ratio(c["ratio"]))
                    : fmt::format("{:<14} {:>10} {:>10} {:>9}\n", c["class"].get<std::string>(), si(c["base_s"].get<double>(), "s"),
                                  si(c["new_s"].get<double>(), "s"), ratio(c["ratio"]));
  }
  out += markdown ? "\n| op | shapes | base | new | change |\n|---|---|---:|---:|---:|\n" : "\nlargest changes per op shape:\n";
  int n = 0;
  for (const auto& o : r["ops"]) {
    if (n++ == 15) break;
    std::string dims = o["input_dims"].get<std::string>();
    if (dims.size() > 40) dims = dims.substr(0, 37) + "...";
    out += markdown ? fmt::format("| {} | `{}` | {} | {} | {} |\n", o["name"].get<std::string>(), dims, si(o["base_s"].get<double>(), "s"),
                                  si(o["new_s"].get<double>(), "s"), si(o["delta_s"].get<double>(), "s"))
                    : fmt::format("  {:<34} {:<40} {:>10} -> {:>10} ({})\n", o["name"].get<std::string>(), dims,
                                  si(o["base_s"].get<double>(), "s"), si(o["new_s"].get<double>(), "s"), o["status"].get<std::string>());
  }
  return out;
}

}  // namespace lmroof::trace
