// The page of a comparison of two traces; see reports/trace_compare_report.h.
#include "reports/trace_compare_report.h"

#include <fmt/format.h>

#include <vector>

#include "analysis/io/atomic_write.h"
#include "analysis/numbers/numbers.h"
#include "reports/charts.h"
#include "reports/html_report.h"
#include "reports/text/format.h"
#include "reports/text/trace_text.h"
#include "reports/text/what_if_text.h"
#include "reports/trace_report.h"

namespace lmroof::report {

namespace {

using nlohmann::json;
using numbers::si;

// The ops charted and tabled: the largest changes, as many as fit a screen.
constexpr size_t kOpsShown = 25;

std::string e(const std::string& text) { return html_escape(text); }

// "aten::mm [[64,128],[128,256]]", cut where a label would crowd the chart's axis.
std::string op_label(const json& op) {
  std::string label = op["name"].get<std::string>() + " " + trace::shapes_text(op["input_dims"]);
  return label.size() > 80 ? label.substr(0, 77) + "..." : label;
}

std::string side_name(const json& side) {
  return fmt::format("{} ({})", side["file"].get<std::string>(), side["device"].get<std::string>());
}

// Time per class, base beside new: a bar per side in each class's row.
json class_chart(const json& report) {
  json values = json::array();
  for (const auto& c : report["classes"]) {
    if (c["base_s"].get<double>() == 0 && c["new_s"].get<double>() == 0) continue;
    for (const auto& [side, key] : {std::pair("base", "base_s"), std::pair("new", "new_s")})
      values.push_back({{"class", c["class"]}, {"side", side}, {"time_s", c[key]}, {"time", si(c[key].get<double>(), "s")}});
  }
  if (values.empty()) return nullptr;
  return {{"$schema", kVegaLiteSchema},
          {"width", 520},
          {"data", {{"values", values}}},
          {"mark", "bar"},
          {"encoding",
           {{"y", {{"field", "class"}, {"type", "nominal"}, {"title", nullptr}}},
            {"yOffset", {{"field", "side"}, {"sort", {"base", "new"}}}},
            {"x", {{"field", "time_s"}, {"type", "quantitative"}, {"title", "time (s, summed over the window)"}, {"axis", {{"format", "~s"}}}}},
            {"color", {{"field", "side"}, {"type", "nominal"}, {"sort", {"base", "new"}}, {"scale", {{"range", {"#59636e", "#0969da"}}}}}},
            {"tooltip", json::array({{{"field", "class"}}, {{"field", "side"}}, {{"field", "time"}}})}}}};
}

// The fraction of the roof on each side, for the op shapes found on both sides with a
// roof on both: a line from base to new per shape.
json roof_chart(const json& report) {
  json values = json::array();
  size_t shown = 0;
  for (const auto& o : report["ops"]) {
    if (shown == kOpsShown) break;
    if (o["status"] != "both" || !o["base_fraction_of_roof"].is_number() || !o["new_fraction_of_roof"].is_number()) continue;
    ++shown;
    for (const auto& [side, key] : {std::pair("base", "base_fraction_of_roof"), std::pair("new", "new_fraction_of_roof")})
      values.push_back({{"op", op_label(o)}, {"side", side}, {"fraction", o[key]}});
  }
  if (values.empty()) return nullptr;
  const json y = {{"field", "op"}, {"type", "nominal"}, {"sort", nullptr}, {"title", nullptr}, {"axis", {{"labelLimit", 420}}}};
  const json x = {{"field", "fraction"}, {"type", "quantitative"}, {"title", "fraction of roof"}, {"axis", {{"format", "%"}}}};
  return {{"$schema", kVegaLiteSchema},
          {"width", 420},
          {"data", {{"values", values}}},
          {"layer",
           json::array({{{"mark", {{"type", "line"}, {"color", "#8c959f"}}},
                         {"encoding", {{"y", y}, {"x", x}, {"detail", {{"field", "op"}}}}}},
                        {{"mark", {{"type", "point"}, {"filled", true}, {"size", 60}}},
                         {"encoding",
                          {{"y", y},
                           {"x", x},
                           {"color", {{"field", "side"}, {"type", "nominal"}, {"sort", {"base", "new"}},
                                      {"scale", {{"range", {"#59636e", "#0969da"}}}}}},
                           {"tooltip", json::array({{{"field", "op"}}, {{"field", "side"}},
                                                    {{"field", "fraction"}, {"format", ".1%"}}})}}}}})}};
}

std::string sides_section(const json& report) {
  const auto &base = report["base"], &next = report["new"];
  const std::string step_change = report["step"].is_null() ? std::string("-") : trace::compare_ratio(report["step"]["ratio"]);
  const std::vector<std::vector<std::string>> rows = {
      {"base", base["file"], base["device"], trace::compare_side_time(base["step_time_s"]), si(report["busy"]["base_s"].get<double>(), "s")},
      {"new", next["file"], next["device"], trace::compare_side_time(next["step_time_s"]), si(report["busy"]["new_s"].get<double>(), "s")},
      {"new / base", "", "", step_change, trace::compare_ratio(report["busy"]["ratio"])}};
  return "<section id=\"sides\"><h2>Step and busy time</h2>\n<p class=\"caption\">Step time: the window over its "
         "ProfilerStep ranges (a folder of ranks: its slowest rank's); \"no steps\" where the trace has none. Busy time: "
         "the ops' time summed over the whole window (streams and ranks added up).</p>\n<div class=\"table-wrap\">" +
         html_table({"side", "file", "device", "step time", "busy time"}, rows) + "</div></section>\n";
}

std::string classes_section(const json& report) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : report["classes"]) {
    if (c["base_s"].get<double>() == 0 && c["new_s"].get<double>() == 0) continue;
    rows.push_back({c["class"], si(c["base_s"].get<double>(), "s"), si(c["new_s"].get<double>(), "s"),
                    c["ratio"].is_null() ? std::string("new") : numbers::ratio(c["ratio"].get<double>())});
  }
  return "<section id=\"classes\"><h2>Classes</h2>\n<div class=\"table-wrap\">" +
         html_table({"class", "base time", "new time", "new / base"}, rows) + "</div></section>\n";
}

