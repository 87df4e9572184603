// The pair catalogue travels in results.json: a pair the report and the claims have
// never heard of (here "moe(top2)", with CSS-special characters) shows with its
// title, its chart and its claims, with no other edit. And analysis is a pure
// function of bench.json: costs from its counters, machine facts from its context.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "test_support.h"
#include "analysis/claims/claims.h"
#include "analysis/model/json_input.h"
#include "analysis/results/results.h"
#include "bench/catalogue.h"
#include "bench_fixture.h"
#include "bench/suite.h"
#include "kernels/model_config/model_config.h"
#include "registry.h"
#include "reports/charts.h"
#include "reports/html_report.h"

namespace lmroof {
namespace {

using nlohmann::json;

json small_results_json() { return model::read_json_file(std::string(LMROOF_TEST_DATA) + "/results_small.json"); }

// results_small.json with its norm runs copied into a pair "moe(top2)" the registry
// does not have, described only by the catalogue inside the file.
json with_fake_pair() {
  json doc = small_results_json();
  json catalogue = model::to_json(registry_catalogue());
  json fake = catalogue["pairs"][0];  // norm's entry as the template
  fake["name"] = "moe(top2)";
  fake["title"] = "MoE pair: top-2 routing vs dense";
  fake["chart"] = model::chart_id_for_pair("moe(top2)");
  fake["comparisons"] = json::array();
  catalogue["pairs"].push_back(fake);
  catalogue["charts"].push_back(fake["chart"]);
  doc["catalogue"] = catalogue;
  json runs = doc["runs"];
  for (const auto& r : doc["runs"])
    if (r["pair"] == "norm") {
      json copy = r;
      copy["pair"] = "moe(top2)";
      copy["id"] = "moe(top2)/" + r["id"].get<std::string>();
      runs.push_back(copy);
    }
  doc["runs"] = runs;
  doc["claims"] = json::array();
  return doc;
}

TEST(Catalogue, ExportsTheRegistry) {
  const model::Catalogue c = registry_catalogue();
  ASSERT_EQ(c.pairs.size(), all_pairs().size());
  for (size_t i = 0; i < c.pairs.size(); ++i) {
    EXPECT_EQ(c.pairs[i].name, all_pairs()[i].name);
    EXPECT_FALSE(c.pairs[i].title.empty());
    EXPECT_EQ(c.pairs[i].chart, "pair-" + all_pairs()[i].name);
    EXPECT_EQ(c.pairs[i].variant_dims, all_pairs()[i].variant_dims);
  }
  const auto* decode = c.find("decode");
  ASSERT_NE(decode, nullptr);
  EXPECT_EQ(decode->variant_dims, std::vector<std::string>{"kv_heads"});
  EXPECT_NE(std::find(c.dimension_order.begin(), c.dimension_order.end(), "context"), c.dimension_order.end());
  EXPECT_EQ(c.charts.front(), "roofline");
}

TEST(Catalogue, MergedDimensionOrderKeepsEverySequencesOrder) {
  // "c a" and "a b" agree: c before a before b, though a and b were seen first
  EXPECT_EQ(model::merge_dimension_orders({{"a", "b"}, {"c", "a"}}), (std::vector<std::string>{"c", "a", "b"}));
  // no constraint between b and c: first appearance
  EXPECT_EQ(model::merge_dimension_orders({{"a", "b"}, {"a", "c"}}), (std::vector<std::string>{"a", "b", "c"}));
  // sequences that disagree (a cycle) still give every name once: the free ones first,
  // then the cycle broken at its first-seen name
  EXPECT_EQ(model::merge_dimension_orders({{"x", "y"}, {"y", "x"}, {"z"}}), (std::vector<std::string>{"z", "x", "y"}));
  EXPECT_TRUE(model::merge_dimension_orders({}).empty());
}

// The catalogue's dimension order is the one every surface prints (list, report, CSV,
// compare, check); run ids and benchmark names, an on-disk format, list a shape's
// dimensions as its pair does. The two must agree for every shape lmroof can run:
// the suites' (default, --quick, CUDA) and every model preset's.
TEST(Catalogue, DimensionOrderIsTheRunIdsOrder) {
  const model::Catalogue c = registry_catalogue();
  auto label = [&](const Shape& s) { return c.label(model::Shape(s.dims().begin(), s.dims().end())); };
  size_t checked = 0;
  for (const auto& pair : all_pairs())
    for (const auto* shapes : {&pair.default_shapes, &pair.quick_shapes, &pair.cuda_shapes})
      for (const auto& s : *shapes)
        for (const auto& combo : pair.combos) {
          const Shape full = pair.complete_shape(combo.variant, s);
          EXPECT_EQ(label(full), full.label()) << pair.name << "/" << combo.variant;
          ++checked;
        }
  for (const auto& name : preset_names())
    for (bool quick : {false, true}) {
      bench::SuiteOptions o;
      o.quick = quick;
      o.shapes.model = find_model(name);
      for (const auto& r : bench::plan_suite(o).runs) {
        EXPECT_EQ(label(r.shape), r.shape.label()) << r.bench_name();
        ++checked;
      }
    }
  EXPECT_GT(checked, 100u);
  // decode reads as its run ids do ("batch:2/q_heads:16/kv_heads:16/head_dim:64/context:128")
  EXPECT_EQ(c.label({{"context", 128}, {"head_dim", 64}, {"q_heads", 16}, {"kv_heads", 16}, {"batch", 2}}),
            "batch=2 q_heads=16 kv_heads=16 head_dim=64 context=128");
  const auto* decode = c.find("decode");
  ASSERT_NE(decode, nullptr);
  EXPECT_EQ(decode->dims, (std::vector<std::string>{"batch", "q_heads", "kv_heads", "head_dim", "context"}));
  // the one helper: a separator, skipped names, unknown names last
  EXPECT_EQ(c.label({{"zeta", 1}, {"context", 128}, {"batch", 2}}, " \u00b7 ", {"context"}), "batch=2 \u00b7 zeta=1");
}

TEST(Catalogue, AFakePairShowsInTheReportWithItsTitle) {
  const model::Results results = test::decided(model::results_from_json(with_fake_pair(), "fake.json"));
  const auto charts = report::build_charts(results);
  const report::Chart* chart = nullptr;
  for (const auto& c : charts)
    if (c.id == "pair-moe-top2") chart = &c;
  ASSERT_NE(chart, nullptr) << "no chart for the fake pair";
  EXPECT_EQ(chart->title, "MoE pair: top-2 routing vs dense");
  const std::string html = render_report_html(results);
  EXPECT_NE(html.find("MoE pair: top-2 routing vs dense"), std::string::npos);
  EXPECT_NE(html.find("id=\"chart-pair-moe-top2\""), std::string::npos);
  EXPECT_EQ(html.find("chart-moe(top2)"), std::string::npos) << "a pair name became a CSS id";

  // The chart files are named by the id: beside the page, whatever the pair is called.
  const auto dir = std::filesystem::temp_directory_path() / ("lmroof-fake-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);  // outputs never create folders (analysis/io/output_file.h)
  write_report(results, dir / "report.html");
  EXPECT_TRUE(std::filesystem::exists(dir / "report.pair-moe-top2.vl.json"));
  std::filesystem::remove_all(dir);
}

TEST(Catalogue, AFakePairIsCheckedByClaims) {
  const model::Results results = test::decided(model::results_from_json(with_fake_pair(), "fake.json"));
  const std::string yaml =
      "claims:\n  - id: moe-faster\n    statement: in the fake pair, rmsnorm is faster\n    source: test\n"
      "    check: {kind: faster, candidate: {pair: moe(top2), variant: rmsnorm, impl: fused},\n"
      "            baseline: {pair: moe(top2), variant: layernorm, impl: fused}, factor: 1.0}\n";
  const auto claims = parse_claims(yaml, "moe.yaml", results.catalogue);
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].chart, "pair-moe-top2");
  const auto verdicts = check_claims(claims, results);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_NE(verdicts[0].verdict, model::Verdict::not_measured) << verdicts[0].reason.value_or("");
  // Against the registry's catalogue the pair is unknown: the claims file is bad input.
  EXPECT_THROW(parse_claims(yaml, "moe.yaml", registry_catalogue()), ClaimsFileError);
}

TEST(Catalogue, PathLikePairNamesNeverBecomePaths) {
  json doc = with_fake_pair();
  doc["catalogue"]["pairs"].back()["name"] = "/../../../tmp/x/owned";
  doc["catalogue"]["pairs"].back()["chart"] = model::chart_id_for_pair("/../../../tmp/x/owned");
  doc["catalogue"]["charts"].back() = doc["catalogue"]["pairs"].back()["chart"];
  for (auto& r : doc["runs"])
    if (r["pair"] == "moe(top2)") r["pair"] = "/../../../tmp/x/owned";
  const model::Results results = test::decided(model::results_from_json(doc, "owned.json"));
  const auto dir = std::filesystem::temp_directory_path() / ("lmroof-owned-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);  // outputs never create folders (analysis/io/output_file.h)
  write_report(results, dir / "report.html");
  EXPECT_TRUE(std::filesystem::exists(dir / "report.pair-tmp-x-owned.vl.json"));
  for (const auto& f : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(f.path().parent_path(), dir) << f.path();
  std::filesystem::remove_all(dir);
  // A chart id that is not [a-z0-9-] is refused on reading.
  doc["catalogue"]["pairs"].back()["chart"] = "../../x";
  EXPECT_THROW(model::results_from_json(doc, "owned.json"), model::InputError);
}

// ---- analysis is a pure function of bench.json ------------------------------------

using test::bench_entry;  // tests/bench_fixture.h

json foreign_bench() {
  json cost = {{"flops", 1000.0}, {"flops_matrix", 0.0}, {"flops_vector", 990.0}, {"flops_special", 10.0},
               {"bytes_minimum", 500.0}, {"bytes_model", 2000.0}};
  json b = json::array({bench_entry("ceiling/cpu/copy", 10, {{"ceiling_bytes", 2e8}}),
                        bench_entry("ceiling/cpu/fp32_fma", 10, {{"ceiling_flops", 1e9}}),
                        bench_entry("norm/rmsnorm/fused/cpu/fp32/tokens:4/d_model:8", 1, cost),
                        bench_entry("norm/rmsnorm/fused/cpu/fp32/tokens:4/d_model:8", 2, cost)});
  json context = {{"host_name", "far-away"}, {"num_cpus", 96}, {"mhz_per_cpu", 3000}, {"date", "2026-01-01T00:00:00Z"},
                  {"lmroof_cpu_model", "Imaginary CPU 9000"}, {"lmroof_threads", "48"}, {"lmroof_gpu", "null"},
                  {"lmroof_build", json({{"compiler", "GNU 99"}, {"build_type", "Release"}, {"build_flags", "-O3"},
                                         {"cuda_compiler", nullptr}, {"lmroof_version", "9.9.9"},
                                         {"git_commit", "abcdef"}}).dump()},
                  {"lmroof_suite", R"({"pairs": ["norm"], "quick": true})"}};
  return {{"context", context}, {"benchmarks", b}};
}

TEST(PureAnalysis, CostsAndMachineComeFromTheBenchFile) {
  AnalysisOptions options;
  options.date = "2026-11-30T00:00:00Z";
  const model::Results r = build_results(parse_bench_json(test::as_measured(foreign_bench()), "bench.json"), options);
  ASSERT_EQ(r.runs.size(), 1u);
  // The counters' cost, not this build's cost model (which says 80 FLOPs for this shape).
  EXPECT_DOUBLE_EQ(r.runs[0].flops.total, 1000);
  EXPECT_DOUBLE_EQ(r.runs[0].bytes.model, 2000);
  EXPECT_DOUBLE_EQ(r.runs[0].bytes.minimum, 500);
  EXPECT_EQ(r.machine.cpu_model, "Imaginary CPU 9000");
  EXPECT_EQ(r.machine.threads, 48);
  EXPECT_EQ(r.machine.cores, 96);
  EXPECT_EQ(r.machine.hostname, "far-away");
  EXPECT_EQ(r.machine.compiler, "GNU 99");
  EXPECT_EQ(r.machine.git_commit, "abcdef");
  ASSERT_TRUE(r.machine.suite.pairs);
  EXPECT_EQ(*r.machine.suite.pairs, std::vector<std::string>{"norm"});
  EXPECT_TRUE(r.machine.suite.quick);
  // The same file gives the same results, whatever the environment.
  setenv("OMP_NUM_THREADS", "1", 1);
  const model::Results again = build_results(parse_bench_json(test::as_measured(foreign_bench()), "bench.json"), options);
  unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(model::to_json(r), model::to_json(again));
}

std::string analysis_error(const json& bench) {
  try {
    (void)build_results(parse_bench_json(test::as_measured(bench), "bench.json"), {});
  } catch (const model::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PureAnalysis, ImpossibleValuesAreRejectedWithTheirPath) {
  json b = foreign_bench();
  b["benchmarks"][2]["real_time"] = -1.0;
  EXPECT_NE(analysis_error(b).find("bench.json: /benchmarks/2/real_time: must be a positive number"), std::string::npos)
      << analysis_error(b);
  b = foreign_bench();
  b["benchmarks"][0]["real_time"] = 0;
  EXPECT_NE(analysis_error(b).find("bench.json: /benchmarks/0/real_time: must be a positive number"), std::string::npos);
  b = foreign_bench();
  b["benchmarks"][3]["bytes_model"] = -5.0;
  EXPECT_NE(analysis_error(b).find("bench.json: /benchmarks/3/bytes_model: must not be negative"), std::string::npos);
  // a negative zero: read as 0 FLOPs it gave an intensity of 0 without a word (issue 47)
  b = foreign_bench();
  b["benchmarks"][3]["flops_matrix"] = -0.0;
  EXPECT_NE(analysis_error(b).find("bench.json: /benchmarks/3/flops_matrix: must not be negative (is -0.0)"), std::string::npos)
      << analysis_error(b);
  b = foreign_bench();
  b["benchmarks"][0]["ceiling_bytes"] = 0.0;
  EXPECT_NE(analysis_error(b).find("bench.json: /benchmarks/0/ceiling_bytes: must be positive"), std::string::npos)
      << analysis_error(b);
  b = foreign_bench();
  b["benchmarks"][2]["flops"] = 7.0;  // not matrix + vector + special
  EXPECT_NE(analysis_error(b).find("/benchmarks/2/flops: "), std::string::npos) << analysis_error(b);
  // CUDA runs against CPU roofs: one backend per file.
  b = foreign_bench();
  for (int i : {2, 3}) {
    b["benchmarks"][i]["name"] = "norm/rmsnorm/fused/cuda/bf16/tokens:4/d_model:8/manual_time";
    b["benchmarks"][i]["run_name"] = b["benchmarks"][i]["name"];
  }
  EXPECT_NE(analysis_error(b).find("/benchmarks/2/name: a cuda benchmark among cpu ones"), std::string::npos)
      << analysis_error(b);
  b = foreign_bench();
  b["context"]["lmroof_threads"] = "many";
  EXPECT_NE(analysis_error(b).find("bench.json: /context/lmroof_threads: must be a positive integer"), std::string::npos)
      << analysis_error(b);
}

// bench.json is the one contract: the catalogue and the costs come from the file, and
// a file without them is refused with one line, never completed from this build.
TEST(PureAnalysis, CatalogueAndCostsComeOnlyFromTheBenchFile) {
  AnalysisOptions options;
  options.date = "2026-11-30T00:00:00Z";
  // A catalogue recorded by another build (a title this registry does not have) is the one used.
  json b = test::as_measured(foreign_bench());
  json recorded = json::parse(b["context"]["lmroof_catalogue"].get<std::string>());
  for (auto& pair : recorded["pairs"])
    if (pair["name"] == "norm") pair["title"] = "Norms as the measuring build called them";
  b["context"]["lmroof_catalogue"] = recorded.dump();
  const model::Results r = build_results(parse_bench_json(b, "bench.json"), options);
  ASSERT_NE(r.catalogue.find("norm"), nullptr);
  EXPECT_EQ(r.catalogue.find("norm")->title, "Norms as the measuring build called them");
  // No catalogue: one line naming the file, the key and the way out.
  json old = foreign_bench();
  try {
    (void)build_results(parse_bench_json(old, "old/bench.json"), options);
    ADD_FAILURE() << "a bench.json without a catalogue was analysed";
  } catch (const model::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("old/bench.json: /context/lmroof_catalogue: missing"), std::string::npos) << what;
    EXPECT_NE(what.find("lmroof migrate"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  // A pair the recorded catalogue lacks is refused even though this build's registry has it.
  recorded["pairs"] = json::array();
  b["context"]["lmroof_catalogue"] = recorded.dump();
  EXPECT_NE(analysis_error(b).find("/benchmarks/2/name: pair 'norm' is not in the catalogue recorded with the runs"),
            std::string::npos)
      << analysis_error(b);
  // A pair run without its cost counters: refused, not costed by this build's model.
  b = foreign_bench();
  b["benchmarks"][2].erase("flops_matrix");
  b["benchmarks"][3].erase("flops_matrix");
  EXPECT_NE(analysis_error(b).find("bench.json: /benchmarks/2: no flops_matrix counter"), std::string::npos)
      << analysis_error(b);
  // Ceilings alone need no catalogue.
  json ceilings = foreign_bench();
  ceilings["benchmarks"].erase(3);
  ceilings["benchmarks"].erase(2);
  const model::Results c = build_results(parse_bench_json(ceilings, "bench.json"), options);
  EXPECT_TRUE(c.catalogue.pairs.empty());
  EXPECT_EQ(c.ceilings.size(), 2u);
}

// ---- cost: reading and checking 50,000 runs ---------------------------------------------

// Issue 9: `lmroof check` on 50,000 runs finishes in under 5 s. Every run of
// results_small.json (all pairs, so every kind of claim pairs and judges runs) copied
// with a distinct shape until there are 50,000, written to a file (~95 MB) and read back
// the way `lmroof check` reads it. The phases are reported, not asserted (timings depend
// on the machine); tests/perf/check_scale.sh times the CLI itself.
TEST(Scale, FiftyThousandRunsAreReadAndCheckedQuickly) {
  json doc = small_results_json();
  const json source = doc["runs"];
  json runs = json::array();
  for (int i = 0; runs.size() < 50000; ++i)
    for (const json& r : source) {
      if (runs.size() == 50000) break;
      json copy = r;
      auto first = copy["shape"].begin();
      first.value() = first.value().get<int64_t>() * 100000 + i + 1;
      copy["id"] = fmt::format("{}/{}", copy["id"].get<std::string>(), i);
      runs.push_back(std::move(copy));
    }
  doc["runs"] = std::move(runs);
  doc["comparisons"] = json::array();
  doc["claims"] = json::array();
  const std::filesystem::path file =
      std::filesystem::path(::testing::TempDir()) / fmt::format("lmroof-scale-{}.json", ::getpid());
  std::ofstream(file) << doc.dump(2);
  doc = json();

  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  const auto start = clock::now();
  auto t = start;
  const std::string text = model::read_text_file(file);
  const double read_s = since(t);
  t = clock::now();
  json parsed = model::parse_json(text, file.string());
  const double parse_s = since(t);
  t = clock::now();
  const model::Results results = results_from_document(std::move(parsed), file.string(), registry_catalogue());
  const double validate_s = since(t);
  t = clock::now();
  const auto claims = load_claims(builtin_claims_path(), results.catalogue);
  const auto verdicts = check_claims(claims, results);
  const double claims_s = since(t);
  const double seconds = since(start);
  std::filesystem::remove(file);
  EXPECT_EQ(results.runs.size(), 50000u);
  EXPECT_EQ(verdicts.size(), claims.size());
  size_t judged = 0;
  for (const auto& v : verdicts) judged += v.verdict != model::Verdict::not_measured;
  // The fixture's pairs pair up: the claims on them are judged (14 of 37; the rest name
  // pairs the fixture has no runs of).
  EXPECT_GE(judged, 14u);
  // Reported, not asserted: the issue's bound is 5 s for the whole of `lmroof check`.
  std::printf("50,000 runs (%.0f MB): read %.2f s, parse %.2f s, validate %.2f s, claims %.2f s: %.2f s in all\n",
              static_cast<double>(text.size()) / 1e6, read_s, parse_s, validate_s, claims_s, seconds);
}

}  // namespace
}  // namespace lmroof
