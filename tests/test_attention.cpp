// attention pair: both phases of every variant against the float64 reference on fresh
// random inputs (awkward shapes: one token, one head, contexts that are not a multiple
// of the 64-query tile, head_dim·q_heads != d_model), the cost model against numbers
// worked out by hand, shape completion and bad shapes, and the suite's phase shapes.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "analysis/roofs/attention_intensity.h"
#include "attention/attention.h"
#include "bench/catalogue.h"
#include "bench/suite.h"
#include "registry.h"
#include "reports/attention_chart.h"
#include "reference_check.h"
#include "test_support.h"

namespace lmroof {
namespace {

using Param = test::KernelParam;

Shape layer(int64_t batch, int64_t d_model, int64_t q_heads, int64_t context) {
  return {{"batch", batch}, {"d_model", d_model}, {"q_heads", q_heads}, {"context", context}};
}
Shape layer(int64_t batch, int64_t d_model, int64_t q_heads, int64_t kv_heads, int64_t head_dim, int64_t context) {
  return {{"batch", batch},       {"d_model", d_model},   {"q_heads", q_heads},
          {"kv_heads", kv_heads}, {"head_dim", head_dim}, {"context", context}};
}

Shape with_head_dim(Shape s, int64_t head_dim) {
  s.set("head_dim", head_dim);
  return s;
}

std::vector<Param> kernel_params() {
  const Shape shapes[] = {
      layer(1, 16, 1, 1),     // one token, one head
      layer(2, 64, 4, 65),    // context one past the 64-query tile
      layer(3, 48, 6, 130),   // gqa groups of 6 (one kv head), odd sizes
      with_head_dim(layer(1, 40, 8, 3), 5),  // head_dim 5: q_heads·head_dim = 40 but not a vector multiple
      layer(2, 96, 12, 700),  // several tiles; decode with a split context (few work items)
  };
  std::vector<Param> params;
  for (const char* variant : {"mha", "gqa", "mqa"})
    for (const char* phase : {"prefill", "decode"})
      for (const auto& s : shapes) params.emplace_back(variant, phase, s);
  // q_heads · head_dim != d_model (as in Gemma), gqa with a given kv_heads
  for (const char* phase : {"prefill", "decode"}) {
    params.emplace_back("gqa", phase, layer(2, 32, 4, 2, 16, 33));
    params.emplace_back("mha", phase, layer(1, 24, 3, 3, 20, 2));
  }
  // decode past the streamed projections' 16 rows (sgemm), and with 3 outputs per weight block
  params.emplace_back("gqa", "decode", layer(17, 32, 4, 40));
  params.emplace_back("mqa", "decode", with_head_dim(layer(16, 30, 2, 9), 3));
  // the broadcast projections: 5-8 rows (8 lanes) and 9-16 rows (16 lanes), with
  // outputs that are not a multiple of its 8 weight rows (20, 6, 30) and odd K
  params.emplace_back("gqa", "decode", layer(7, 40, 4, 2, 10, 9));
  params.emplace_back("mqa", "decode", with_head_dim(layer(11, 30, 2, 5), 3));
  params.emplace_back("mha", "decode", with_head_dim(layer(5, 33, 3, 4), 7));
  return params;
}

class AttentionKernels : public ::testing::TestWithParam<Param> {};

TEST_P(AttentionKernels, MatchesFloat64Reference) {
  const test::ReferenceCheck check = test::check_against_reference("attention", GetParam());
  EXPECT_TRUE(check.passed());
  // fp32 kernels are held to 1e-5 relative: the composite tolerance is only a ceiling
  EXPECT_LE(check.result.rel_error, 1e-5) << check.spec.bench_name() << " seed " << check.seed;
}

INSTANTIATE_TEST_SUITE_P(Cpu, AttentionKernels, ::testing::ValuesIn(kernel_params()), test::param_name);

TEST(AttentionKernels, DecodeWritesTheNewCacheRowEveryRun) {
  // run() twice: the second step sees the same cache (its last row rewritten), so the
  // outputs must still match the reference
  RunSpec spec{"attention", "gqa", "decode", Backend::cpu, DType::fp32, layer(2, 64, 8, 100)};
  auto w = make_workload(spec);
  w->run();
  EXPECT_TRUE(w->validate(test::fresh_seed()).passed());
}

attention::Dims small() { return {2, 8, 2, 1, 4, 3}; }  // B, d, Hq, Hkv, dh, n

TEST(AttentionCost, PrefillByHand) {
  // Dq = 8, Dkv = 4, qkv rows 16; weights 16·8 + 8·8 = 192; T = B·n = 6; P = n(n+1)/2 = 6
  const Cost c = attention::cost(attention::Phase::prefill, small(), 4, Backend::cpu);
  EXPECT_DOUBLE_EQ(c.flops.matrix, 2688);  // 2·6·8·16 + 2·6·8·8 + 4·(2·2)·6·4
  EXPECT_DOUBLE_EQ(c.flops.vector, 168);   // (2·2)·(3·6 + 2·3·4)
  EXPECT_DOUBLE_EQ(c.flops.special, 24);   // (2·2)·6
  EXPECT_DOUBLE_EQ(c.bytes_minimum, 1344);  // (192 + 2·6·8 + 2·6·4)·4
  // (192 + 48 + 96 + 4·6·4 + 48 + 2·48 + 48 + 48 + 48)·4
  EXPECT_DOUBLE_EQ(c.bytes_model, 2880);
  // CUDA: + 4·B·Hq·n² = 144 score elements
  EXPECT_DOUBLE_EQ(attention::cost(attention::Phase::prefill, small(), 4, Backend::cuda).bytes_model, 3456);
  EXPECT_DOUBLE_EQ(attention::cost(attention::Phase::prefill, small(), 2, Backend::cpu).bytes_minimum, 672);
}

TEST(AttentionCost, DecodeByHand) {
  // attention part (decode's grouped cost, no split: 2 work items but ceil(3/512) = 1 piece):
  // matrix 4·4·3·4 = 192, vector 4·(9 + 8) = 68, special 12, bytes (2·4·4 + 2·2·3·4)·4 = 320
  const Cost c = attention::cost(attention::Phase::decode, small(), 4, Backend::cpu);
  EXPECT_DOUBLE_EQ(c.flops.matrix, 960);  // 192 + 2·2·8·16 + 2·2·8·8
  EXPECT_DOUBLE_EQ(c.flops.vector, 68);
  EXPECT_DOUBLE_EQ(c.flops.special, 12);
  EXPECT_DOUBLE_EQ(c.bytes_minimum, 1088);  // (192 + 2·2·8 + 2·2·3·4)·4
  // (192 + 3·16 + 16 + 2·8 + 4·8 + 16 + 16)·4 + 320
  EXPECT_DOUBLE_EQ(c.bytes_model, 1664);
  // CUDA: + 4·B·Hq·n = 48 score elements
  EXPECT_DOUBLE_EQ(attention::cost(attention::Phase::decode, small(), 4, Backend::cuda).bytes_model, 1856);
}

TEST(AttentionCost, DecodeSplitPartialsComeFromDecode) {
  // B = 1, Hkv = 1: one work item, n = 1100 -> ceil(1100/512) = 3 pieces; partials
  // 2·(B·Hq)·3·(dh + 2)·4 = 2·2·3·6·4 = 288 bytes on top of the no-split model
  attention::Dims d{1, 8, 2, 1, 4, 1100};
  const double with = attention::cost(attention::Phase::decode, d, 4, Backend::cpu).bytes_model;
  const double gpu = attention::cost(attention::Phase::decode, d, 4, Backend::cuda).bytes_model;
  EXPECT_DOUBLE_EQ(with - (gpu - 4.0 * 4 * 2 * 1100), 288);
}

// The claim decode-batch-turns-compute predicts its crossing from a line through each
// series' FLOPs and model bytes against the batch (docs/claims.md#bound-crossing): decode's
// FLOPs are linear in b and its bytes affine (weights once, activations and cache per
// sequence) but for the CPU's split partials, which stay under 1% at the suite's shapes.
TEST(AttentionCost, DecodeIsAffineInBatch) {
  for (int64_t kv : {16, 2, 1})
    for (int64_t n : {512, 2048}) {
      auto at = [&](int64_t b) { return attention::cost(attention::Phase::decode, {b, 2048, 16, kv, 128, n}, 4, Backend::cpu); };
      const Cost c1 = at(1), c64 = at(64);
      for (int64_t b : {4, 16}) {
        const Cost c = at(b);
        const double t = (b - 1) / 63.0;
        EXPECT_NEAR(c.flops.total(), c1.flops.total() + t * (c64.flops.total() - c1.flops.total()),
                    1e-9 * c.flops.total())
            << "kv " << kv << " n " << n << " b " << b;
        EXPECT_NEAR(c.bytes_model, c1.bytes_model + t * (c64.bytes_model - c1.bytes_model), 0.01 * c.bytes_model)
            << "kv " << kv << " n " << n << " b " << b;
      }
    }
}

TEST(AttentionCost, ShazeerRatiosFollowTheTerms) {
  // memory / arithmetic of MHA decode on minimum bytes: ~ (s/2)(1/b + n/(2d)) for n << d
  const auto ratio = [](int64_t b, int64_t n, int64_t kv) {
    const attention::Dims d{b, 4096, 32, kv, 128, n};
    const Cost c = attention::cost(attention::Phase::decode, d, 2, Backend::cpu);
    return c.bytes_minimum / c.flops.total();
  };
  EXPECT_GT(ratio(1, 1024, 32) / ratio(64, 1024, 32), 4);  // the 1/b term dominates at small b (~8x here)
  EXPECT_NEAR(ratio(4096, 1024, 32) / ratio(4096, 2048, 32), 0.5, 0.1);  // n/d dominates at large b
  EXPECT_LT(ratio(4096, 2048, 1), ratio(4096, 2048, 32) / 10);  // MQA removes most of the n/d term
}

TEST(AttentionShape, CompletesAndRejects) {
  const auto& pair = find_pair("attention");
  const Shape s = pair.complete_shape("gqa", layer(2, 4096, 32, 128));
  EXPECT_EQ(s["head_dim"], 128);
  EXPECT_EQ(s["kv_heads"], 4);
  EXPECT_EQ(pair.complete_shape("mqa", layer(2, 4096, 32, 128))["kv_heads"], 1);
  EXPECT_EQ(pair.complete_shape("mha", layer(2, 4096, 32, 128))["kv_heads"], 32);
  EXPECT_THROW(pair.complete_shape("gqa", layer(2, 100, 3, 8)), std::invalid_argument);  // 3 ∤ 100
  EXPECT_THROW(pair.complete_shape("mha", layer(2, 64, 4, 2, 16, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mha", layer(0, 64, 4, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mha", Shape{{"batch", 1}, {"d_model", 64}}), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("mha", layer(1 << 20, 1 << 14, 128, 4096)), std::invalid_argument);
  EXPECT_THROW(make_workload({"attention", "mha", "train", Backend::cpu, DType::fp32, layer(1, 16, 1, 1)}),
               std::invalid_argument);
}

TEST(AttentionSuite, PhasesTakeTheirOwnShapes) {
  for (bool quick : {false, true}) {
    bench::SuiteOptions options;
    options.pairs = {"attention"};
    options.quick = quick;
    int prefill = 0, decode = 0;
    for (const auto& r : bench::suite_runs(options)) {
      if (r.impl == "prefill") {
        ++prefill;
        EXPECT_LE(r.shape["batch"] * r.shape["context"], 256) << r.bench_name();
      } else {
        ++decode;
        // b = 64 for the variants with few kv heads only (MHA's intensity never passes a CPU's ridge)
        if (r.shape["batch"] == 64) {
          EXPECT_NE(r.variant, "mha") << r.bench_name();
        }
      }
    }
    EXPECT_EQ(prefill, 3) << "quick " << quick;  // one prefill shape per variant
    EXPECT_EQ(decode, 22) << "quick " << quick;  // b = 1, 4, 16 per variant and context; 64 for gqa, mqa
  }
}

TEST(AttentionIntensity, ShazeerPredictionByHand) {
  // MHA, d = 2048, n = 512, b = 4, fp32: W = 4d² = 16777216, FLOPs 2W + 4nd = 37748736,
  // bytes 4·(W/4 + 2nd) = 25165824: I = 1.5
  const double d = 2048;
  EXPECT_DOUBLE_EQ(shazeer_decode_intensity({4, 512, d, d, d}, 4), 1.5);
  // MQA (one kv head of 128), b = 16, bf16: W = (2048 + 256)·2048 + 2048² = 8912896,
  // FLOPs 2W + 4·512·2048 = 22020096, bytes 2·(W/16 + 2·512·128) = 1376256: I = 16
  EXPECT_DOUBLE_EQ(shazeer_decode_intensity({16, 512, d, d, 128}, 2), 16.0);
  model::Run run;
  run.id = "attention/mha/decode/cpu/fp32/batch:4/context:512";
  run.pair = "attention", run.variant = "mha", run.impl = "decode", run.backend = "cpu", run.dtype = "fp32";
  run.shape = {{"batch", 4}, {"context", 512}, {"d_model", 2048}, {"q_heads", 16}, {"kv_heads", 16}, {"head_dim", 128}};
  run.intensity.model = run.intensity.value = 1.3;
  // The catalogue, not the pair's name, decides which runs get the prediction.
  const model::Catalogue catalogue = registry_catalogue();
  ASSERT_TRUE(predicted_intensity(run, catalogue).has_value());
  EXPECT_DOUBLE_EQ(*predicted_intensity(run, catalogue), 1.5);
  model::Run prefill = run;
  prefill.impl = "prefill";
  EXPECT_FALSE(predicted_intensity(prefill, catalogue).has_value());
  model::Run missing = run;
  missing.shape.erase("kv_heads");
  EXPECT_FALSE(predicted_intensity(missing, catalogue).has_value());
  model::Catalogue renamed = catalogue, undeclared = catalogue;
  for (auto& p : renamed.pairs)
    if (p.name == "attention") p.name = "my-attention";
  for (auto& p : undeclared.pairs) p.intensity_predictions.clear();
  model::Run other_pair = run;
  other_pair.pair = "my-attention";
  EXPECT_DOUBLE_EQ(predicted_intensity(other_pair, renamed).value_or(0), 1.5);
  EXPECT_FALSE(predicted_intensity(run, undeclared).has_value());
  // the chart: one run row and one prediction row per run with a prediction, nothing else
  model::Results results;
  run.predicted_intensity = predicted_intensity(run, catalogue);
  results.runs = {run, prefill};
  const nlohmann::json chart = report::attention_intensity_chart(results);
  ASSERT_FALSE(chart.is_null());
  EXPECT_EQ(chart["datasets"]["rows"].size(), 2u);
  results.runs = {prefill};
  EXPECT_TRUE(report::attention_intensity_chart(results).is_null());
}

}  // namespace
}  // namespace lmroof
