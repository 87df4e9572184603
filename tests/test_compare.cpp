// lmroof compare: the statistics against scipy's values, the matching of runs, the
// verdicts on planted changes, bad input, and the merge of several machines.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include <filesystem>

#include "analysis/io/atomic_write.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/compare/compare.h"
#include "analysis/compare/compare_input.h"
#include "analysis/compare/fleet.h"
#include "analysis/stats/repetitions_to_decide.h"
#include "analysis/stats/statistics.h"
#include "reports/compare_report.h"
#include "reports/fleet_report.h"

namespace lmroof {
namespace {

const std::string kData = LMROOF_TEST_DATA;
const std::string kSmall = kData + "/results_small.json";
const std::string kSlower = kData + "/compare/slower_rmsnorm.json";
const std::string kOther = kData + "/compare/other_machine.json";
constexpr const char* kSlowRun = "norm/rmsnorm/fused/cpu/fp32/tokens:4096/d_model:1024";

// --- Mann-Whitney U: two-sided p-values from scipy.stats.mannwhitneyu (SciPy 1.10.1,
// method "auto", use_continuity=True), computed once and written down here.
struct UCase {
  std::vector<double> x, y;
  double u, p;
  bool exact;
};

TEST(MannWhitneyU, MatchesScipy) {
  const std::vector<UCase> cases = {
      {{1, 2, 3}, {4, 5, 6}, 0.0, 0.1, true},
      {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0.0, 0.007936507936507936, true},
      {{1.0, 2.5, 3.1, 4.7, 6.0}, {2.0, 3.0, 5.5, 7.2, 8.1}, 8.0, 0.42063492063492064, true},
      {{19, 22, 16, 29, 24}, {20, 11, 17, 12}, 17.0, 0.1111111111111111, true},
      // ties: normal approximation with tie and continuity correction
      {{1, 2, 2, 3, 4}, {2, 3, 3, 5, 6}, 6.0, 0.19882894401644247, false},
      {{5, 5, 5, 6}, {5, 7, 7, 8, 9}, 2.5, 0.07200565755549801, false},
      // both sides larger than 8: normal approximation
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5}, 28.0, 0.10410988966022681, false},
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 72.0, 1.0, false},
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, 12.5, 1.0, false},
  };
  for (const auto& c : cases) {
    const auto r = stats::mann_whitney_u(c.x, c.y);
    EXPECT_DOUBLE_EQ(r.u, c.u) << "x[0]=" << c.x[0] << " y[0]=" << c.y[0];
    EXPECT_NEAR(r.p_value, c.p, 1e-12) << "x[0]=" << c.x[0] << " y[0]=" << c.y[0];
    EXPECT_EQ(r.exact, c.exact);
  }
}

TEST(MannWhitneyU, ExactTailCountsArrangements) {
  // With 8 + 8 values and no overlap, only 1 of C(16, 8) = 12870 arrangements is as
  // extreme on each side.
  std::vector<double> x, y;
  for (int i = 0; i < 8; ++i) x.push_back(i), y.push_back(100 + i);
  const auto r = stats::mann_whitney_u(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 2.0 / 12870.0, 1e-15);
  // Symmetric: swapping the sides gives the same p and U = n1 n2 - U.
  const auto s = stats::mann_whitney_u(y, x);
  EXPECT_NEAR(s.p_value, r.p_value, 1e-15);
  EXPECT_DOUBLE_EQ(s.u, 64 - r.u);
}

TEST(MannWhitneyU, RejectsEmptyAndNaN) {
  const std::vector<double> some = {1, 2}, none;
  EXPECT_EQ(stats::mann_whitney_u(none, some).p_value, 1.0);  // no evidence either way
  const std::vector<double> nan = {1, std::nan("")};
  EXPECT_THROW(stats::mann_whitney_u(nan, some), std::invalid_argument);
}

// --- speedup interval (stats::estimate_speedup, the one every comparison uses) ------

TEST(SpeedupInterval, IdenticalSamplesGiveExactlyOne) {
  const std::vector<double> a = {1.0, 1.1, 0.9, 1.05, 0.95};
  const auto i = stats::estimate_speedup(a, a);
  EXPECT_DOUBLE_EQ(i.speedup, 1.0);
  EXPECT_LE(i.low, 1.0);
  EXPECT_GE(i.high, 1.0);
}

