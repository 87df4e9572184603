// The launch ceiling t0 and the latency bound (issue #27, part 3): a run whose median
// is within 2x of t0 is latency-bound, beyond it memory- or compute-bound by its
// intensity; the launch ceiling is a median, not a best; a file without one still
// loads, with t0 missing and the reason given. And part 5: a run predicted by
// `lmroof predict`'s per-op model carries an error the reader checks.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/claims/verdict_cause.h"
#include "analysis/predict/devices.h"
#include "analysis/predict/run_prediction.h"
#include "analysis/results/results.h"
#include "analysis/roofs/roofline.h"
#include "bench_fixture.h"
#include "registry.h"

namespace lmroof {
namespace {

nlohmann::json entry(const std::string& name, double real_time_ms, nlohmann::json counters = nlohmann::json::object()) {
  nlohmann::json e = {{"name", name}, {"run_name", name}, {"run_type", "iteration"}, {"iterations", 10},
                      {"real_time", real_time_ms}, {"cpu_time", real_time_ms}, {"time_unit", "ms"}};
  for (auto& [k, v] : counters.items()) e[k] = v;
  return e;
}

// copy 20 GB/s, FMA 100 GFLOP/s (ridge 5 FLOP/B), a launch ceiling whose three
// repetitions' medians are 3, 1 and 2 us (t0 = their median, 2 us; the best would be 1),
// and two fused RMSNorm runs (T=4, d=8: 0.75 FLOP/B, memory side) of median 4 us (= 2 t0)
// and 4.1 us.
nlohmann::json bench_with_launch() {
  nlohmann::json b = nlohmann::json::array();
  b.push_back(entry("ceiling/cpu/copy", 10, {{"ceiling_bytes", 2e8}}));
  b.push_back(entry("ceiling/cpu/fp32_fma", 10, {{"ceiling_flops", 1e9}}));
  for (double us : {3.0, 1.0, 2.0})
    b.push_back(entry("ceiling/cpu/launch", us * 1e-3, {{"ceiling_launch_s", us * 1e-6}, {"ceiling_launches", 2000}}));
  for (double us : {4.0, 3.5, 4.5}) b.push_back(entry("norm/rmsnorm/fused/cpu/fp32/tokens:4/d_model:8", us * 1e-3));
  for (double us : {4.1, 4.0, 4.2}) b.push_back(entry("norm/layernorm/fused/cpu/fp32/tokens:4/d_model:8", us * 1e-3));
  return {{"context", {{"host_name", "test"}, {"num_cpus", 2}}}, {"benchmarks", b}};
}

const model::Run& run_named(const model::Results& r, const std::string& id) {
  const model::Run* run = r.run(id);
  if (!run) throw std::runtime_error("no run " + id);
  return *run;
}

TEST(LaunchCeiling, IsTheMedianOfTheRepetitionsInSeconds) {
  const model::Results r = build_results(parse_bench_json(test::as_measured(bench_with_launch()), "test"), {});
  const model::Ceiling* launch = r.ceiling("launch");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->kind, model::CeilingKind::latency);
  EXPECT_EQ(launch->unit(), "s");
  EXPECT_EQ(launch->statistic, "median");
  EXPECT_DOUBLE_EQ(launch->value, 2e-6);
  ASSERT_TRUE(r.roofs.launch);
  EXPECT_EQ(*r.roofs.launch, "launch");
  EXPECT_FALSE(r.roofs.launch_reason);
  // and it survives the writer and the validating reader
  const model::Results back = model::results_from_json(model::to_json(r), "back.json");
  EXPECT_DOUBLE_EQ(back.ceiling("launch")->value, 2e-6);
  EXPECT_EQ(back.ceiling("launch")->statistic, "median");
}

TEST(LatencyBound, WithinTwiceTheLaunchCeilingIsLatencyBeyondItTheRidgeDecides) {
  const model::Results r = build_results(parse_bench_json(test::as_measured(bench_with_launch()), "test"), {});
  const auto& at_twice = run_named(r, "norm/rmsnorm/fused/cpu/fp32/tokens:4/d_model:8");
  const auto& beyond = run_named(r, "norm/layernorm/fused/cpu/fp32/tokens:4/d_model:8");
  ASSERT_TRUE(at_twice.bound && beyond.bound);
  EXPECT_EQ(*at_twice.bound, model::Bound::latency);  // 4 us = 2 x t0
  EXPECT_EQ(*beyond.bound, model::Bound::memory);     // 4.1 us > 2 x t0; intensity below the ridge
  EXPECT_DOUBLE_EQ(*at_twice.roofline.launch, 2e-6);
  EXPECT_EQ(*at_twice.roofline.launch_roof, "launch");
  const nlohmann::json doc = model::to_json(r);
  EXPECT_NO_THROW(model::results_from_json(doc, "ok.json"));
}

TEST(LatencyBound, ComputeSideRunsTurnLatencyBoundToo) {
  model::Run run;
  run.flops.total = run.flops.matrix = 1e6;
  run.intensity.value = 50;  // above any ridge below
  run.achieved.flop_per_s = 1e6 / 3e-6;
  Roofs roofs{Roof{"copy", 20e9}, Roof{"fp32_fma", 100e9}, std::nullopt, std::nullopt, Roof{"launch", 2e-6}};
  for (const auto& [median, expected] : {std::pair{3e-6, model::Bound::latency}, std::pair{4e-6, model::Bound::latency},
                                         std::pair{4.01e-6, model::Bound::compute}, std::pair{1e-3, model::Bound::compute}}) {
    run.time_s.median = median;
    place_on_roofline(run, roofs);
    ASSERT_TRUE(run.bound);
    EXPECT_EQ(*run.bound, expected) << median;
  }
  // Without a launch ceiling nothing is latency-bound, however short.
  roofs.launch.reset();
  run.time_s.median = 1e-9;
  place_on_roofline(run, roofs);
  EXPECT_EQ(*run.bound, model::Bound::compute);
  EXPECT_FALSE(run.roofline.launch);
}

TEST(LatencyBound, TheReaderRefusesABoundThatDisagreesWithTheLaunchCeiling) {
  const model::Results r = build_results(parse_bench_json(test::as_measured(bench_with_launch()), "test"), {});
  nlohmann::json doc = model::to_json(r);
  for (auto& run : doc["runs"]) {
    if (run["bound"] == "latency") run["bound"] = "memory";
    else run["bound"] = "latency";
  }
  try {
    model::results_from_json(doc, "bad.json");
    ADD_FAILURE() << "a bound that disagrees with roofline.launch was accepted";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/bound"), std::string::npos) << e.what();
  }
}

TEST(LatencyBound, AnOlderFileWithoutALaunchCeilingLoadsWithTheReason) {
  nlohmann::json bench = bench_with_launch();
  auto& b = bench["benchmarks"];
  for (auto it = b.begin(); it != b.end();)
    it = (*it)["name"].get<std::string>().find("launch") != std::string::npos ? b.erase(it) : it + 1;
  const model::Results r = build_results(parse_bench_json(test::as_measured(bench), "test"), {});
  EXPECT_FALSE(r.roofs.launch);
  ASSERT_TRUE(r.roofs.launch_reason);
  // An older writer's file: no roofs.launch, no launch_reason, no statistic.
  nlohmann::json doc = model::to_json(r);
  doc["roofs"].erase("launch");
  doc["roofs"].erase("launch_reason");
  for (auto& c : doc["ceilings"]) c.erase("statistic");
  const model::Results old = model::results_from_json(doc, "old.json");
  EXPECT_FALSE(old.roofs.launch);
  ASSERT_TRUE(old.roofs.launch_reason);
  EXPECT_NE(old.roofs.launch_reason->find("before lmroof measured a launch ceiling"), std::string::npos);
  for (const auto& run : old.runs) EXPECT_NE(run.bound, model::Bound::latency);
}

// A latency-bound side: the launch cost decides, whatever the roofs say (the cause is
// the machine, named with the side and t0); a side beyond 2x t0 leaves the usual rules.
TEST(LatencyBound, ALatencyBoundSideMakesTheVerdictCauseTheMachine) {
  model::Run fast, slow;
  fast.id = "fast", slow.id = "slow";
  for (model::Run* r : {&fast, &slow}) {
    r->judged_against = model::JudgedAgainst{};
    r->judged_against->roof = "read";
    r->judged_against->fraction = 0.9;
    r->roofline.launch = 2e-6;
  }
  fast.bound = model::Bound::latency;
  slow.bound = model::Bound::memory;
  for (const auto verdict : {model::Verdict::fails, model::Verdict::inconclusive}) {
    const auto c = cause_of({verdict, {{"baseline", &slow}, {"candidate", &fast}}, std::nullopt, 0.02});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cause, Cause::machine);
    EXPECT_NE(c->detail.find("candidate fast is latency-bound"), std::string::npos) << c->detail;
  }
  fast.bound = model::Bound::memory;
  const auto c = cause_of({model::Verdict::fails, {{"baseline", &slow}, {"candidate", &fast}}, std::nullopt, 0.02});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause, Cause::architecture);
}

