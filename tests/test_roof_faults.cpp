// Issue #34 on the judging side: runs above 105% of their judged roof are measurement
// faults (analysis/claims/roof_faults.h) on the first screen and in `check --format
// json`, with their verdicts marked untrustworthy; runs judged against an unstable
// ceiling say so; comparisons are coloured by the paired evidence the claims use
// (model::ComparisonEvidence, analysis/results/findings.h); the roofline draws a roof per memory level
// and each run's judged roof, and no run plots above it; the runs table shows one
// fraction of a roof; failing claims show measured against expected on the first screen.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "reports/text/roof_text.h"
#include "analysis/claims/claims.h"
#include "analysis/claims/roof_faults.h"
#include "analysis/results/findings.h"
#include "analysis/results/results.h"
#include "bench/catalogue.h"
#include "reports/charts.h"
#include "reports/html_report.h"
#include "test_support.h"

namespace lmroof {
namespace {

using nlohmann::json;

model::Results fixture() { return test::small_results(); }

// Judges run `i` at `fraction` of a roof of `level`, memory-bound.
void judge(model::Run& r, double fraction, const std::string& level) {
  r.judged_against = model::JudgedAgainst{};
  r.judged_against->roof = level + " curve";
  r.judged_against->unit = "B/s";
  r.judged_against->value = r.bytes.model / (fraction * r.time_s.median);
  r.judged_against->seconds = fraction * r.time_s.median;
  r.judged_against->fraction = fraction;
  r.judged_against->level = level;
}

model::ClaimVerdict verdict_on(const std::string& run, model::EvidenceKind kind) {
  model::ClaimVerdict v;
  v.id = "c-" + std::string(model::to_string(kind));
  v.verdict = model::Verdict::fails;
  v.evidence_kind = kind;
  v.evidence = {{run, "time_s.median", 1.0}};
  v.cause = model::Cause::implementation;
  v.cause_detail = "baseline at 30% of its roof";
  return v;
}

TEST(RoofFaults, ARunAboveItsRoofIsAFaultAndItsVerdictsUntrustworthy) {
  model::Results r = fixture();
  for (auto& run : r.runs) judge(run, 0.8, "L3");
  judge(r.runs[0], 1.30, "L3");
  judge(r.runs[1], 1.05, "L3");  // at the bound: not a fault
  const auto faults = roof_faults(r);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].run, r.runs[0].id);
  EXPECT_NEAR(faults[0].fraction, 1.30, 1e-12);

  std::vector<model::ClaimVerdict> verdicts = {verdict_on(r.runs[0].id, model::EvidenceKind::measured), verdict_on(r.runs[0].id, model::EvidenceKind::model),
                                               verdict_on(r.runs[2].id, model::EvidenceKind::measured)};
  decide(r);
  mark_roof_faults(verdicts, r.decided());
  ASSERT_TRUE(verdicts[0].untrustworthy);
  EXPECT_NE(verdicts[0].untrustworthy->find("130%"), std::string::npos) << *verdicts[0].untrustworthy;
  EXPECT_FALSE(verdicts[1].untrustworthy);  // the cost model's verdicts rest on no time
  EXPECT_FALSE(verdicts[2].untrustworthy);

  // check --format json reports it.
  const json out = claims_check_json(verdicts, "results.json", "claims.yaml", false, nullptr, &r);
  ASSERT_EQ(out.at("roof_faults").size(), 1u);
  EXPECT_EQ(out["roof_faults"][0]["run"], r.runs[0].id);
  EXPECT_DOUBLE_EQ(out["roof_faults"][0]["bound"].get<double>(), model::kAboveRoofFault);

  // The report's first screen says it before the claims.
  r.claims = verdicts;
  decide(r);
  const std::string html = render_report_html(r);
  const size_t said = html.find("Measurement fault: 1 run above 105%");
  ASSERT_NE(said, std::string::npos);
  EXPECT_LT(said, html.find("<div class=\"claims\">"));
  EXPECT_NE(html.find("(measurement fault)</b>"), std::string::npos);  // its row in the runs table
}