std::string ops_section(const json& report) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& o : report["ops"]) {
    if (rows.size() == kOpsShown) break;
    const std::string on = o["status"] == "both" ? "both sides" : o["status"] == "added" ? "new only" : "base only";
    rows.push_back({o["name"], trace::shapes_text(o["input_dims"]), trace::shapes_text(o["input_types"]), o["class"], si(o["base_s"].get<double>(), "s"),
                    si(o["new_s"].get<double>(), "s"), si(o["delta_s"].get<double>(), "s"),
                    trace::compare_fraction_of_roof(o["base_fraction_of_roof"]),
                    trace::compare_fraction_of_roof(o["new_fraction_of_roof"]), on});
  }
  return fmt::format("<section id=\"ops\"><h2>Largest changes per op shape</h2>\n<p class=\"caption\">The {} op shapes "
                     "(name, input shapes, dtypes) whose time changes most, of {}; fraction of roof: the shape's time at "
                     "the roof over its time, on each side's device.</p>\n<div class=\"table-wrap\">",
                     rows.size(), report["ops"].size()) +
         html_table({"op", "input dims", "input types", "class", "base time", "new time", "change", "base: of roof",
                     "new: of roof", "on"},
                    rows) +
         "</div></section>\n";
}

}  // namespace

std::string trace_compare_html(const json& report) {
  std::vector<Chart> charts;
  if (json spec = class_chart(report); !spec.is_null())
    charts.push_back({"trace-compare-classes", "Time per class", "Each class's time summed over the window, base beside new.", spec});
  if (json spec = roof_chart(report); !spec.is_null())
    charts.push_back({"trace-compare-roof", "Fraction of roof per op shape",
                      "The op shapes on both sides with a roof on both, largest time change first: the fraction of the roof "
                      "each reaches on the base's device and on the new side's.",
                      spec});
  std::string content = fmt::format(
      "<header class=\"page-header\">\n<h1>lmroof compare (traces)</h1>\n<p class=\"subtitle\">base {} \u00b7 new {}</p>\n</header>\n<main>\n",
      e(side_name(report["base"])), e(side_name(report["new"])));
  content += sides_section(report);
  content += classes_section(report);
  for (const auto& c : charts) content += chart_section_html(c);
  content += ops_section(report);
  if (report.contains("prediction"))
    content += "<section id=\"prediction\"><h2>Prediction beside the measured trace</h2>\n<pre>" +
               e(prediction_text(report["prediction"])) + "</pre></section>\n";
  content += "</main>\n<footer>Written by lmroof compare (docs/trace.md; schema lmroof.trace-compare/2 for --format json). "
             "Self-contained: nothing is fetched.</footer>\n";
  return render_page_html("lmroof compare (traces)", content, charts);
}

void write_trace_compare_html(const json& report, const std::filesystem::path& path) {
  write_file_atomically(path, trace_compare_html(report));
}

}  // namespace lmroof::report