// An MLP run predicted with predict's per-op model: mlp_up, mlp_act and mlp_down, each
// max(F/P, B/W) + t0, worked out by hand here for SwiGLU at T=64, d=256, d_ff=512, fp32.
TEST(RunPrediction, AnMlpRunIsPredictsThreeOpsAndTheErrorIsChecked) {
  ModelConfig model;
  model.name = "toy";
  model.family = "llama";
  model.hidden = 256, model.q_heads = 4, model.kv_heads = 4, model.head_dim = 64, model.d_ff = 512, model.layers = 2;
  model.vocab = 1000, model.activation = "silu", model.gated_mlp = true, model.norm = NormKind::rmsnorm;
  model.sliding_layers = {false, false};
  predict::Device device;
  device.bandwidth_bytes_per_s = 20e9;
  device.dense_peak_flops = {{"fp32", 100e9}};
  device.launch_s = 2e-6;
  model::Run run;
  run.id = "mlp/swiglu/fused/cpu/fp32/tokens:64/d_model:256/d_ff:512";
  run.pair = "mlp", run.variant = "swiglu", run.impl = "fused", run.dtype = "fp32";
  run.shape = {{"tokens", 64}, {"d_model", 256}, {"d_ff", 512}};
  run.time_s.median = 1e-3;
  const auto& mapping = find_pair("mlp").model_mapping;  // the pair's own declaration
  ASSERT_TRUE(mapping);
  const auto p = predict::predict_run(run, &*mapping, model, device);
  ASSERT_TRUE(p);
  const double T = 64, d = 256, f = 512, e = 4, P = 100e9, W = 20e9, t0 = 2e-6;
  auto op = [&](double flops, double bytes) { return std::max(flops / P, bytes / W) + t0; };
  const double expected = op(2 * T * d * 2 * f, (d * 2 * f + T * (d + 2 * f)) * e) + op(5 * T * f, 3 * f * T * e) +
                          op(2 * T * f * d, (f * d + T * (f + d)) * e);
  EXPECT_NEAR(p->time_s, expected, 1e-12 * expected);
  EXPECT_EQ(p->ops, "mlp_up+mlp_act+mlp_down");
  EXPECT_NEAR(p->error, (expected - 1e-3) / 1e-3, 1e-12);
  // A pair that declares no model mapping is not predicted.
  run.pair = "norm";
  EXPECT_FALSE(find_pair("norm").model_mapping);
  EXPECT_FALSE(predict::predict_run(run, nullptr, model, device));
}

}  // namespace
}  // namespace lmroof
