// Issue #34: composite runs beyond the block. The unfused stability passes and a window
// stack of global and local layers declare their steps (Cost::steps) in their cost
// models; bench.json records them as counters, and the analysis judges such a run
// against the sum of its steps' roof times, Σ max(F_i/P, B_i/W). A run of one step
// keeps its single roof. The sums below are worked out by hand from the formulas in
// docs/cost-model.md#stability and #window, not from the cost model under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/claims/verdict_cause.h"
#include "analysis/model/input_error.h"
#include "analysis/results/results.h"
#include "analysis/roofs/roof_choice.h"
#include "bench/catalogue.h"
#include "bench_fixture.h"
#include "registry.h"

namespace lmroof {
namespace {

// DRAM ceilings only (no cache levels): read and copy 40 GB/s, FP32 FMA 20 GFLOP/s.
nlohmann::json document(const std::vector<std::string>& ids, double real_time_ms) {
  nlohmann::json b = nlohmann::json::array();
  b.push_back(test::bench_entry("ceiling/cpu/read", 10, {{"ceiling_bytes", 4e8}}));
  b.push_back(test::bench_entry("ceiling/cpu/copy", 10, {{"ceiling_bytes", 4e8}}));
  b.push_back(test::bench_entry("ceiling/cpu/fp32_fma", 10, {{"ceiling_flops", 2e8}}));
  for (const auto& id : ids)
    for (int i = 0; i < 3; ++i) b.push_back(test::bench_entry(id, real_time_ms));
  return {{"context", {{"host_name", "test"}, {"num_cpus", 2}}}, {"benchmarks", b}};
}

// One declared step: its name, FLOPs and bytes as worked out by hand above each test.
void expect_step(const CostStep& step, const std::string& name, double flops, double bytes) {
  EXPECT_EQ(step.name, name);
  EXPECT_DOUBLE_EQ(step.flops.total(), flops) << name;
  EXPECT_DOUBLE_EQ(step.bytes, bytes) << name;
}

constexpr double kP = 20e9, kW = 40e9;  // FLOP/s, B/s: read = copy, so every byte moves at 40 GB/s

const char* kSoftcapUnfused = "stability/logit_softcap/unfused/cpu/fp32/tokens:4/vocab:100";
const char* kSoftcapFused = "stability/logit_softcap/fused/cpu/fp32/tokens:4/vocab:100";

// logit_softcap at 4 tokens of 100 logits, fp32: E = 400 logits, R = T = 4 rows.
//   capped = cap·tanh(logits/cap): 2E + E (tanh) = 1200 FLOPs; reads E·4, writes the fp32
//     capped tensor E·4: 3200 bytes.
//   cross_entropy(capped): 3E + 2R + E + R = 1612 FLOPs; reads E·4 and the targets 4T,
//     writes the loss 4T: 1632 bytes.
TEST(CompositeSteps, UnfusedStabilityPassesAreDeclaredAsSteps) {
  const Cost c = cost_of(RunSpec::parse_bench_name(kSoftcapUnfused));
  ASSERT_EQ(c.steps.size(), 2u);
  expect_step(c.steps[0], "capped = cap * tanh(logits / cap)", 1200, 3200);
  expect_step(c.steps[1], "loss = cross_entropy(capped, targets)", 1612, 1632);
  EXPECT_DOUBLE_EQ(c.flops.total(), 2812);
  EXPECT_DOUBLE_EQ(c.bytes_model, 4832);
  // One pass: no steps.
  EXPECT_TRUE(cost_of(RunSpec::parse_bench_name(kSoftcapFused)).steps.empty());
  EXPECT_TRUE(
      cost_of(RunSpec::parse_bench_name("stability/logit_softcap/without/cpu/fp32/tokens:4/vocab:100")).steps.empty());
}

// Every unfused stability level has one step per pass, summing to its FLOPs and bytes.
TEST(CompositeSteps, EveryUnfusedStabilityVariantHasStepsThatSumToItsCost) {
  for (const char* id : {"stability/qknorm/unfused/cpu/fp32/tokens:16/q_heads:4/kv_heads:2/head_dim:64",
                         "stability/zloss/unfused/cpu/fp32/tokens:16/vocab:1000",
                         "stability/logit_softcap/unfused/cpu/fp32/tokens:16/vocab:1000",
                         "stability/attn_softcap/unfused/cpu/fp32/tokens:16/q_heads:4/context:100"}) {
    const Cost c = cost_of(RunSpec::parse_bench_name(id));
    ASSERT_GE(c.steps.size(), 2u) << id;
    double flops = 0, bytes = 0;
    for (const auto& s : c.steps) flops += s.flops.total(), bytes += s.bytes;
    EXPECT_NEAR(flops, c.flops.total(), 1e-9 * flops) << id;
    EXPECT_NEAR(bytes, c.bytes_model, 1e-9 * bytes) << id;
  }
}

// Through bench.json and the analysis: the unfused soft-cap is judged by its steps, the
// fused one (one pass) keeps its single roof.
TEST(CompositeSteps, TheUnfusedSoftcapIsJudgedAgainstTheSumOfItsStepsRoofTimes) {
  const model::Results r =
      build_results(parse_bench_json(test::as_measured(document({kSoftcapUnfused, kSoftcapFused}, 1e-3)), "test"), {});
  const model::Run* unfused = r.run(kSoftcapUnfused);
  ASSERT_TRUE(unfused && unfused->judged_against && unfused->judged_against->roof);
  const model::JudgedAgainst& j = *unfused->judged_against;
  EXPECT_TRUE(j.composite) << *j.roof;
  // (whole-run memory roof: as many reads as writes at the copy roof, the rest at read)
  EXPECT_EQ(*j.roof, "fp32_fma+copy+read by step");
  // The cap pass is held by its bytes (3200 B at 40 GB/s: 80 ns, its FLOPs 60 ns), the
  // cross-entropy by its FLOPs (1612 at 20 GFLOP/s: 80.6 ns, its bytes 40.8 ns).
  const double by_step = 3200 / kW + 1612 / kP;
  EXPECT_NEAR(j.seconds, by_step, 1e-9 * by_step);
  // The whole run at one roof would allow max(2812 / P, 4832 / W) = 140.6 ns.
  EXPECT_GT(j.seconds, std::max(2812 / kP, 4832 / kW));
  EXPECT_NEAR(j.fraction, by_step / 1e-6, 1e-9);
  EXPECT_NE(j.rule.find("capped = cap * tanh(logits / cap)"), std::string::npos) << j.rule;
  // The verdict cause reads the composite fraction.
  ASSERT_TRUE(roof_fraction(*unfused));
  EXPECT_DOUBLE_EQ(*roof_fraction(*unfused), j.fraction);
  const auto cause = cause_of({model::Verdict::fails, {{"baseline", unfused}}, std::nullopt, 0.05});
  ASSERT_TRUE(cause);
  EXPECT_NE(cause->detail.find("fp32_fma+copy+read by step"), std::string::npos) << cause->detail;

  const model::Run* fused = r.run(kSoftcapFused);
  ASSERT_TRUE(fused && fused->judged_against && fused->judged_against->roof);
  EXPECT_FALSE(fused->judged_against->composite);
  EXPECT_EQ(*fused->judged_against->roof, "fp32_fma");
  // Fused: 2812 FLOPs in one pass of 1632 bytes (E·4 + 4T read, 4T written).
  EXPECT_NEAR(fused->judged_against->seconds, 2812 / kP, 1e-9 * 2812 / kP);
}

// A window stack of 1 global and 1 local layer (decode's grouped level per layer): batch
// 1, 4 q heads on 1 kv head of 8, context 512, window 128, fp32, one split per layer.
// A layer over L rows: FLOPs 4·4·L·8 + 4(3L + 16) + 4L = 144L + 64; bytes q and out
// 2·4·8·4 = 256, K and V 2·L·8·4 = 64L. Global (L = 512): 73792 FLOPs, 33024 bytes;
// local (L = 128): 18496 FLOPs, 8448 bytes.
const char* kInterleave = "window/interleave_1_1/grouped/cpu/fp32/batch:1/q_heads:4/kv_heads:1/head_dim:8/context:512/window:128/layers:2";

TEST(CompositeSteps, AWindowStackDeclaresItsGlobalAndLocalLayersAsSteps) {
  const Cost c = cost_of(RunSpec::parse_bench_name(kInterleave));
  ASSERT_EQ(c.steps.size(), 2u);
  expect_step(c.steps[0], "1 global layer (512 rows)", 73792, 33024);
  expect_step(c.steps[1], "1 local layer (128 rows)", 18496, 8448);
  // 6 layers of 1:5: one global, five local, grouped.
  const Cost six = cost_of(RunSpec::parse_bench_name(
      "window/interleave_1_5/grouped/cpu/fp32/batch:1/q_heads:4/kv_heads:1/head_dim:8/context:512/window:128/layers:6"));
  ASSERT_EQ(six.steps.size(), 2u);
  EXPECT_EQ(six.steps[1].name, "5 local layers (128 rows)");
  EXPECT_DOUBLE_EQ(six.steps[1].bytes, 5 * 8448.0);
  // All layers of one kind: one step, none declared.
  for (const char* kind : {"full", "sliding"})
    EXPECT_TRUE(cost_of(RunSpec::parse_bench_name(std::string("window/") + kind + "/grouped" +
                                                  "/cpu/fp32/batch:1/q_heads:4/kv_heads:1/head_dim:8/context:512/"
                                                  "window:128/layers:2"))
                    .steps.empty())
        << kind;
}

TEST(CompositeSteps, AWindowStackIsJudgedByItsLayersWhereTheirBoundsDiffer) {
  // P between the two layers' intensities (global 2.235, local 2.189 FLOP/B at W): the
  // global layer is held by its FLOPs, the local one by its bytes.
  const double P = 2.21 * kW;
  MachineRoofs roofs;
  roofs.read = roofs.copy = kW;
  roofs.fp32_fma = P;
  const Cost c = cost_of(RunSpec::parse_bench_name(kInterleave));
  const model::JudgedAgainst j = judged_against(c, 1e-6, roofs);
  ASSERT_TRUE(j.roof);
  EXPECT_TRUE(j.composite);
  EXPECT_EQ(*j.roof, "fp32_fma+read by step");  // decode only reads, but for its output
  const double by_step = 73792 / P + 8448 / kW;
  EXPECT_NEAR(j.seconds, by_step, 1e-9 * by_step);
  EXPECT_GT(j.seconds, std::max((73792 + 18496) / P, (33024 + 8448) / kW));

  // Where every layer is held by the same roof, the sum of the steps is the whole run's
  // time at that roof: the single roof is kept (its name says more).
  roofs.fp32_fma = 100 * kW;
  const model::JudgedAgainst memory = judged_against(c, 1e-6, roofs);
  ASSERT_TRUE(memory.roof);
  EXPECT_FALSE(memory.composite);
  EXPECT_EQ(*memory.roof, "read");
  EXPECT_NEAR(memory.seconds, (33024 + 8448) / kW, 1e-15);
}

// A bench.json whose step counters do not add up to the run's cost is refused, naming
// the counter: the sum of the steps' roof times would judge another run.
TEST(CompositeSteps, StepCountersThatDoNotSumToTheRunAreRefused) {
  nlohmann::json doc = test::as_measured(document({kSoftcapUnfused}, 1e-3));
  for (auto& e : doc["benchmarks"])
    if (e["name"].get<std::string>().rfind("stability/", 0) == 0)
      e["step_bytes_model/capped = cap * tanh(logits / cap)"] = 9999.0;
  try {
    build_results(parse_bench_json(doc, "test"), {});
    FAIL() << "accepted steps that do not sum to the run";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("step_bytes_model~1capped = cap * tanh(logits ~1 cap)"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("not the run's bytes_model"), std::string::npos) << e.what();
  }
  // A step with bytes but no FLOPs.
  nlohmann::json lone = test::as_measured(document({kSoftcapUnfused}, 1e-3));
  for (auto& e : lone["benchmarks"])
    if (e["name"].get<std::string>().rfind("stability/", 0) == 0) e.erase("step_flops/capped = cap * tanh(logits / cap)");
  EXPECT_THROW(build_results(parse_bench_json(lone, "test"), {}), model::InputError);
}

}  // namespace
}  // namespace lmroof