TEST(SpeedupInterval, NoiselessShiftIsTheShiftWithinTheNoiseFloor) {
  const std::vector<double> base = {2, 2, 2, 2}, next = {1.6, 1.6, 1.6, 1.6};
  const auto i = stats::estimate_speedup(base, next);
  EXPECT_DOUBLE_EQ(i.speedup, 1.25);
  EXPECT_NEAR(i.low, 1.25 / 1.01, 1e-12);  // widened to the 1% floor no timing beats
  EXPECT_NEAR(i.high, 1.25 * 1.01, 1e-12);
}

TEST(SpeedupInterval, DeterministicCoversEstimateAndNarrowsWithConfidence) {
  const std::vector<double> base = {1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97};
  const std::vector<double> next = {0.80, 0.83, 0.79, 0.81, 0.82, 0.78, 0.84};
  stats::SpeedupOptions o;
  o.seed = 42;
  const auto a = stats::estimate_speedup(base, next, o);
  const auto b = stats::estimate_speedup(base, next, o);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_LE(a.low, a.speedup);
  EXPECT_GE(a.high, a.speedup);
  EXPECT_GT(a.low, 1.1);  // clearly faster: ~1.23x
  o.confidence = 0.5;
  const auto narrow = stats::estimate_speedup(base, next, o);
  EXPECT_GE(narrow.low, a.low);
  EXPECT_LE(narrow.high, a.high);
  // Medians of 7: 1.00 / 0.81
  EXPECT_NEAR(a.speedup, 1.00 / 0.81, 1e-12);
}

TEST(SpeedupInterval, RejectsBadInput) {
  const std::vector<double> ok = {1, 2}, none, zero = {0, 1};
  EXPECT_THROW(stats::estimate_speedup(none, ok), std::invalid_argument);
  EXPECT_THROW(stats::estimate_speedup(ok, zero), std::invalid_argument);
  stats::SpeedupOptions o;
  o.confidence = 1.5;
  EXPECT_THROW(stats::estimate_speedup(ok, ok, o), std::invalid_argument);
}

// --- compare -------------------------------------------------------------------------

compare::RunTimes run(const std::string& variant, std::vector<double> samples, int tokens = 128) {
  compare::RunTimes r;
  r.key = {"norm", variant, "fused", "cpu", "fp32", {{"tokens", tokens}}};
  r.id = "norm/" + variant + "/fused/cpu/fp32/tokens:" + std::to_string(tokens);
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  r.median = sorted.size() % 2 ? sorted[sorted.size() / 2] : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  r.samples = std::move(samples);
  r.roof_fraction = 0.5;
  return r;
}

compare::Side side(const std::string& file, std::vector<compare::RunTimes> runs) {
  return {file, "test CPU (cpu, 2 cores)", "2026-11-30T00:00:00Z", std::move(runs)};
}

TEST(Compare, FileAgainstItselfIsTheSameEverywhere) {
  const auto s = compare::read_side(kSmall);
  const auto report = compare::compare(s, s);
  ASSERT_EQ(report.runs.size(), s.runs.size());
  for (const auto& c : report.runs) {
    EXPECT_EQ(c.verdict, compare::Verdict::same) << c.id;
    EXPECT_DOUBLE_EQ(*c.speedup, 1.0);
    EXPECT_DOUBLE_EQ(*c.p_value, 1.0);
    EXPECT_DOUBLE_EQ(*c.roof_fraction_change, 0.0);
  }
  EXPECT_TRUE(report.regressions().empty());
  EXPECT_TRUE(report.same_machine);
  EXPECT_TRUE(report.warnings.empty());
}

