// One estimator for every claim on the ratio of two timed runs (issue #45 item 1): the
// number a claim states is the paired estimate of results.json's `comparisons` where
// the two runs have paired rounds, the claims' own pairs of runs are planned before
// measuring and analysed into comparisons, and a claim left with two medians says
// "unpaired: medians" and decides nothing on a disturbed one.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "analysis/claims/claims.h"
#include "analysis/model/schema.h"
#include "analysis/numbers/numbers.h"
#include "analysis/results/findings.h"
#include "analysis/results/results.h"
#include "bench/catalogue.h"
#include "bench/paired_rounds.h"
#include "bench/suite.h"

namespace lmroof {
namespace {

const std::filesystem::path kData = LMROOF_TEST_DATA;
const std::filesystem::path kExamples = std::filesystem::path(LMROOF_SOURCE_DIR) / "docs" / "examples";

model::Results analysed(const BenchDocument& bench, const std::vector<Claim>& claims) {
  model::Results r = build_results(bench, {});
  r.claims = check_claims(claims, r);
  return r;
}

std::vector<Claim> builtin() { return load_claims(builtin_claims_path(), registry_catalogue()); }

// A field whose ratio between two runs rides on their speedup: a time, an achieved rate.
bool on_speedup(const std::string& metric) { return metric == "time_s.median" || metric.rfind("achieved.", 0) == 0; }

// One case of a faster or ratio claim, read back from its evidence: the candidate's and
// the baseline's numbers, then the derived ones.
struct ComparedCase {
  std::string kind;  // "speedup" | "ratio"
  const model::Evidence* candidate = nullptr;
  const model::Evidence* baseline = nullptr;
  double value = 0;
  std::string estimator;  // "paired_rounds" | "unpaired_medians" | "" (a cost-model ratio)
};

std::vector<ComparedCase> cases_of(const model::ClaimVerdict& v) {
  std::vector<ComparedCase> out;
  std::vector<const model::Evidence*> runs;
  bool derived = false;
  for (const auto& e : v.evidence) {
    if (e.run) {
      if (derived) runs.clear(), derived = false;
      runs.push_back(&e);
      continue;
    }
    derived = true;
    if ((e.metric == "speedup" || e.metric == "ratio") && runs.size() == 2 && e.value)
      out.push_back({e.metric, runs[0], runs[1], *e.value, ""});
    else if ((e.metric == "paired_rounds" || e.metric == "unpaired_medians") && !out.empty())
      out.back().estimator = e.metric;
  }
  return out;
}

// For every claim on the ratio of two timed runs whose two runs have paired rounds,
// the number in its evidence and its text is the paired estimate of `comparisons`
// (a time ratio its inverse, a rate ratio that times the work ratio). Returns how many
// cases it checked.
int expect_paired_numbers(const model::Results& r, const std::string& where) {
  int checked = 0;
  for (const auto& v : r.claims) {
    if (v.kind != "faster" && v.kind != "ratio") continue;
    const auto cases = cases_of(v);
    for (const auto& c : cases) {
      if (c.kind == "ratio" && !on_speedup(c.candidate->metric)) continue;  // bytes, FLOPs: the cost model's
      const model::Run* cand = r.run(*c.candidate->run);
      const model::Run* base = r.run(*c.baseline->run);
      if (!cand || !base) {
        ADD_FAILURE() << where << ": " << v.id << ": a case names a run that is not in the results";
        continue;
      }
      double speedup = 0;
      if (const auto* cmp = r.comparison(base->id, cand->id); cmp && cmp->paired && cmp->paired->has_interval())
        speedup = cmp->paired->speedup;
      else if (const auto* cmp = r.comparison(cand->id, base->id); cmp && cmp->paired && cmp->paired->has_interval())
        speedup = 1 / cmp->paired->speedup;
      if (speedup == 0) {
        EXPECT_EQ(c.estimator, "unpaired_medians") << where << ": " << v.id << " has no paired rounds of " << cand->id;
        EXPECT_NE(v.measured.find("unpaired: medians"), std::string::npos) << where << ": " << v.measured;
        continue;
      }
      double expected = speedup;
      std::string text = "speedup " + numbers::ratio(speedup);
      if (c.kind == "ratio") {
        const bool time = c.candidate->metric == "time_s.median";
        const double work = *c.candidate->value / *c.baseline->value * cand->time_s.median / base->time_s.median;
        expected = time ? 1 / speedup : work * speedup;
        text = "ratio " + numbers::sig(expected);
      }
      EXPECT_NEAR(c.value, expected, 1e-9 * expected) << where << ": " << v.id << " on " << cand->id << " states "
                                                      << c.value << ", the paired estimate is " << expected;
      EXPECT_EQ(c.estimator, "paired_rounds") << where << ": " << v.id;
      // A claim of up to four cases writes each one out (claims_aggregate.cpp).
      if (cases.size() <= 4) {
        EXPECT_NE(v.measured.find(text), std::string::npos) << where << ": " << v.measured;
      }
      ++checked;
    }
  }
  return checked;
}

TEST(OneEstimator, EveryClaimOnTwoRunsStatesThePairedEstimate) {
  const model::Results r = analysed(load_bench_json(kData / "bench_paired.json"), builtin());
  EXPECT_GE(expect_paired_numbers(r, "bench_paired.json"), 4);
}

// The committed default run with paired rounds in two sittings: its window and
// interleave claims read the paired rounds, not the medians (the issue's 0.425 and
// 8.08 against 0.23 and 0.625 on one page).
TEST(OneEstimator, TheCommittedExampleStatesThePairedEstimate) {
  const auto dir = kExamples / "2026-12-05-cpu-amd-epyc-zen5-2core";
  const model::Results r = analysed(load_bench_json(dir / "bench.json"), builtin());
  EXPECT_GE(expect_paired_numbers(r, dir.filename().string()), 20);
  for (const auto& v : r.claims)
    if (v.id == "window-time-follows-w" || v.id == "interleave-1-1-follows-mix") {
      EXPECT_NE(v.measured.find("paired rounds in two sittings"), std::string::npos) << v.id << ": " << v.measured;
    }
}

// ---- the claims' own pairs of runs --------------------------------------------------

const char* kLayerNormUnfused = "norm/layernorm/unfused/cpu/fp32/tokens:512/d_model:1024";
const char* kRmsNormFused = "norm/rmsnorm/fused/cpu/fp32/tokens:512/d_model:1024";

// bench_paired.json with one more pair of runs timed in paired rounds: LayerNorm
// unfused against RMSNorm fused, which the catalogue does not compare. Its rounds are
// the unfused RMSNorm comparison's, renamed (a fixture of the plumbing, not a measurement).
nlohmann::json with_claimed_rounds(const nlohmann::json& claimed) {
  std::ifstream in(kData / "bench_paired.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  const std::string from = std::string("|norm/rmsnorm/unfused/");
  nlohmann::json added = nlohmann::json::array();
  for (const auto& e : doc["benchmarks"]) {
    const std::string name = e.value("run_name", e.value("name", ""));
    if (name.rfind(std::string("paired/") + kLayerNormUnfused + from, 0) != 0) continue;
    nlohmann::json copy = e;
    for (const char* key : {"name", "run_name"})
      if (copy.contains(key)) {
        std::string s = copy[key];
        s.replace(s.find(from), from.size(), "|norm/rmsnorm/fused/");
        copy[key] = s;
      }
    added.push_back(copy);
  }
  EXPECT_FALSE(added.empty());
  for (auto& e : added) doc["benchmarks"].push_back(e);
  doc["context"][std::string(model::context::kClaimedComparisons)] = claimed.dump();
  return doc;
}

const std::vector<Claim>& claims_on_the_claimed_pair() {
  static const std::vector<Claim> claims = parse_claims(R"(claims:
  - id: fused-rms-beats-unfused-ln
    statement: Fused RMSNorm is faster than unfused LayerNorm.
    source: test fixture
    check:
      kind: faster
      candidate: {pair: norm, variant: rmsnorm, impl: fused}
      baseline: {pair: norm, variant: layernorm, impl: unfused}
      factor: 1.0
  - id: fused-rms-time-ratio
    statement: Fused RMSNorm takes less time than unfused LayerNorm.
    source: test fixture
    check:
      kind: ratio
      candidate: {pair: norm, variant: rmsnorm, impl: fused}
      baseline: {pair: norm, variant: layernorm, impl: unfused}
      metric: time
      range: [0, 1]
)",
                                                        "inline.yaml", registry_catalogue());
  return claims;
}

TEST(OneEstimator, AClaimedPairOfRunsBecomesAPairedComparison) {
  const nlohmann::json claimed = nlohmann::json::array(
      {{{"baseline", kLayerNormUnfused}, {"candidate", kRmsNormFused}, {"claims", {"fused-rms-beats-unfused-ln", "fused-rms-time-ratio"}}}});
  const model::Results r = analysed(parse_bench_json(with_claimed_rounds(claimed), "claimed.json"), claims_on_the_claimed_pair());
  const model::Comparison* c = r.comparison(kLayerNormUnfused, kRmsNormFused);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->claimed_by, (std::vector<std::string>{"fused-rms-beats-unfused-ln", "fused-rms-time-ratio"}));
  ASSERT_TRUE(c->paired);
  EXPECT_NE(c->question.find("fused-rms-beats-unfused-ln"), std::string::npos) << c->question;
  EXPECT_GE(expect_paired_numbers(r, "claimed.json"), 2);
  // Written and read back: still the claims' comparison.
  const model::Results back = results_from_document(model::to_json(r), "back.json", registry_catalogue());
  ASSERT_TRUE(back.comparison(kLayerNormUnfused, kRmsNormFused));
  EXPECT_EQ(back.comparison(kLayerNormUnfused, kRmsNormFused)->claimed_by, c->claimed_by);
}

TEST(OneEstimator, ABadClaimedComparisonIsRefusedNamingTheField) {
  auto refusal = [](const nlohmann::json& claimed) {
    try {
      build_results(parse_bench_json(with_claimed_rounds(claimed), "claimed.json"), {});
    } catch (const model::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string field = "/context/lmroof_claimed_comparisons";
  EXPECT_NE(refusal({{"baseline", kLayerNormUnfused}}).find(field), std::string::npos);  // not a list
  const std::string unknown =
      refusal({{{"baseline", "norm/layernorm/unfused/cpu/fp32/tokens:9/d_model:1024"}, {"candidate", kRmsNormFused}, {"claims", {"x"}}}});
  EXPECT_NE(unknown.find("which is not a run of this file"), std::string::npos) << unknown;
  const std::string two_pairs = refusal(
      {{{"baseline", kLayerNormUnfused}, {"candidate", "bias/nobias/fused/cpu/fp32/tokens:64/in_features:256/out_features:256"}, {"claims", {"x"}}}});
  EXPECT_NE(two_pairs.find("compares runs of two pairs"), std::string::npos) << two_pairs;
  const std::string no_claim = refusal({{{"baseline", kLayerNormUnfused}, {"candidate", kRmsNormFused}, {"claims", nlohmann::json::array()}}});
  EXPECT_NE(no_claim.find(field + "/0/claims"), std::string::npos) << no_claim;
  const std::string itself = refusal({{{"baseline", kRmsNormFused}, {"candidate", kRmsNormFused}, {"claims", {"x"}}}});
  EXPECT_NE(itself.find("a claim compares two runs"), std::string::npos) << itself;
}

// The default CPU suite's claims that compare runs the catalogue does not (decode at
// batch 1 against batch 4, a window's contexts) are planned before measuring, timed in
// paired rounds beside the catalogue's, without moving any pair's A/A control.
TEST(OneEstimator, TheClaimsPairsArePlannedBeforeMeasuring) {
  const bench::SuiteOptions options;
  const auto runs = bench::plan_suite(options).runs;
  const auto claimed = claimed_comparisons(builtin(), planned_results(registry_catalogue(), runs));
  std::set<std::string> asking;
  for (const auto& c : claimed)
    for (const auto& id : c.claims) asking.insert(id);
  for (const char* id : {"decode-batch-helps-weights", "decode-batch-stops-at-kv", "window-flat-beyond-w"})
    EXPECT_TRUE(asking.count(id)) << id;
  // Claims on declared comparisons, and cost-model ratios, add nothing.
  for (const char* id : {"window-time-follows-w", "gqa-decode-faster", "mqa-removes-kv-term", "rmsnorm-faster-unfused"})
    EXPECT_FALSE(asking.count(id)) << id;

  const auto declared = bench::plan_paired_rounds(runs);
  const auto planned = bench::plan_paired_rounds(runs, claimed);
  EXPECT_EQ(planned.size(), declared.size() + claimed.size());
  for (const auto& c : claimed)
    EXPECT_TRUE(std::any_of(planned.begin(), planned.end(), [&](const bench::PairedPlan& p) {
      return p.baseline.bench_name() == c.baseline && p.candidate.bench_name() == c.candidate && !p.noise_floor;
    })) << c.baseline << " | " << c.candidate;
  std::set<std::string> controls_before, controls_after;
  for (const auto& p : declared)
    if (p.noise_floor) controls_before.insert(p.bench_name());
  for (const auto& p : planned)
    if (p.noise_floor) controls_after.insert(p.bench_name());
  EXPECT_EQ(controls_before, controls_after);
}

// ---- two medians and no paired rounds ----------------------------------------------

model::Results small_results() {
  std::ifstream in(kData / "claims" / "results-small.json");
  return results_from_document(nlohmann::json::parse(in), "results-small.json", registry_catalogue());
}

TEST(OneEstimator, UnpairedMediansSaySoAndADisturbedOneDecidesNothing) {
  const auto claims = load_claims(kData / "claims" / "faster.yaml", registry_catalogue());
  auto faster_holds = [&](const model::Results& r) {
    for (auto v : check_claims(claims, r))
      if (v.id == "faster-holds") return v;
    throw std::runtime_error("no faster-holds");
  };
  model::Results r = small_results();
  const auto quiet = faster_holds(r);
  EXPECT_EQ(quiet.verdict, model::Verdict::holds) << quiet.measured;
  EXPECT_NE(quiet.measured.find("unpaired: medians"), std::string::npos) << quiet.measured;
  // The baseline's slowest repetition at 3x its fastest: disturbed (rules::kDisturbedSpread).
  for (auto& run : r.runs)
    if (run.pair == "norm" && run.variant == "layernorm" && run.impl == "unfused" && run.shape.at("tokens") == 512)
      run.time_s.max = 3 * run.time_s.min;
  const auto disturbed = faster_holds(r);
  EXPECT_EQ(disturbed.verdict, model::Verdict::inconclusive) << disturbed.measured;
  EXPECT_EQ(disturbed.cause, model::Cause::machine);
  ASSERT_TRUE(disturbed.reason);
  EXPECT_NE(disturbed.reason->find("is disturbed"), std::string::npos) << *disturbed.reason;
}

}  // namespace
}  // namespace lmroof
