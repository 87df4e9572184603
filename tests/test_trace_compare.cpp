// `lmroof compare A/trace.json B/trace.json`: each side's step time and busy time, the
// fraction of the roof per side for each matched op shape, the text and the page.
#include <gtest/gtest.h>

#include <string>

#include "analysis/trace/trace_compare.h"
#include "analysis/model/trace_result.h"
#include "reports/text/trace_text.h"
#include "reports/trace_compare_report.h"

namespace {

using nlohmann::json;

// Both sides read as `lmroof compare` reads them (model::read_trace_result checks each
// field), then compared.
json compare_traces(const json& base, const json& next, const std::string& base_file, const std::string& next_file) {
  return lmroof::trace::compare_traces(lmroof::model::read_trace_result(base, base_file),
                                       lmroof::model::read_trace_result(next, next_file));
}

json op(const std::string& name, double time_s, json roof_time_s) {
  return {{"name", name},   {"input_dims", json::array({json::array({2, 2})})}, {"input_types", json::array({"float"})}, {"class", "matmul"},
          {"time_s", time_s}, {"roof_time_s", roof_time_s}};
}

// One trace of `steps` ProfilerStep ranges over `window_s`, its ops summing to `busy_s`.
json a_trace(double window_s, int steps, json ops) {
  double busy = 0;
  for (const auto& o : ops) busy += o["time_s"].get<double>();
  return {{"schema", "lmroof.trace/2"},
          {"device", {{"name", "H100"}}},
          {"total_time_s", busy},
          {"window", {{"kind", steps > 0 ? "steps" : "whole"}, {"step_count", steps}, {"total_s", window_s}}},
          {"classes", json::array({{{"class", "matmul"}, {"time_s", busy}, {"flop_share", 1}, {"byte_share", 1}, {"time_share", 1},
                                    {"fraction_of_roof", nullptr}}})},
          {"ops", ops}};
}

json find_op(const json& report, const std::string& name) {
  for (const auto& o : report["ops"])
    if (o["name"] == name) return o;
  ADD_FAILURE() << "no op " << name;
  return json::object();
}

TEST(TraceCompare, StepAndBusyTimePerSideAndFractionOfRoofPerMatchedOp) {
  // base: 2 steps in 20 ms (10 ms a step); mm 4 ms at a 1 ms roof (25%), relu only here.
  const json base = a_trace(0.020, 2, json::array({op("aten::mm", 0.004, 0.001), op("aten::relu", 0.002, 0.0005)}));
  // new: 4 steps in 20 ms (5 ms a step); mm 2 ms at the same roof (50%), gelu only here.
  const json next = a_trace(0.020, 4, json::array({op("aten::mm", 0.002, 0.001), op("aten::gelu", 0.001, nullptr)}));
  const json r = compare_traces(base, next, "a/trace.json", "b/trace.json");
  EXPECT_EQ(r["schema"], "lmroof.trace-compare/2");
  EXPECT_DOUBLE_EQ(r["base"]["step_time_s"].get<double>(), 0.010);
  EXPECT_DOUBLE_EQ(r["new"]["step_time_s"].get<double>(), 0.005);
  EXPECT_DOUBLE_EQ(r["step"]["ratio"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r["busy"]["base_s"].get<double>(), 0.006);
  EXPECT_DOUBLE_EQ(r["busy"]["new_s"].get<double>(), 0.003);
  const json mm = find_op(r, "aten::mm");
  EXPECT_EQ(mm["status"], "both");
  EXPECT_DOUBLE_EQ(mm["base_fraction_of_roof"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(mm["new_fraction_of_roof"].get<double>(), 0.5);
  const json relu = find_op(r, "aten::relu"), gelu = find_op(r, "aten::gelu");
  EXPECT_EQ(relu["status"], "gone");
  EXPECT_TRUE(relu["new_fraction_of_roof"].is_null());
  EXPECT_EQ(gelu["status"], "added");
  EXPECT_TRUE(gelu["new_fraction_of_roof"].is_null()) << "no roof on its side: unknown, never 0";

  const std::string text = lmroof::trace::compare_text(r, false);
  EXPECT_NE(text.find("step time: 10.0 ms -> 5.00 ms (0.500×)"), std::string::npos) << text;
  EXPECT_NE(text.find("busy time (summed over ops, whole window): 6.00 ms -> 3.00 ms"), std::string::npos) << text;
  EXPECT_EQ(text.find("total time"), std::string::npos) << text;
  EXPECT_NE(text.find("25.0% ->     50.0%"), std::string::npos) << text;
  
  const std::string markdown = lmroof::trace::compare_text(r, true);
  EXPECT_NE(markdown.find("| base: of roof | new: of roof |"), std::string::npos) << markdown;
}

TEST(TraceCompare, AShapeWithZeroTimeOnOneSideIsOnBothSidesNotAdded) {
  const json base = a_trace(0.01, 1, json::array({op("aten::mm", 0, nullptr)}));
  const json next = a_trace(0.01, 1, json::array({op("aten::mm", 0.001, nullptr)}));
  EXPECT_EQ(find_op(compare_traces(base, next, "a", "b"), "aten::mm")["status"], "both");
}

TEST(TraceCompare, AFractionOfRoofIsUnknownWhereOneRowOfTheShapeHasNoRoof) {
  // Two rows of one shape (on two devices, or two layouts): one without a roof.
  const json base = a_trace(0.01, 1, json::array({op("aten::mm", 0.002, 0.001), op("aten::mm", 0.002, nullptr)}));
  const json r = compare_traces(base, base, "a", "b");
  EXPECT_TRUE(find_op(r, "aten::mm")["base_fraction_of_roof"].is_null());
  EXPECT_DOUBLE_EQ(find_op(r, "aten::mm")["base_s"].get<double>(), 0.004);
}

TEST(TraceCompare, NoStepsIsSaidAndAFolderOfRanksTakesItsSlowestRanksStep) {
  const json whole = a_trace(0.5, 0, json::array({op("aten::mm", 0.001, nullptr)}));
  json ranks = a_trace(0.030, 2, json::array({op("aten::mm", 0.001, nullptr)}));
  // The merged window sums the ranks (30 ms over 2 steps is no step time); the slowest rank's is.
  ranks["ranks"] = json::array({{{"step_time_s", 0.006}, {"slowest", false}}, {{"step_time_s", 0.009}, {"slowest", true}}});
  const json r = compare_traces(whole, ranks, "w", "r");
  EXPECT_TRUE(r["base"]["step_time_s"].is_null()) << "a capture's length is no step time";
  EXPECT_DOUBLE_EQ(r["new"]["step_time_s"].get<double>(), 0.009);
  EXPECT_TRUE(r["step"].is_null());
  EXPECT_NE(lmroof::trace::compare_text(r, false).find("step time: no steps -> 9.00 ms (-)"), std::string::npos)
      << lmroof::trace::compare_text(r, false);
}

TEST(TraceCompare, ThePageHoldsBothSidesTheChartsAndEscapesNames) {
  const json base = a_trace(0.020, 2, json::array({op("aten::mm", 0.004, 0.001), op("<script>x</script>", 0.001, 0.0005)}));
  const json next = a_trace(0.020, 2, json::array({op("aten::mm", 0.002, 0.001), op("<script>x</script>", 0.001, 0.0005)}));
  const std::string page = lmroof::report::trace_compare_html(compare_traces(base, next, "a/trace.json", "b/trace.json"));
  for (const char* id : {"id=\"sides\"", "id=\"classes\"", "id=\"ops\"", "chart-trace-compare-classes", "chart-trace-compare-roof"})
    EXPECT_NE(page.find(id), std::string::npos) << id;
  EXPECT_EQ(page.find("<script>x</script>"), std::string::npos) << "an op name is text, never markup";
  EXPECT_NE(page.find("&lt;script&gt;x"), std::string::npos);
  EXPECT_NE(page.find("busy time"), std::string::npos);
  EXPECT_EQ(page.find("total time"), std::string::npos);
}

}  // namespace
