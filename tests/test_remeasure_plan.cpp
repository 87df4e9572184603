// Which comparisons `lmroof run --remeasure-budget` times again and which fit its
// budget (analysis/remeasure/remeasure_plan.h, docs/claims.md#re-measurement).
#include <gtest/gtest.h>

#include "analysis/remeasure/remeasure_plan.h"

#include <filesystem>
#include <set>

#include "analysis/results/results.h"

namespace lmroof {
namespace {

model::Results two_comparisons() {
  model::Results r;
  for (const char* pair : {"norm", "bias"}) {
    model::Comparison c;
    c.pair = pair;
    c.baseline.run = std::string(pair) + "/a";
    c.candidate.run = std::string(pair) + "/b";
    c.paired = model::PairedRounds{10, 1.0, 0.9, 1.1};
    r.comparisons.push_back(c);
    r.noise_floors.push_back({pair, c.baseline.run, model::PairedRounds{10, 1.0, 0.95, 1.05}, 0.05});
  }
  return r;
}

model::ClaimVerdict verdict(model::Verdict v, std::optional<model::Cause> cause, const std::string& pair) {
  model::ClaimVerdict out;
  out.verdict = v;
  if (cause) out.cause = cause;
  out.evidence = {{pair + "/b", "time_s.median", 1.0}, {pair + "/a", "time_s.median", 2.0}};
  return out;
}

// The plan's order as "baseline>candidate" strings, one per item: a failure shows all of it.
std::vector<std::string> order_of(const std::vector<RemeasureItem>& items) {
  std::vector<std::string> out;
  for (const auto& i : items) out.push_back(i.baseline + ">" + i.candidate);
  return out;
}

TEST(RemeasurePlan, ArchitectureNeverAsksImplementationAsksAfterMachineAndNoise) {
  model::Results r = two_comparisons();
  r.claims = {verdict(model::Verdict::fails, model::Cause::architecture, "norm"), verdict(model::Verdict::holds, std::nullopt, "norm")};
  EXPECT_TRUE(remeasure_candidates(r).empty());
  r.claims.push_back(verdict(model::Verdict::fails, model::Cause::implementation, "bias"));
  r.claims.push_back(verdict(model::Verdict::inconclusive, model::Cause::noise, "norm"));
  // The noise claim's comparison first, then the implementation one's, then the A/A controls.
  EXPECT_EQ(order_of(remeasure_candidates(r)),
            (std::vector<std::string>{"norm/a>norm/b", "bias/a>bias/b", "norm/a>norm/a", "bias/a>bias/a"}));
}

TEST(RemeasurePlan, EachComparisonOnceInClaimOrder) {
  model::Results r = two_comparisons();
  r.claims = {verdict(model::Verdict::fails, model::Cause::machine, "norm"), verdict(model::Verdict::inconclusive, model::Cause::noise, "bias"),
              verdict(model::Verdict::inconclusive, model::Cause::noise, "norm")};
  // The comparisons in claim order, the controls after them.
  EXPECT_EQ(order_of(remeasure_candidates(r)),
            (std::vector<std::string>{"norm/a>norm/b", "bias/a>bias/b", "norm/a>norm/a", "bias/a>bias/a"}));
}

TEST(RemeasurePlan, ModelVerdictsAreNeverTimedAgain) {
  model::Results r = two_comparisons();
  r.claims = {verdict(model::Verdict::inconclusive, model::Cause::noise, "norm")};
  r.claims[0].evidence_kind = model::EvidenceKind::model;
  EXPECT_TRUE(remeasure_candidates(r).empty());
}

TEST(RemeasurePlan, EveryPairedComparisonWhateverTheClaimsSay) {
  // `lmroof run --remeasure-every-comparison` (hidden, for tests): every comparison with
  // paired rounds, then the A/A controls, each once; an unpaired comparison is left out.
  model::Results r = two_comparisons();
  r.claims = {verdict(model::Verdict::holds, std::nullopt, "norm")};
  r.comparisons.push_back(r.comparisons[0]);  // the same comparison twice: once
  model::Comparison unpaired = r.comparisons[0];
  unpaired.candidate.run = "norm/c";
  unpaired.paired.reset();
  r.comparisons.push_back(unpaired);
  EXPECT_EQ(order_of(every_paired_comparison(r)),
            (std::vector<std::string>{"norm/a>norm/b", "bias/a>bias/b", "norm/a>norm/a", "bias/a>bias/a"}));
}

// A default run plans its second sitting from the rounds alone (issue 46, the run as a
// straight line): the same comparisons and controls as a look at the results built
// from those rounds would list, comparisons before controls, with no result built.
TEST(RemeasurePlan, TheSecondSittingComesFromThePlanNotFromALook) {
  const BenchDocument rounds = load_bench_json(std::filesystem::path(LMROOF_TEST_DATA) / "bench_paired.json");
  const std::vector<RemeasureItem> planned = every_planned_comparison(rounds);
  const std::vector<RemeasureItem> looked = every_paired_comparison(build_results(rounds, {}));
  ASSERT_FALSE(planned.empty());
  const std::vector<std::string> p = order_of(planned), l = order_of(looked);
  EXPECT_EQ(std::set<std::string>(p.begin(), p.end()), std::set<std::string>(l.begin(), l.end()));
  EXPECT_EQ(p.size(), l.size());
  bool control_seen = false;
  for (const auto& item : planned) {
    const bool control = item.baseline == item.candidate;
    EXPECT_FALSE(control_seen && !control) << item.baseline << ">" << item.candidate << " after a control";
    control_seen = control_seen || control;
  }
}

TEST(RemeasurePlan, EstimateCountsShortSidesAtTheirMinimumTime) {
  // Two 50 ms sides: 10 rounds of 2 x 50 ms, and each side prepared (0.2 s) with 4 iterations.
  EXPECT_NEAR(estimate_remeasure_seconds(0.1, 10, 0.006, 0.2), 2 * (10 * 0.05 + 0.2 + 4 * 0.05), 1e-12);
  // Two 1 ms sides loop to 6 ms each, plus one untimed iteration.
  EXPECT_NEAR(estimate_remeasure_seconds(0.002, 10, 0.006, 0.2), 2 * (10 * 0.007 + 0.2 + 4 * 0.001), 1e-12);
}

TEST(RemeasurePlan, TheBudgetIsNeverExceeded) {
  const std::vector<RemeasureItem> candidates = {{"x", "y", 0}, {"big", "big2", 0}, {"u", "v", 0}, {"no", "time", 0}};
  const std::map<std::string, double> rounds = {{"x|y", 0.1}, {"big|big2", 2.0}, {"u|v", 0.1}};
  const double each = estimate_remeasure_seconds(0.1, 10, 0.006, 0.2);
  const auto fit = fit_remeasure_budget(candidates, rounds, 10, 0.006, 0.2, 2.5 * each);
  ASSERT_EQ(fit.size(), 2u);  // the big one is skipped, the cheaper one after it taken; no round time: left out
  EXPECT_EQ(fit[0].baseline, "x");
  EXPECT_EQ(fit[1].baseline, "u");
  EXPECT_NEAR(fit[0].estimated_s + fit[1].estimated_s, 2 * each, 1e-12);
  EXPECT_TRUE(fit_remeasure_budget(candidates, rounds, 10, 0.006, 0.2, 0).empty());
}

TEST(RemeasurePlan, RoundSecondsAreTheMedianOfTheRounds) {
  // stats::median, the one median: with an even number of rounds, the mean of the two
  // middle ones (before issue 36 this took the upper middle one).
  const std::string run = "norm/rmsnorm/fused/cpu/fp32/tokens:8/d_model:16";
  BenchDocument bench;
  for (double t : {0.4, 0.1, 0.3, 0.2}) {
    BenchEntry e;
    e.run_name = std::string(model::kPairedPrefix) + run + std::string(model::kPairedSeparator) + run;
    e.run_type = "iteration";
    e.real_time_s = t;
    bench.entries.push_back(e);
  }
  const auto seconds = paired_round_seconds(bench);
  ASSERT_EQ(seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(seconds.begin()->second, 0.25);
  bench.entries.pop_back();  // 0.4, 0.1, 0.3: odd, the middle one
  EXPECT_DOUBLE_EQ(paired_round_seconds(bench).begin()->second, 0.3);
}

}  // namespace
}  // namespace lmroof