TEST(Compare, PlantedSlowdownIsTheOnlyRegression) {
  const auto report = compare::compare(compare::read_side(kSmall), compare::read_side(kSlower));
  const auto regressions = report.regressions();
  ASSERT_EQ(regressions.size(), 1u);
  EXPECT_EQ(regressions[0]->id, kSlowRun);
  EXPECT_EQ(regressions[0]->verdict, compare::Verdict::slower);
  EXPECT_NEAR(*regressions[0]->speedup, 1 / 1.2, 1e-9);
  EXPECT_LT(*regressions[0]->speedup_high, 1.0);
  EXPECT_LT(*regressions[0]->p_value, 0.05);
  EXPECT_LT(*regressions[0]->roof_fraction_change, 0);
  EXPECT_EQ(report.count(compare::Verdict::slower), 1u);
  EXPECT_EQ(report.count(compare::Verdict::same), report.runs.size() - 1);
  // Below the threshold the change is still "slower", but no regression.
  compare::Options lenient;
  lenient.threshold = 0.25;
  EXPECT_TRUE(compare::compare(compare::read_side(kSmall), compare::read_side(kSlower), lenient).regressions().empty());
  // The other direction is a speedup, not a regression.
  const auto back = compare::compare(compare::read_side(kSlower), compare::read_side(kSmall));
  EXPECT_TRUE(back.regressions().empty());
  EXPECT_EQ(back.count(compare::Verdict::faster), 1u);
}

TEST(Compare, MatchesByKeyAndReportsOneSidedRuns) {
  const auto base = side("a.json", {run("rmsnorm", {1, 1.01, 0.99, 1.02, 0.98}), run("layernorm", {2, 2.02, 1.98, 2.01, 1.99})});
  const auto next = side("b.json", {run("rmsnorm", {1.5, 1.52, 1.49, 1.51, 1.48}), run("rmsnorm", {3, 3, 3, 3, 3}, 256)});
  const auto report = compare::compare(base, next);
  ASSERT_EQ(report.runs.size(), 3u);
  EXPECT_EQ(report.count(compare::Verdict::only_base), 1u);
  EXPECT_EQ(report.count(compare::Verdict::only_new), 1u);
  EXPECT_EQ(report.count(compare::Verdict::slower), 1u);
  ASSERT_EQ(report.regressions().size(), 1u);
  EXPECT_EQ(report.regressions()[0]->key.variant, "rmsnorm");
}

// A run judged at another memory level in the two files (issue #34): compare says so,
// in its JSON and after the verdict, since part of the speedup is then the level's.
TEST(Compare, SaysWhenARunIsJudgedAtAnotherLevel) {
  auto at = [](compare::RunTimes r, const char* level, double rate) {
    r.level = level;
    r.judged_rate = rate;
    return r;
  };
  const auto base = side("a.json", {at(run("rmsnorm", {1, 1.01, 0.99, 1.02, 0.98}), "L3", 170e9),
                                    at(run("layernorm", {2, 2.02, 1.98, 2.01, 1.99}), "DRAM", 40e9)});
  const auto next = side("b.json", {at(run("rmsnorm", {4, 4.04, 3.96, 4.08, 3.92}), "DRAM", 40.2e9),
                                    at(run("layernorm", {2, 2.02, 1.98, 2.01, 1.99}), "DRAM", 40e9)});
  const auto report = compare::compare(base, next);
  ASSERT_EQ(report.runs.size(), 2u);
  const auto& changed = report.runs[0].key.variant == "rmsnorm" ? report.runs[0] : report.runs[1];
  const auto& same = report.runs[0].key.variant == "rmsnorm" ? report.runs[1] : report.runs[0];
  ASSERT_TRUE(changed.level_change);
  EXPECT_EQ(*changed.level_change, "judged at L3 in base, DRAM in new (roof 170 -> 40.2 G/s)");
  EXPECT_FALSE(same.level_change);
  const auto j = compare::to_json(report);
  bool said = false;
  for (const auto& r : j["runs"]) said |= r["level_change"].is_string();
  EXPECT_TRUE(said);
}

