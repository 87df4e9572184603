// The HTML report: what render_report_html puts in the page, how it rejects a
// document that is not lmroof.results/1, and the Vega-Lite files write_report
// leaves beside the page. tests/e2e/report_renders.sh opens the page in a browser.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "reports/charts.h"
#include "reports/text/format.h"
#include "analysis/results/results.h"
#include "bench/catalogue.h"
#include "reports/html_report.h"

namespace {

using nlohmann::json;

json fixture() {
  std::ifstream in(std::string(LMROOF_TEST_DATA) + "/results_small.json");
  EXPECT_TRUE(in) << "cannot open tests/data/results_small.json";
  return json::parse(in);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Every <script> element closes at its own </script>: opening and closing tags
// alternate, so no inlined text ended an element early or left one open.
void expect_scripts_well_formed(const std::string& html, size_t expected_elements) {
  const std::string page = lower(html);
  size_t pos = 0, elements = 0;
  while (true) {
    const size_t open = page.find("<script", pos);
    const size_t close = page.find("</script", pos);
    if (open == std::string::npos) {
      EXPECT_EQ(close, std::string::npos) << "a </script appears outside any script element at " << close;
      break;
    }
    ASSERT_NE(close, std::string::npos) << "script element at " << open << " never closes";
    ASSERT_LT(open, close) << "</script at " << close << " closes nothing";
    const size_t next_open = page.find("<script", open + 1);
    EXPECT_TRUE(next_open == std::string::npos || next_open > close)
        << "<script inside the script element at " << open << " (its text must not contain one)";
    EXPECT_EQ(page.compare(close, 9, "</script>"), 0) << "inlined text contains </script at " << close;
    ++elements;
    pos = close + 1;
  }
  EXPECT_EQ(elements, expected_elements);
}

std::filesystem::path fresh_dir() {
  std::random_device rd;
  auto dir = std::filesystem::temp_directory_path() / ("lmroof_test_report_" + std::to_string(rd()) + std::to_string(rd()));
  std::filesystem::create_directories(dir);
  return dir;
}

// The page's own markup: everything before the inlined scripts.
// A results document as the report reads it: validated into the model (the
// catalogue from the registry when the document has none).
lmroof::model::Results typed(const json& doc) { return lmroof::results_from_document(doc, "results.json", lmroof::registry_catalogue()); }
std::string render(const json& doc) { return lmroof::render_report_html(typed(doc)); }
std::vector<lmroof::report::Chart> charts_of(const json& doc) { return lmroof::report::build_charts(typed(doc)); }
json roofline_of(const json& doc) { return lmroof::report::roofline_chart(typed(doc)); }
json shares_of(const json& doc) { return lmroof::report::block_shares_chart(typed(doc)); }

std::string markup(const std::string& html) { return html.substr(0, html.find("<script")); }

TEST(Report, FixtureHasEveryChartAndSection) {
  const std::string html = render(fixture());
  for (const char* id : {"roofline", "pair-norm", "pair-bias", "pair-block", "pair-decode", "block-shares", "runs-table"})
    EXPECT_NE(html.find(std::string("id=\"chart-") + id + "\""), std::string::npos) << "missing chart container " << id;
  for (const char* id : {"id=\"verdict-summary\"", "id=\"key-results\"", "id=\"claims\"", "id=\"metrics\"",
                         "id=\"comparisons\"", "id=\"runs-table\"", "id=\"machine\"", "id=\"report-errors\"",
                         "id=\"report-charts\""})
    EXPECT_NE(html.find(id), std::string::npos) << "missing " << id;
  EXPECT_NE(html.find("data-charts-expected=\"6\""), std::string::npos);
  const std::string page = markup(html);
  // The answer first: the verdict summary, the key results, the roofline, then the
  // claims in full (coloured verdicts, links to their charts), then the pair charts.
  EXPECT_LT(page.find("id=\"verdict-summary\""), page.find("id=\"key-results\""));
  EXPECT_LT(page.find("id=\"key-results\""), page.find("id=\"chart-roofline\""));
  EXPECT_LT(page.find("id=\"chart-roofline\""), page.find("id=\"claims\""));
  EXPECT_LT(page.find("id=\"claims\""), page.find("id=\"metrics\""));
  EXPECT_LT(page.find("id=\"metrics\""), page.find("id=\"chart-pair-norm\""));
  // machine, backend, dtype and date on the first line
  for (const char* fact : {"<b>machine</b>", "<b>backend</b> cpu", "<b>dtype</b> fp32", "<b>date</b>"})
    EXPECT_NE(page.find(fact), std::string::npos) << fact;
  EXPECT_LT(page.find("id=\"chart-block-shares\""), page.find("id=\"comparisons\""));
  EXPECT_LT(page.find("id=\"comparisons\""), page.find("id=\"chart-runs-table\""));
  EXPECT_LT(page.find("id=\"chart-runs-table\""), page.find("id=\"machine\""));
  for (const char* v : {"verdict-holds", "verdict-fails", "verdict-inconclusive"}) EXPECT_NE(page.find(v), std::string::npos) << v;
  EXPECT_NE(page.find("href=\"#chart-pair-norm\""), std::string::npos);
  EXPECT_NE(page.find("analytic"), std::string::npos);
  EXPECT_NE(page.find("30.4 GB/s"), std::string::npos);    // the copy ceiling
  EXPECT_NE(page.find("201 GFLOP/s"), std::string::npos);  // the FMA ceiling
  EXPECT_NE(page.find("1.27 ms"), std::string::npos);      // a median time
  // Self-contained: nothing refers to another file or host.
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
}

TEST(Report, InlinedScriptsCannotCloseEarly) {
  expect_scripts_well_formed(render(fixture()), 5);

  // Text from results.json lands in the markup and in the inlined chart data.
  json doc = fixture();
  const std::string variant = "x</script><script>alert(1)</script>";
  doc["runs"][0]["variant"] = variant;
  // A run's variant is one of its pair's in the catalogue the file carries.
  json catalogue = lmroof::model::to_json(lmroof::registry_catalogue());
  for (auto& pair : catalogue["pairs"])
    if (pair["name"] == doc["runs"][0]["pair"]) pair["combos"].push_back({{"variant", variant}, {"impl", doc["runs"][0]["impl"]}});
  doc["catalogue"] = catalogue;
  for (auto& c : doc["comparisons"])  // and the comparisons of that run name it so
    for (const char* side : {"baseline", "candidate"})
      if (c[side]["run"] == doc["runs"][0]["id"]) c[side]["variant"] = variant;
  doc["claims"][0]["statement"] = "</SCRIPT><b>bold</b>";
  const std::string html = render(doc);
  expect_scripts_well_formed(html, 5);
  EXPECT_EQ(html.find("<b>bold</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/SCRIPT&gt;&lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
}

TEST(Report, RejectsDocumentsThatAreNotResults) {
  // One line naming the file and the JSON pointer of the problem.
  auto expect_rejected = [](const json& doc, const std::string& mentions) {
    try {
      render(doc);
      ADD_FAILURE() << "accepted " << doc.dump().substr(0, 80);
    } catch (const lmroof::model::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("results.json: " + mentions), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << "message is not one line: " << what;
    }
  };
  json doc = fixture();
  doc["schema"] = "lmroof.results/2";
  expect_rejected(doc, "/schema: this lmroof reads lmroof.results/1");
  doc["schema"] = 1;
  expect_rejected(doc, "/schema: must be a string");
  doc.erase("schema");
  expect_rejected(doc, "/: missing 'schema'");
  doc = fixture();
  doc.erase("runs");
  expect_rejected(doc, "/: missing 'runs'");
  doc = fixture();
  doc["runs"] = json::object();
  expect_rejected(doc, "/runs: must be an array");
  doc = fixture();
  doc["runs"][2] = 7;
  expect_rejected(doc, "/runs/2: must be an object");
  doc = fixture();
  doc["runs"][0]["pair"] = 3;
  expect_rejected(doc, "/runs/0/pair: must be a string (is 3)");
  doc = fixture();
  doc["claims"] = "none";
  expect_rejected(doc, "/claims: must be an array");
  expect_rejected(json::array(), "/: must be an object");
  expect_rejected(json{{"benchmarks", json::array()}}, "/: missing 'schema'");
}

TEST(Report, WriteReportWritesPageAndVegaLiteSpecs) {
  const auto dir = fresh_dir();
  lmroof::write_report(typed(fixture()), dir / "report.html");
  ASSERT_TRUE(std::filesystem::exists(dir / "report.html"));
  EXPECT_GT(std::filesystem::file_size(dir / "report.html"), 500'000u);  // the Vega builds are inlined
  for (const char* id : {"roofline", "pair-norm", "pair-bias", "pair-block", "pair-decode", "block-shares"}) {
    const auto path = dir / (std::string("report.") + id + ".vl.json");
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    std::ifstream in(path);
    json spec;
    ASSERT_NO_THROW(spec = json::parse(in)) << path;
    EXPECT_NE(spec.value("$schema", "").find("vega-lite"), std::string::npos) << path;
  }
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 9u) << "only the page, six specs and two CSV files, no temporary files";
  std::ifstream runs_csv(dir / "report.runs.csv"), comparisons_csv(dir / "report.comparisons.csv");
  std::string header;
  ASSERT_TRUE(std::getline(runs_csv, header));
  EXPECT_EQ(header.rfind("id,pair,variant,impl,backend,dtype,shape,time_median_s", 0), 0u) << header;
  ASSERT_TRUE(std::getline(comparisons_csv, header));
  EXPECT_NE(header.find("speedup,speedup_low,speedup_high,noise,p_value"), std::string::npos) << header;
  std::filesystem::remove_all(dir);
}

TEST(Report, ChartsHoldOnlyWhatCanBeDrawn) {
  json doc = fixture();
  // Keep the norm runs only, one of them without FLOPs (a log axis cannot show 0) and
  // one without a time.
  json runs = json::array();
  for (const auto& r : doc["runs"])
    if (r["pair"] == "norm") runs.push_back(r);
  runs[0]["flops"]["total"] = 0;
  runs[0]["flops"]["analytic_total"] = 0;
  runs[0]["flops"]["vector"] = 0;
  runs[0]["flops"]["special"] = 0;
  // and what follows from no FLOPs (the reader checks derived fields agree)
  for (const char* key : {"value", "model", "minimum"}) runs[0]["intensity"][key] = 0;
  runs[0]["achieved"]["flop_per_s"] = 0;
  runs[0]["roofline"]["attainable_flop_per_s"] = 0;
  runs[0]["roofline"]["efficiency"] = 0;
  runs[0]["bound"] = "memory";
  doc["runs"] = runs;
  doc["claims"] = json::array();
  doc["comparisons"] = json::array();
  const auto charts = charts_of(doc);
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].id, "roofline");
  EXPECT_EQ(charts[1].id, "pair-norm");
  // The template's "points" dataset; the unplottable run is not in it.
  const json& points = charts[0].spec["datasets"]["points"];
  EXPECT_EQ(points.size(), runs.size() - 1);
  for (const auto& p : points) {
    EXPECT_GT(p["x_model"].get<double>(), 0);
    EXPECT_GT(p["x_minimum"].get<double>(), 0);
    EXPECT_GT(p["y_analytic"].get<double>(), 0);
    EXPECT_TRUE(p["x_measured"].is_null()) << "the fixture has no measured bytes";
  }
  // Nothing measured: the bytes basis offers minimum and model only.
  EXPECT_EQ(charts[0].spec["params"][0]["bind"]["options"], json({"minimum", "model"}));
  EXPECT_EQ(charts[0].spec["params"][0]["value"], "model");
  const std::string spec = charts[0].spec.dump();
  EXPECT_NE(spec.find("copy: 30.4 GB/s"), std::string::npos);
  EXPECT_NE(spec.find("ridge "), std::string::npos) << "the ridge points are marked";
  EXPECT_NE(spec.find("fp32_fma (vector"), std::string::npos);
  EXPECT_NE(spec.find("sgemm (matrix"), std::string::npos);

  const std::string html = render(doc);
  EXPECT_NE(html.find("data-charts-expected=\"2\""), std::string::npos);
  EXPECT_EQ(markup(html).find("id=\"chart-block-shares\""), std::string::npos);
  EXPECT_NE(html.find("No claims were checked"), std::string::npos);

  json empty = fixture();
  for (auto key : {"runs", "comparisons", "claims"}) empty[key] = json::array();
  EXPECT_TRUE(charts_of(empty).empty());
  EXPECT_NE(render(empty).find("data-charts-expected=\"0\""), std::string::npos);
}

TEST(Report, RooflineSwitchesBetweenAnalyticAndMeasuredAxes) {
  json doc = fixture();
  // Counters for two norm runs (values made up for the test): DRAM and L2 bytes.
  int measured = 0;
  for (auto& r : doc["runs"]) {
    if (r["pair"] != "norm" || measured == 2) continue;
    r["bytes"]["measured"] = 2 * r["bytes"]["minimum"].get<double>();
    r["bytes"]["measured_l2"] = 3 * r["bytes"]["minimum"].get<double>();
    r["bytes"]["measured_over_minimum"] = 2.0;
    r["flops"]["analytic_total"] = r["flops"]["total"];
    r["flops"]["source"] = "cupti";
    ++measured;
  }
  doc["ceilings"].push_back({{"name", "l2_read"}, {"kind", "bandwidth"}, {"backend", "cpu"}, {"value", 1e12},
                             {"unit", "B/s"}, {"source", "measured"}, {"detail", "test"}, {"samples", 1}});
  doc["roofs"]["l2_bandwidth"] = "l2_read";
  const json spec = roofline_of(doc);
  ASSERT_TRUE(spec.contains("params"));
  const json& basis = spec["params"][0];
  EXPECT_EQ(basis["name"], "basis");
  EXPECT_EQ(basis["value"], "measured");  // measured first
  EXPECT_EQ(basis["bind"]["options"], json({"minimum", "model", "measured", "l2"}));
  const json& points = spec["datasets"]["points"];
  int with_dram = 0;
  for (const auto& p : points) {
    EXPECT_TRUE(p["x_model"].is_number());  // analytic axes for every run
    if (p["x_measured"].is_null()) continue;
    ++with_dram;
    const json* run = nullptr;
    for (const auto& r : doc["runs"])
      if (r["id"] == p["id"]) run = &r;
    ASSERT_NE(run, nullptr);
    const double flops = (*run)["flops"]["total"].get<double>(), minimum = (*run)["bytes"]["minimum"].get<double>();
    EXPECT_DOUBLE_EQ(p["x_measured"].get<double>(), flops / (2 * minimum));
    EXPECT_DOUBLE_EQ(p["x_l2"].get<double>(), flops / (3 * minimum));
    EXPECT_DOUBLE_EQ(p["x_minimum"].get<double>(), flops / minimum);
    EXPECT_DOUBLE_EQ(p["x_model"].get<double>(), flops / (*run)["bytes"]["model"].get<double>());
  }
  EXPECT_EQ(with_dram, 2);
  const std::string text = spec.dump();
  EXPECT_NE(text.find("l2_read (L2): 1.00 TB/s"), std::string::npos);
  EXPECT_NE(text.find("basis == 'l2'"), std::string::npos);
  // The page renders it and says what the switch does.
  EXPECT_NE(render(doc).find("The bytes basis switches"), std::string::npos);
}

TEST(Report, KernelsSectionListsEveryTracedKernel) {
  json doc = fixture();
  EXPECT_EQ(markup(render(doc)).find("id=\"kernels\""), std::string::npos)
      << "no run was traced: no section";
  json& run = doc["runs"][0];
  run["kernels"] = {{"source", "cupti_trace"}, {"available", true}, {"reason", nullptr}, {"dropped_records", 0},
                    {"total_s", 4e-6},
                    {"list", {{{"name", "void lmroof::norm::fused_norm_kernel<__nv_bfloat16, (Kind)0, 32, 4>(...)"},
                               {"class", "normalization"}, {"grid", {128, 1, 1}}, {"block", {128, 1, 1}},
                               {"time_s", 3e-6}, {"share", 0.75}},
                              {{"name", "elementwise<b>"}, {"class", "elementwise"}, {"grid", {4, 1, 1}},
                               {"block", {256, 1, 1}}, {"time_s", 1e-6}, {"share", 0.25}}}}};
  doc["runs"][1]["kernels"] = {{"source", "cupti_trace"}, {"available", false}, {"reason", "tracing refused"},
                               {"dropped_records", 0}, {"total_s", 0}, {"list", json::array()}};
  const std::string page = markup(render(doc));
  const size_t section = page.find("id=\"kernels\"");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(page.find("href=\"#kernels\""), std::string::npos);
  const std::string kernels = page.substr(section, page.find("</section>", section) - section);
  EXPECT_NE(kernels.find("2 kernels, 4.00 \u00b5s"), std::string::npos) << kernels;
  EXPECT_NE(kernels.find("<details open>"), std::string::npos);  // several kernels: open
  EXPECT_NE(kernels.find("fused_norm_kernel&lt;__nv_bfloat16"), std::string::npos);  // escaped
  EXPECT_NE(kernels.find("128\u00d71\u00d71"), std::string::npos);
  EXPECT_NE(kernels.find("75.0%"), std::string::npos);
  EXPECT_NE(kernels.find("not traced (tracing refused)"), std::string::npos);
}

TEST(Report, BlockSharesShowThePapersFigures) {
  const auto spec = shares_of(fixture());
  ASSERT_FALSE(spec.is_null());
  int paper_rows = 0;
  std::set<std::string> measured_categories;
  for (const auto& row : spec["datasets"]["shares"]) {
    if (row["panel"].get<std::string>().find("(paper)") != std::string::npos) {
      ++paper_rows;
      if (row["category"] == "normalization" && row["measure"] == "runtime share") {
        EXPECT_DOUBLE_EQ(row["share"].get<double>(), 0.255);
      }
    } else {
      measured_categories.insert(row["category"].get<std::string>());
    }
  }
  EXPECT_EQ(paper_rows, 6);
  // The measured panels use the paper's categories, so the bars line up.
  for (const auto& c : measured_categories)
    EXPECT_TRUE(c == "tensor contraction" || c == "normalization" || c == "element-wise") << c;
  EXPECT_EQ(lmroof::report::ivanov_category(lmroof::OpClass::matmul), "tensor contraction");
  EXPECT_EQ(lmroof::report::ivanov_category(lmroof::OpClass::attention), "tensor contraction");
  EXPECT_EQ(lmroof::report::ivanov_category(lmroof::OpClass::elementwise), "element-wise");
}

TEST(Report, NumbersAreReadable) {
  using namespace lmroof::report;
  EXPECT_EQ(si(1.27e-3, "s"), "1.27 ms");
  EXPECT_EQ(si(9.3e-4, "s"), "930 \u00b5s");
  EXPECT_EQ(si(30.4e9, "B/s"), "30.4 GB/s");
  EXPECT_EQ(si(2.013e11, "FLOP/s"), "201 GFLOP/s");
  EXPECT_EQ(si(999.7, "B"), "1.00 kB");
  EXPECT_EQ(si(0, "B"), "0 B");
  EXPECT_EQ(sig(0.5), "0.500");
  EXPECT_EQ(sig(157.52), "158");
  EXPECT_EQ(sig(0.000123456), "0.000123");
  EXPECT_EQ(percent(0.0123), "1.23%");
  EXPECT_EQ(ratio(1.5193), "1.52\u00d7");
  lmroof::model::Catalogue catalogue;
  catalogue.dimension_order = {"tokens", "d_model"};
  EXPECT_EQ(shape_label(catalogue, {{"d_model", 1024}, {"tokens", 4096}}), "tokens=4096 d_model=1024");
  EXPECT_EQ(shape_label(catalogue, {{"zeta", 2}, {"d_model", 1024}}, {"tokens"}), "d_model=1024 zeta=2");
  EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

}  // namespace
