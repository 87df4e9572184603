// mlp pair: SwiGLU and GeLU MLPs against the float64 reference; the cost model
// and the parameter parity the lecture claims (8/3·d SwiGLU ≈ 4·d GeLU).
#include <gtest/gtest.h>

#include "mlp/mlp.h"
#include "registry.h"
#include "reference_check.h"
#include "test_support.h"

namespace lmroof {
namespace {

class MlpKernels : public ::testing::TestWithParam<test::KernelParam> {};

TEST_P(MlpKernels, MatchesFloat64Reference) {
  EXPECT_TRUE(test::check_against_reference("mlp", GetParam()).passed());
}

const Shape kShapes[] = {{{"tokens", 1}, {"d_model", 8}},
                         {{"tokens", 13}, {"d_model", 100}},
                         {{"tokens", 33}, {"d_model", 256}}};

INSTANTIATE_TEST_SUITE_P(Cpu, MlpKernels,
                         ::testing::Combine(::testing::Values("gelu", "swiglu"), ::testing::Values("fused"),
                                            ::testing::ValuesIn(kShapes)),
                         test::param_name);

TEST(MlpShape, DerivesDff) {
  EXPECT_EQ(mlp::default_d_ff(mlp::Kind::gelu, 768), 3072);
  EXPECT_EQ(mlp::default_d_ff(mlp::Kind::swiglu, 768), 2048);   // 8/3·768 = 2048 exactly
  EXPECT_EQ(mlp::default_d_ff(mlp::Kind::swiglu, 4096), 10944);  // ceil(10922.7) = 10923 -> next multiple of 64
  // A given d_ff (a model's own width) is kept; it must be positive.
  EXPECT_EQ(find_pair("mlp").complete_shape("gelu", {{"tokens", 4}, {"d_model", 8}, {"d_ff", 16}})["d_ff"], 16);
  EXPECT_THROW(find_pair("mlp").complete_shape("gelu", {{"tokens", 4}, {"d_model", 8}, {"d_ff", 0}}),
               std::invalid_argument);
  EXPECT_THROW(find_pair("mlp").complete_shape("gelu", {{"tokens", 0}, {"d_model", 8}}), std::invalid_argument);
}

TEST(MlpCost, HandComputed) {
  // T=2, d=3, gelu d_ff=12: params 2·3·12 = 72; matrix 2·2·72 = 288; vector 4·2·12 = 96; special 24
  // minimum (2·2·3 + 72)·4 = 336; model adds (24 + 24 + 24 + 24)·4 = 384 -> 720
  const auto g = mlp::cost(mlp::Kind::gelu, {2, 3, 12}, 4);
  EXPECT_DOUBLE_EQ(g.flops.matrix, 288);
  EXPECT_DOUBLE_EQ(g.flops.vector, 96);
  EXPECT_DOUBLE_EQ(g.flops.special, 24);
  EXPECT_DOUBLE_EQ(g.bytes_minimum, 336);
  EXPECT_DOUBLE_EQ(g.bytes_model, 720);
  // swiglu d=768 has exactly the parameters of the 4·d GeLU MLP
  EXPECT_EQ(mlp::parameter_count(mlp::Kind::swiglu, {1, 768, 2048}), mlp::parameter_count(mlp::Kind::gelu, {1, 768, 3072}));
}

}  // namespace
}  // namespace lmroof