TEST(Compare, TooFewRepetitionsIsNeverSignificant) {
  const auto base = side("a.json", {run("rmsnorm", {1, 1.01})});
  const auto next = side("b.json", {run("rmsnorm", {2, 2.01})});
  const auto report = compare::compare(base, next);
  // Twice as slow, but 2 + 2 repetitions cannot reach p < 0.05: undecided, not "same".
  EXPECT_EQ(report.runs[0].verdict, compare::Verdict::undecided);
  EXPECT_NE(report.runs[0].note.find("cannot reach"), std::string::npos) << report.runs[0].note;
  EXPECT_TRUE(report.regressions().empty());
  // The same samples on both sides stay "same", with the reason no change could show.
  const auto unchanged = compare::compare(base, base);
  EXPECT_EQ(unchanged.runs[0].verdict, compare::Verdict::same);
  EXPECT_NE(unchanged.runs[0].note.find("cannot reach"), std::string::npos) << unchanged.runs[0].note;
  EXPECT_FALSE(unchanged.runs[0].repetitions_to_decide.has_value());
}

// The issue's case: a --quick file (3 repetitions) against a copy with one run made 30%
// slower. Its interval excludes 1 but 3 + 3 repetitions cannot reach p < 0.05: it is
// undecided (n=3) in every format, counted apart from "same", and no regression.
compare::Side first_repetitions(compare::Side s, size_t n, const std::string& slowed = "", double factor = 1) {
  for (auto& r : s.runs) {
    r.samples.resize(std::min(r.samples.size(), n));
    if (r.id == slowed)
      for (double& t : r.samples) t *= factor;
    std::vector<double> sorted = r.samples;
    std::sort(sorted.begin(), sorted.end());
    r.median = sorted[sorted.size() / 2];
  }
  return s;
}

TEST(Compare, PlantedSlowdownOnThreeRepetitionsIsUndecided) {
  const auto full = compare::read_side(kSmall);
  const auto base = first_repetitions(full, 3);
  const auto next = first_repetitions(full, 3, kSlowRun, 1.3);
  const auto report = compare::compare(base, next);
  const auto& planted = *std::find_if(report.runs.begin(), report.runs.end(), [](const auto& c) { return c.id == kSlowRun; });
  EXPECT_EQ(planted.verdict, compare::Verdict::undecided);
  EXPECT_NEAR(*planted.speedup, 1 / 1.3, 1e-9);
  EXPECT_LT(*planted.speedup_high, 1.0);
  EXPECT_NEAR(*planted.p_value, 0.1, 1e-12);  // the smallest 3 + 3 can give: 2 / C(6, 3)
  ASSERT_TRUE(planted.repetitions_to_decide.has_value());
  EXPECT_EQ(*planted.repetitions_to_decide, 6);  // no overlap: P = 0, Noether's N = 10.5 -> 6 per side
  EXPECT_FALSE(planted.regression);
  EXPECT_TRUE(report.regressions().empty());
  EXPECT_EQ(report.count(compare::Verdict::undecided), 1u);
  EXPECT_EQ(report.count(compare::Verdict::same), report.runs.size() - 1);
  EXPECT_EQ(report.count(compare::Verdict::slower), 0u);

  const std::string counts = fmt::format("0 faster, 0 slower, 1 undecided (n=3; about 6 repetitions per side would "
                                         "decide it), {} same within noise", report.runs.size() - 1);
  const std::string text = report::compare_text(report);
  EXPECT_NE(text.find(counts), std::string::npos) << text;
  EXPECT_NE(text.find("undecided (n=3)\n    note: the interval excludes 1 but 3 and 3 repetitions cannot reach p < 0.05: "
                      "about 6 repetitions per side would decide it"),
            std::string::npos)
      << text;
  const std::string md = report::compare_markdown(report);
  EXPECT_NE(md.find(counts), std::string::npos);
  EXPECT_NE(md.find("| undecided (n=3) \u2014 the interval excludes 1"), std::string::npos) << md;
  EXPECT_NE(report::compare_html(report).find(counts), std::string::npos);
  const auto json = compare::to_json(report);
  EXPECT_EQ(json["summary"]["undecided"], 1);
  EXPECT_EQ(json["summary"]["same"], report.runs.size() - 1);
  for (const auto& r : json["runs"])
    if (r["id"] == kSlowRun) {
      EXPECT_EQ(r["verdict"], "undecided");
      EXPECT_EQ(r["repetitions_to_decide"], 6);
    } else {
      EXPECT_TRUE(r["repetitions_to_decide"].is_null());
    }
  // With all 5 repetitions the same slowdown is decided: slower, a regression.
  const auto decided = compare::compare(first_repetitions(full, 5), first_repetitions(full, 5, kSlowRun, 1.3));
  EXPECT_EQ(decided.count(compare::Verdict::slower), 1u);
  EXPECT_EQ(decided.count(compare::Verdict::undecided), 0u);
}