TEST(RoofFaults, RunsJudgedAgainstAnUnstableCeilingSaySo) {
  model::Results r = fixture();
  for (auto& run : r.runs) judge(run, 0.8, "DRAM");
  r.runs[3].judged_against->unstable_ceilings = {"copy"};
  for (auto& c : r.ceilings)
    if (c.name == "copy") c.unstable = true, c.repeats = 3, c.spread = 0.4;
  std::vector<model::ClaimVerdict> verdicts = {verdict_on(r.runs[3].id, model::EvidenceKind::measured)};
  decide(r);
  mark_roof_faults(verdicts, r.decided());
  ASSERT_TRUE(verdicts[0].cause_detail);
  EXPECT_NE(verdicts[0].cause_detail->find("judged against copy, marked unstable"), std::string::npos)
      << *verdicts[0].cause_detail;
  EXPECT_FALSE(verdicts[0].untrustworthy);
  const json out = claims_check_json(verdicts, "results.json", "claims.yaml", false, nullptr, &r);
  ASSERT_EQ(out.at("unstable_ceilings").size(), 1u);
  EXPECT_EQ(out["unstable_ceilings"][0]["name"], "copy");
  ASSERT_EQ(out.at("unstable_judgements").size(), 1u);
  EXPECT_EQ(out["unstable_judgements"][0]["run"], r.runs[3].id);
  decide(r);
  const std::string html = render_report_html(r);
  EXPECT_NE(html.find("Unstable roof: copy (repeats 40% apart)"), std::string::npos);
  EXPECT_NE(html.find("unstable: copy</b>"), std::string::npos);
}

model::Comparison compared(double low, double high, std::optional<model::PairedRounds> paired) {
  model::Comparison c;
  c.pair = "norm";
  c.speedup = std::sqrt(low * high);
  c.speedup_low = low, c.speedup_high = high;
  c.repetitions = 3;
  c.p_value = 0.1;
  c.paired = paired;
  return c;
}

TEST(ComparisonEvidence, ThePairedRoundsDecideAndTheFloorBoundsWhatIsShown) {
  model::Results r;
  // Unpaired: the bootstrap interval.
  EXPECT_EQ(comparison_evidence(r, compared(1.58, 1.70, std::nullopt)).shown, Shown::faster);
  EXPECT_FALSE(comparison_evidence(r, compared(1.58, 1.70, std::nullopt)).paired);
  // Paired rounds decide where taken, whatever the bootstrap interval says.
  const model::PairedRounds rounds{10, 1.0, 0.97, 1.03, 0};
  const ComparisonEvidence e = comparison_evidence(r, compared(1.58, 1.70, rounds));
  EXPECT_TRUE(e.paired);
  EXPECT_EQ(e.rounds, 10);
  EXPECT_EQ(e.shown, Shown::within_noise);
  EXPECT_EQ(comparison_evidence(r, compared(1.0, 1.0, model::PairedRounds{10, 0.8, 0.75, 0.85, 0})).shown, Shown::slower);
  // An interval that excludes 1 but lies within the pair's A/A floor shows nothing.
  r.noise_floors.push_back({"norm", "x", rounds, 0.10});
  EXPECT_EQ(comparison_evidence(r, compared(1.0, 1.0, model::PairedRounds{10, 1.05, 1.02, 1.08, 0})).shown,
            Shown::within_noise);
  EXPECT_EQ(comparison_evidence(r, compared(1.0, 1.0, model::PairedRounds{10, 1.3, 1.2, 1.4, 0})).shown, Shown::faster);
  // No interval at all.
  model::Comparison none;
  none.speedup = 2;
  EXPECT_EQ(comparison_evidence(r, none).shown, Shown::no_interval);
}

TEST(ComparisonEvidence, TheReportColoursByItAndExplainsALevelChange) {
  model::Results r = fixture();
  ASSERT_FALSE(r.comparisons.empty());
  auto& c = r.comparisons[0];
  c.speedup_low = 1.58, c.speedup_high = 1.70, c.speedup = 1.64;
  c.paired = model::PairedRounds{12, 1.01, 0.97, 1.05, 0};
  c.level_change = "of which ~2x is a change of level: layernorm from DRAM, rmsnorm from L3";
  decide(r);
  const std::string html = render_report_html(r);
  const size_t table = html.find("<table class=\"comparisons\">");
  ASSERT_NE(table, std::string::npos);
  const std::string row = html.substr(html.find("<tr><td>norm</td>", table), 1200);
  EXPECT_NE(row.find("class=\"num even\""), std::string::npos) << row;  // paired rounds within noise: not green
  EXPECT_NE(row.find("<br>12 paired rounds"), std::string::npos) << row;
  EXPECT_NE(row.find("within noise"), std::string::npos) << row;
  EXPECT_NE(row.find("of which ~2x is a change of level"), std::string::npos) << row;
  EXPECT_EQ(html.find("Mann\u2013Whitney", table), std::string::npos);  // the U test is dropped
  // Two sittings: each one's speedup beside the count.
  c.paired = model::PairedRounds{20, 1.10, 1.04, 1.16, 10, {1.14, 1.06}};
  decide(r);
  const std::string twice = render_report_html(r);
  const size_t t2 = twice.find("<table class=\"comparisons\">");
  ASSERT_NE(t2, std::string::npos);
  const std::string row2 = twice.substr(twice.find("<tr><td>norm</td>", t2), 1200);
  EXPECT_NE(row2.find("20 paired rounds in two sittings, 1.14\u00d7 then 1.06\u00d7"), std::string::npos) << row2;
}

