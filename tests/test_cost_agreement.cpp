// The three surfaces that cost an operator (a pair's cost model, predict's step and a
// profiler trace's op) give the same FLOPs and bytes for the same LayerNorm, RMSNorm
// and matmul shape: all three call kernels/run_names/op_formulas.h. Before that header
// the trace counted LayerNorm at 8 FLOPs per element and the others at 7.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/predict/step_cost.h"
#include "analysis/trace/cost_models.h"
#include "bias/bias.h"
#include "kernels/model_config/model_config.h"
#include "norm/norm.h"

namespace {

using namespace lmroof;

constexpr int64_t kTokens = 512, kHidden = 1024, kInner = 4096;  // bf16 throughout
constexpr int kBf16 = 2;

// One layer of a toy model: prefill of kTokens tokens, whose o_proj is a
// [kTokens, kInner] x [kInner, kHidden] GEMM and whose norms run over kHidden.
ModelConfig toy_model(NormKind norm) {
  ModelConfig m;
  m.name = "toy";
  m.family = "llama";
  m.hidden = kHidden;
  m.q_heads = 32;
  m.kv_heads = 8;
  m.head_dim = kInner / 32;
  m.d_ff = kInner;
  m.layers = 1;
  m.vocab = 1000;
  m.activation = "silu";
  m.gated_mlp = true;
  m.norm = norm;
  return m;
}

predict::OpCost predicted_op(NormKind norm, const std::string& name) {
  const auto ops = predict::prefill_layer_ops(toy_model(norm), 1, kTokens, predict::Dtype::bf16, predict::Roof{1e12, 1e11, 0});
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const predict::OpCost& o) { return o.name == name; });
  EXPECT_NE(it, ops.end()) << name;
  return it == ops.end() ? predict::OpCost{} : *it;
}

trace::OpCost traced_op(const std::string& name, const std::string& dims, const std::string& types,
                        const std::string& concrete) {
  return trace::cost_of(name, trace::parse_inputs(dims, types, concrete), {}, std::nullopt);
}

// The pair's total FLOPs and minimum bytes, predict's op and the trace's op all equal
// the hand-worked figures.
void expect_all_three(const Cost& pair, const predict::OpCost& step, const trace::OpCost& op, double flops,
                      double bytes) {
  EXPECT_DOUBLE_EQ(pair.flops.total(), flops);
  EXPECT_DOUBLE_EQ(step.flops, flops);
  ASSERT_TRUE(op.flops && op.bytes) << op.why_unknown;
  EXPECT_DOUBLE_EQ(*op.flops, flops);
  EXPECT_DOUBLE_EQ(pair.bytes_minimum, bytes);
  EXPECT_DOUBLE_EQ(step.bytes, bytes);
  EXPECT_DOUBLE_EQ(*op.bytes, bytes);
}

TEST(CostAgreement, LayerNormIsTheSameOnThePairPredictAndTheTrace) {
  const Cost pair = norm::cost(norm::Kind::layernorm, /*fused=*/true, {kTokens, kHidden}, kBf16);
  const predict::OpCost step = predicted_op(NormKind::layernorm, "attn_norm");
  const trace::OpCost op = traced_op("aten::layer_norm", "[[1,512,1024],[],[1024],[1024],[],[]]",
                                     R"(["c10::BFloat16","ScalarList","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])",
                                     R"(["","[1024]","","","1e-05","True"])");
  // 7 per element and 3 per row, one rsqrt per row
  const double flops = 7.0 * kTokens * kHidden + 3.0 * kTokens + kTokens;
  const double bytes = (2.0 * kTokens * kHidden + 2.0 * kHidden) * kBf16;
  expect_all_three(pair, step, op, flops, bytes);
}

TEST(CostAgreement, RmsNormIsTheSameOnThePairPredictAndTheTrace) {
  const Cost pair = norm::cost(norm::Kind::rmsnorm, /*fused=*/true, {kTokens, kHidden}, kBf16);
  const predict::OpCost step = predicted_op(NormKind::rmsnorm, "attn_norm");
  const trace::OpCost op = traced_op("aten::rms_norm", "[[1,512,1024],[],[1024],[]]",
                                     R"(["c10::BFloat16","ScalarList","c10::BFloat16","Scalar"])",
                                     R"(["","[1024]","","1e-06"])");
  const double flops = 4.0 * kTokens * kHidden + 2.0 * kTokens + kTokens;
  const double bytes = (2.0 * kTokens * kHidden + kHidden) * kBf16;
  expect_all_three(pair, step, op, flops, bytes);
}

TEST(CostAgreement, MatmulIsTheSameOnThePairPredictAndTheTrace) {
  // the bias pair without a bias is a plain GEMM: x [T, I] times W [I, O]
  const Cost pair = bias::cost(bias::Kind::nobias, /*fused=*/true, {kTokens, kInner, kHidden}, kBf16);
  const predict::OpCost step = predicted_op(NormKind::rmsnorm, "o_proj");
  const trace::OpCost op = traced_op("aten::mm", "[[512,4096],[4096,1024]]", R"(["c10::BFloat16","c10::BFloat16"])", "");
  const double flops = 2.0 * kTokens * kInner * kHidden;
  const double bytes = (1.0 * kTokens * kInner + 1.0 * kInner * kHidden + 1.0 * kTokens * kHidden) * kBf16;
  expect_all_three(pair, step, op, flops, bytes);
}

}  // namespace