// Noether's sample size for the U test (docs/compare.md), by hand: N = (z_.975 + z_.8)^2 /
// (3 (P - 1/2)^2) in all, half per side. z values from scipy.stats.norm.ppf.
TEST(RepetitionsToDecide, NoethersSampleSizeForTheUTest) {
  EXPECT_NEAR(stats::normal_quantile(0.975), 1.959963984540054, 1e-9);
  EXPECT_NEAR(stats::normal_quantile(0.8), 0.8416212335729143, 1e-9);
  EXPECT_NEAR(stats::normal_quantile(0.025), -1.959963984540054, 1e-9);
  const double z2 = std::pow(1.959963984540054 + 0.8416212335729143, 2);
  // No overlap (P = 0): N = z2 / 0.75 = 10.47 -> 6 per side, whichever side is slower.
  const std::vector<double> fast = {1, 1.01, 0.99}, slow = {2, 2.01, 1.99};
  EXPECT_EQ(stats::repetitions_to_decide(fast, slow), static_cast<int64_t>(std::ceil(z2 / 0.75 / 2)));
  EXPECT_EQ(stats::repetitions_to_decide(slow, fast), 6);
  // P = 11/16 (U = 11 of 16 pairs): N = z2 / (3 (3/16)^2) = 74.4 -> 38 per side.
  const std::vector<double> a = {2, 3, 5, 7}, b = {1, 4, 6, 0.5};
  ASSERT_DOUBLE_EQ(stats::mann_whitney_u(a, b).u, 11);
  EXPECT_EQ(stats::repetitions_to_decide(a, b), static_cast<int64_t>(std::ceil(z2 / (3 * std::pow(11.0 / 16 - 0.5, 2)) / 2)));
  EXPECT_EQ(stats::repetitions_to_decide(a, b), 38);
  // No effect at all: nothing would decide it.
  EXPECT_FALSE(stats::repetitions_to_decide(fast, fast).has_value());
  // Never fewer than the 4 per side the exact test needs to reach p < 0.05, nor than a side has.
  const std::vector<double> one_fast = {1}, one_slow = {2};
  EXPECT_EQ(stats::repetitions_to_decide(one_fast, one_slow), 6);
  std::vector<double> many_fast, many_slow;
  for (int i = 0; i < 20; ++i) many_fast.push_back(1 + i * 1e-3), many_slow.push_back(2 + i * 1e-3);
  EXPECT_EQ(stats::repetitions_to_decide(many_fast, many_slow), 21);
  EXPECT_THROW(stats::normal_quantile(1.0), std::invalid_argument);
}