TEST(RoofFaults, FailingClaimsShowMeasuredAgainstExpectedAndTheirCause) {
  model::Results r = fixture();
  model::ClaimVerdict v = verdict_on(r.runs[0].id, model::EvidenceKind::measured);
  v.statement = "sliding-window decode takes about W/n of full attention's time";
  v.expected = "time ratio in [0.15, 0.4]";
  v.measured = "time ratio 0.129: faster than the 0.15\u20130.4 expected";
  r.claims = {v};
  decide(r);
  const std::string html = render_report_html(r);
  const size_t summary = html.find("<summary>", html.find("id=\"claim-c-measured\""));
  ASSERT_NE(summary, std::string::npos);
  const std::string line = html.substr(summary, html.find("</summary>", summary) - summary);
  EXPECT_NE(line.find("measured time ratio 0.129: faster than the 0.15\u20130.4 expected; expected time ratio in "
                      "[0.15, 0.4]"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("cause: implementation (baseline at 30% of its roof)"), std::string::npos) << line;
}

// A fault compares against the most peak-like roof the run has: one roof measured low
// (its probes while a neighbour held the machine, or the suite's) does not make a
// fault; a run above both still is one, at the smaller fraction.
TEST(RoofFaults, AFaultIsAboveEveryRoofTheRunHas) {
  model::Results r = fixture();
  for (auto& run : r.runs) judge(run, 0.8, "DRAM");
  judge(r.runs[0], 1.16, "DRAM");
  r.runs[0].judged_against_probe = r.runs[0].judged_against;
  r.runs[0].judged_against->fraction = 0.53;  // the suite's roof: well above the run
  r.runs[0].judged_against->seconds = 0.53 * r.runs[0].time_s.median;
  EXPECT_TRUE(roof_faults(r).empty());
  decide(r);
  EXPECT_EQ(r.roof_fault(r.runs[0]), nullptr);
  r.runs[0].judged_against->fraction = 1.30;  // above the suite's roof too: a fault, at the kinder 116%
  const auto faults = roof_faults(r);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_NEAR(faults[0].fraction, 1.16, 1e-12);
  EXPECT_TRUE(faults[0].probed);
  decide(r);  // the table, the report and the summary read the decided faults (Results::findings)
  ASSERT_NE(r.roof_fault(r.runs[0]), nullptr);
  EXPECT_NEAR(r.roof_fault(r.runs[0])->fraction, 1.16, 1e-12);
  EXPECT_NE(roof_faults_summary(r).find("roof faults: 1 run above 105%"), std::string::npos) << roof_faults_summary(r);
}

TEST(RooflineLevels, EachLevelIsARoofAndNoRunPlotsAboveItsJudgedRoof) {
  model::Results r = fixture();
  model::BandwidthCurve curve;
  curve.backend = "cpu";
  curve.threads = 2;
  curve.points = {{32e3, 500e9, std::nullopt, 0.01, 5}, {1e9, 30e9, std::nullopt, 0.02, 5}};
  curve.levels = {{"L1", 48 * 1024.0, 500e9}, {"L2", 2 * 1048576.0, 300e9}, {"L3", 32 * 1048576.0, 150e9},
                  {"DRAM", std::nullopt, 30e9}};
  r.bandwidth_curve = curve;
  const char* levels[] = {"L1", "L2", "L3", "DRAM"};
  for (size_t i = 0; i < r.runs.size(); ++i) judge(r.runs[i], 0.4 + 0.03 * i, levels[i % 4]);
  judge(r.runs[5], 1.4, "L3");  // a fault: drawn, flagged
  decide(r);
  const json spec = report::roofline_chart(r);
  std::set<std::string> roofs;
  for (const auto& row : spec["datasets"]["roofs"]) roofs.insert(row["roof"].get<std::string>());
  for (const char* name : {"L1 read (48 KiB)", "L2 read (2 MiB)", "L3 read (32 MiB)", "DRAM read"})
    EXPECT_TRUE(roofs.count(name)) << name << " not drawn";
  // Every roof is labelled in the legend, in its level's colour; no text sits on the data.
  std::map<std::string, std::string> colour_of_label;
  for (const auto& row : spec["datasets"]["roofs"]) colour_of_label[row["label"]] = row["colour"];
  ASSERT_TRUE(colour_of_label.count("L3 read (32 MiB): 150 GB/s")) << spec["datasets"]["roofs"].dump();
  for (const auto& layer : spec["layer"]) EXPECT_NE(layer.value("mark", json::object()).value("type", ""), "text");
  int faults = 0;
  for (const auto& p : spec["datasets"]["points"]) {
    ASSERT_TRUE(p["y_judged_roof"].is_number()) << p["id"];
    if (p["fault"].get<bool>()) {
      ++faults;
      continue;
    }
    EXPECT_LE(p["y_analytic"].get<double>(), p["y_judged_roof"].get<double>() * (1 + 1e-12)) << p["id"];
  }
  EXPECT_EQ(faults, 1);
  // Each point's colour is the level it is judged at, with a legend that says so, and the
  // same colour as its level's roof line; its shape is its pair.
  bool coloured = false;
  for (const auto& layer : spec["layer"])
    if (layer.value("name", "") == "points") {
      const json& colour = layer["encoding"]["color"];
      EXPECT_EQ(colour["field"], "judged_level");
      EXPECT_EQ(colour["scale"]["domain"], json({"L1", "L2", "L3", "DRAM"}));
      EXPECT_EQ(colour["legend"]["title"], "judged at (tick: its roof)");
      EXPECT_EQ(colour["scale"]["range"][2], colour_of_label.at("L3 read (32 MiB): 150 GB/s"));
      EXPECT_EQ(layer["encoding"]["shape"]["field"], "pair");
      EXPECT_EQ(layer["encoding"]["size"]["field"], "time_s");
      coloured = true;
    }
  EXPECT_TRUE(coloured);
  // The axes fit the data: every point and tick inside, the domain within a decade of them.
  const auto x_domain = spec["encoding"]["x"]["scale"]["domain"], y_domain = spec["encoding"]["y"]["scale"]["domain"];
  double y_top = 0;
  for (const auto& p : spec["datasets"]["points"]) {
    EXPECT_GE(p["x_model"].get<double>(), x_domain[0].get<double>());
    EXPECT_LE(p["x_model"].get<double>(), x_domain[1].get<double>());
    EXPECT_GE(p["y_analytic"].get<double>(), y_domain[0].get<double>());
    EXPECT_LE(p["y_judged_roof"].get<double>(), y_domain[1].get<double>());
    y_top = std::max(y_top, p["y_judged_roof"].get<double>());
  }
  EXPECT_LT(y_domain[1].get<double>(), 10 * std::max(y_top, 200e9));
  bool ticks = false;
  for (const auto& layer : spec["layer"]) ticks |= layer.value("name", "") == "judged_roof";
  EXPECT_TRUE(ticks);
}

TEST(RooflineLevels, WithoutACurveTheCacheCeilingsAreDrawn) {
  model::Results r = fixture();
  model::Ceiling l2;
  l2.name = "l2_read";
  l2.backend = "cpu";
  l2.value = 300e9;
  l2.cache_bytes = 2 * 1048576.0;
  r.ceilings.push_back(l2);
  decide(r);
  const json spec = report::roofline_chart(r);
  bool drawn = false;
  for (const auto& row : spec["datasets"]["roofs"]) drawn |= row["roof"] == "L2 read (2 MiB)";
  EXPECT_TRUE(drawn) << spec["datasets"]["roofs"].dump();
}

// The ceilings table's drift is over the best before the suite, the probe during it and
// the best after it, and prints all three beside it (issue #45: "61.5 … 60.9 GB/s (44%
// apart)" left out the probe the 44% came from).
TEST(RooflineLevels, TheCeilingsTableDriftNamesTheFiguresItComesFrom) {
  model::Results r = fixture();
  bool found = false;
  for (auto& c : r.ceilings)
    if (c.backend == "cpu" && c.kind == model::CeilingKind::bandwidth && !found) {
      c.best_before_suite = 61.5e9, c.best_after_suite = 60.9e9, c.best_probed_during_suite = 110e9;
      c.value = 110e9;
      found = true;
    }
  ASSERT_TRUE(found);
  decide(r);
  const std::string html = render_report_html(r);
  EXPECT_NE(html.find("best before the suite 61.5 GB/s, during it 110 GB/s (the best run&#39;s probe, the roof), after it "
                      "60.9 GB/s: the lowest 45% below the highest"),
            std::string::npos)
      << html.substr(html.find("best before the suite"), 300);
}

TEST(RooflineLevels, TheRunsTableShowsOneFractionOfARoof) {
  model::Results r = fixture();
  for (auto& run : r.runs) judge(run, 0.946, "L3");
  decide(r);
  const std::string html = render_report_html(r);
  const size_t table = html.find("id=\"runs-table\"");
  ASSERT_NE(table, std::string::npos);
  const std::string head = html.substr(table, html.find("</thead>", table) - table);
  EXPECT_EQ(head.find(">efficiency<"), std::string::npos) << head;
  EXPECT_NE(head.find("SoL (of judged roof)"), std::string::npos);
  EXPECT_NE(head.find(">level</th>"), std::string::npos);
}

}  // namespace
}  // namespace lmroof