TEST(Compare, DriftOfTheMachineBetweenProbedRunsWidensTheInterval) {
  // 1.3x faster by its repetitions, while the machine's probed read bandwidth went
  // from 35 to 60 GB/s: the drift (71%) explains more than the change.
  auto probed = [](compare::RunTimes r, double read) { r.probe_read = read; return r; };
  const std::vector<double> slow = {1, 1.01, 0.99, 1.02, 0.98}, fast = {1 / 1.3, 1.01 / 1.3, 0.99 / 1.3, 1.02 / 1.3, 0.98 / 1.3};
  const auto drifted = compare::compare(side("a.json", {probed(run("rmsnorm", slow), 35e9)}),
                                        side("b.json", {probed(run("rmsnorm", fast), 60e9)}));
  const auto& c = drifted.runs.at(0);
  ASSERT_TRUE(c.machine_drift.has_value());
  EXPECT_NEAR(*c.machine_drift, 60.0 / 35 - 1, 1e-12);
  EXPECT_EQ(c.verdict, compare::Verdict::same);
  EXPECT_LE(*c.speedup_low, *c.speedup / (60.0 / 35) + 1e-12);
  EXPECT_LT(*c.speedup_high, *c.speedup * 1.1);  // a faster machine cannot hide a speedup: the top is the repetitions'
  EXPECT_NE(c.note.find("moved by 71.4%"), std::string::npos) << c.note;
  EXPECT_EQ(compare::to_json(drifted)["runs"][0]["machine_drift"].get<double>(), *c.machine_drift);
  EXPECT_NE(report::compare_text(drifted).find("widened by the machine's drift"), std::string::npos);
  // A steady machine (3% apart) leaves the change standing; so do runs without a
  // probe on one side, and files from two machines (their probes differ by design).
  const auto steady = compare::compare(side("a.json", {probed(run("rmsnorm", slow), 58e9)}),
                                       side("b.json", {probed(run("rmsnorm", fast), 60e9)}));
  EXPECT_EQ(steady.runs.at(0).verdict, compare::Verdict::faster);
  EXPECT_NEAR(*steady.runs.at(0).machine_drift, 60.0 / 58 - 1, 1e-12);
  // A machine that slowed down cannot explain a speedup: it stands, drift recorded.
  const auto against = compare::compare(side("a.json", {probed(run("rmsnorm", slow), 60e9)}),
                                        side("b.json", {probed(run("rmsnorm", fast), 35e9)}));
  EXPECT_EQ(against.runs.at(0).verdict, compare::Verdict::faster);
  EXPECT_NEAR(*against.runs.at(0).machine_drift, 60.0 / 35 - 1, 1e-12);
  EXPECT_GE(*against.runs.at(0).speedup_high, *against.runs.at(0).speedup * (60.0 / 35) - 1e-12);
  // ...and a slower run on a faster machine is a regression all the same.
  const auto regressed = compare::compare(side("a.json", {probed(run("rmsnorm", fast), 35e9)}),
                                          side("b.json", {probed(run("rmsnorm", slow), 60e9)}));
  EXPECT_EQ(regressed.runs.at(0).verdict, compare::Verdict::slower);
  EXPECT_TRUE(regressed.runs.at(0).regression);
  const auto unprobed = compare::compare(side("a.json", {probed(run("rmsnorm", slow), 60e9)}), side("b.json", {run("rmsnorm", fast)}));
  EXPECT_FALSE(unprobed.runs.at(0).machine_drift.has_value());
  EXPECT_EQ(unprobed.runs.at(0).verdict, compare::Verdict::faster);
  EXPECT_TRUE(compare::to_json(unprobed)["runs"][0]["machine_drift"].is_null());
  auto other = side("b.json", {probed(run("rmsnorm", fast), 35e9)});
  other.machine = "another CPU (cpu, 64 cores)";
  const auto across = compare::compare(side("a.json", {probed(run("rmsnorm", slow), 60e9)}), other);
  EXPECT_FALSE(across.runs.at(0).machine_drift.has_value());
  EXPECT_EQ(across.runs.at(0).verdict, compare::Verdict::faster);
}

TEST(Compare, DifferentMachinesWarn) {
  const auto report = compare::compare(compare::read_side(kSmall), compare::read_side(kOther));
  EXPECT_FALSE(report.same_machine);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("different machines"), std::string::npos);
  EXPECT_NE(report.warnings[0].find("AMD EPYC 9B14"), std::string::npos);
}

TEST(Compare, BadInputIsOneLineNamingTheFile) {
  auto expect_error = [](auto&& f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "no error (expected one mentioning '" << needle << "')";
    } catch (const std::exception& e) {  // std::invalid_argument, or model::InputError from the reader
      const std::string what = e.what();
      EXPECT_NE(what.find(needle), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  const auto base = side("a.json", {run("rmsnorm", {1, 1, 1})});
  expect_error([&] { compare::compare(base, side("empty.json", {})); }, "empty.json: /runs: holds no runs: nothing to compare");
  expect_error([&] { compare::compare(base, side("twice.json", {run("x", {1}), run("x", {2})})); }, "twice.json: /runs:");
  expect_error([&] { compare::compare(base, side("other.json", {run("layernorm", {1})})); }, "other.json: /runs: none of its");
  compare::Options negative;
  negative.threshold = -0.1;
  expect_error([&] { compare::compare(base, base, negative); }, "--threshold");

  const auto dir = std::filesystem::temp_directory_path() / ("lmroof_compare_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  expect_error([&] { compare::read_side(write("notjson.json", "{nope")); }, "notjson.json");
  expect_error([&] { compare::read_side(dir / "missing.json"); }, "missing.json");
  std::ifstream in(kSmall);
  std::string small((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string broken = small;
  broken.replace(broken.find("\"samples\": ["), 12, "\"samples\": [-1, ");
  expect_error([&] { compare::read_side(write("negative.json", broken)); }, "/runs/0/time_s/samples/0");
  std::filesystem::remove_all(dir);
}

TEST(CompareReport, MarkdownIsATableAndJsonHasTheSchema) {
  const auto report = compare::compare(compare::read_side(kSmall), compare::read_side(kSlower));
  const std::string md = report::compare_markdown(report);
  EXPECT_NE(md.find("| run | base median | new median | speedup [CI] | p (U test) | roof \u0394 | verdict |\n|---|"), std::string::npos);
  // The slowed run's row, and only it, is marked (shape order follows the file's catalogue).
  int marked = 0;
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);)
    if (line.find("**slower (regression") != std::string::npos) {
      ++marked;
      EXPECT_EQ(line.rfind("| `norm/rmsnorm/fused/cpu/fp32 ", 0), 0u) << line;
      EXPECT_NE(line.find("tokens=4096"), std::string::npos) << line;
      EXPECT_NE(line.find("d_model=1024"), std::string::npos) << line;
    }
  EXPECT_EQ(marked, 1) << md;
  const auto json = compare::to_json(report);
  EXPECT_EQ(json["schema"], compare::kCompareSchema);
  EXPECT_EQ(json["summary"]["regressions"], nlohmann::json::array({kSlowRun}));
  EXPECT_EQ(json["runs"].size(), report.runs.size());
  const std::string text = report::compare_text(report);
  EXPECT_NE(text.find("1 regression beyond 5.00%"), std::string::npos) << text;
  const std::string html = report::compare_html(report);
  EXPECT_NE(html.find("id=\"chart-speedup\""), std::string::npos);
  EXPECT_NE(html.find("id=\"compare-table\""), std::string::npos);
}

// --- merge ---------------------------------------------------------------------------

TEST(Fleet, LabelsFromResultsAreUniqueAndGivenLabelsWin) {
  auto fleet = fleet::read_fleet({kSmall, kOther}, {});
  ASSERT_EQ(fleet.machines.size(), 2u);
  EXPECT_NE(fleet.machines[0].label, fleet.machines[1].label);
  EXPECT_NE(fleet.machines[1].label.find("AMD EPYC 9B14"), std::string::npos);
  // The same file twice: the default labels are made unique, then it is an error.
  EXPECT_THROW(fleet::read_fleet({kSmall, kSmall}, {}), std::invalid_argument);
  // Issue 26, defect 7: one machine's results twice are refused, whatever the labels.
  EXPECT_THROW(fleet::read_fleet({kSmall, kSmall}, {"before", "after"}), std::invalid_argument);
  EXPECT_THROW(fleet::read_fleet({kSmall, kSmall}, {"same", "same"}), std::invalid_argument);
  EXPECT_THROW(fleet::read_fleet({kSmall, kOther}, {"only-one"}), std::invalid_argument);
  EXPECT_THROW(fleet::read_fleet({}, {}), std::invalid_argument);
}

TEST(Fleet, ReportHasEveryMachineRoofsAndTheMatrix) {
  const auto fleet = fleet::read_fleet({kSmall, kOther}, {"xeon", "epyc"});
  const auto charts = report::fleet_charts(fleet);
  std::vector<std::string> ids;
  for (const auto& c : charts) ids.push_back(c.id);
  for (const char* id : {"fleet-rooflines", "fleet-normalized", "fleet-pair-norm", "fleet-pair-decode"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  const std::string html = report::fleet_html(fleet);
  EXPECT_NE(html.find("id=\"claims-matrix\""), std::string::npos);
  EXPECT_NE(html.find("<th>xeon</th><th>epyc</th>"), std::string::npos);
  // Both machines' roofs, by machine, in the side-by-side roofline.
  const auto& values = charts[0].spec["data"]["values"];
  int roofs_xeon = 0, roofs_epyc = 0;
  for (const auto& v : values)
    if (v["kind"] == "roof") (v["machine"] == "xeon" ? roofs_xeon : roofs_epyc) += 1;
  EXPECT_GT(roofs_xeon, 0);
  EXPECT_GT(roofs_epyc, 0);
  const auto merged = fleet::to_json(fleet);
  EXPECT_EQ(merged["schema"], fleet::kFleetSchema);
  EXPECT_EQ(merged["machines"][1]["label"], "epyc");
  EXPECT_EQ(merged["machines"][1]["results"]["runs"].size(), fleet.machines[1].runs.size());
}

// The merged file (`merge --results`) is an input again: merged with one more machine
// it keeps its machines and their labels; a bad field inside it names the fleet file
// and the full pointer.
TEST(Fleet, MergedFileIsReadBackWithItsLabels) {
  const auto dir = std::filesystem::temp_directory_path() / ("lmroof-fleet-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto merged = dir / "fleet.json";
  write_file_atomically(merged, fleet::to_json(fleet::read_fleet({kSmall, kOther}, {"xeon", "epyc"})).dump());
  // A third machine: results_small.json as measured on another host.
  nlohmann::json third = nlohmann::json::parse(std::ifstream(kSmall));
  third["machine"]["hostname"] = "third";
  write_file_atomically(dir / "third.json", third.dump());
  const auto again = fleet::read_fleet({merged, dir / "third.json"}, {});
  ASSERT_EQ(again.machines.size(), 3u);
  // Issue 26, defect 7: a results file the merged file already holds is not a new machine.
  try {
    fleet::read_fleet({merged, kSmall}, {});
    ADD_FAILURE() << "a machine was merged twice";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("are already merged from"), std::string::npos) << e.what();
  }
  EXPECT_EQ(again.machines[0].label, "xeon");
  EXPECT_EQ(again.machines[1].label, "epyc");
  EXPECT_EQ(again.machines[1].runs.size(), fleet::read_fleet({kOther}, {}).machines[0].runs.size());
  // labels are for results files only
  EXPECT_THROW(fleet::read_fleet({merged}, {"x"}), std::invalid_argument);
  // the same machine twice under one label
  EXPECT_THROW(fleet::read_fleet({merged, merged}, {}), std::invalid_argument);
  // wrong types and deep nesting in the merged file itself: one line naming the file
  const std::pair<std::string, std::string> broken[] = {
      {"machines-not-array.json", R"({"schema": "lmroof.fleet/1", "machines": 3})"},
      {"no-machines.json", R"({"schema": "lmroof.fleet/1", "machines": []})"},
      {"label-number.json", "{\"schema\": \"lmroof.fleet/1\", \"machines\": [{\"label\": 5, \"file\": \"x\", \"results\": " +
                                fleet::to_json(fleet::read_fleet({kSmall}, {})).at("machines").at(0).at("results").dump() + "}]}"},
      {"deep.json", "{\"schema\": \"lmroof.fleet/1\", \"machines\": " + std::string(200, '[') + std::string(200, ']') + "}"}};
  for (const auto& [name, text] : broken) {
    const auto path = dir / name;
    write_file_atomically(path, text);
    try {
      fleet::read_fleet({path}, {});
      FAIL() << "accepted " << name;
    } catch (const model::InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(path.string() + ":", 0), 0u) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  // a bad field deep inside: one line naming the file and the full pointer
  auto doc = fleet::to_json(fleet::read_fleet({kSmall, kOther}, {"xeon", "epyc"}));
  doc["machines"][1]["results"]["runs"][0]["time_s"]["median"] = -1;
  const auto bad = dir / "bad-fleet.json";
  write_file_atomically(bad, doc.dump());
  try {
    fleet::read_fleet({bad}, {});
    FAIL() << "accepted a negative median inside a merged file";
  } catch (const model::InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad.string() + ": /machines/1/results/runs/0/time_s/median: ", 0), 0u) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lmroof
