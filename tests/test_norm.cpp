// norm pair: every CPU kernel against the float64 reference on fresh random
// inputs, and the cost model against numbers worked out by hand.
#include <gtest/gtest.h>

#include <random>

#include "common/host_buffer.h"
#include "common/host_data.h"
#include "norm/norm.h"
#include "registry.h"
#include "reference_check.h"
#include "test_support.h"

namespace lmroof {
namespace {

class NormKernels : public ::testing::TestWithParam<test::KernelParam> {};

TEST_P(NormKernels, MatchesFloat64Reference) {
  EXPECT_TRUE(test::check_against_reference("norm", GetParam()).passed());
}

// Awkward shapes on purpose: d not a multiple of the vector width, one token.
const Shape kShapes[] = {{{"tokens", 1}, {"d_model", 7}},
                         {{"tokens", 3}, {"d_model", 1000}},
                         {{"tokens", 17}, {"d_model", 4096}},
                         {{"tokens", 64}, {"d_model", 33}}};

INSTANTIATE_TEST_SUITE_P(Cpu, NormKernels,
                         ::testing::Combine(::testing::Values("layernorm", "rmsnorm"),
                                            ::testing::Values("unfused", "fused"), ::testing::ValuesIn(kShapes)),
                         test::param_name);

// Rows whose mean is far from zero next to their spread (activations with a large
// offset): the fused LayerNorm's one-pass statistics must not cancel the way
// E[x^2] - mean^2 does. Offset 1000, spread 0.01: that formula loses every digit.
// Both fused loops: the pipelined one (d_model a multiple of 64, y on a 64-byte
// boundary) and the row-at-a-time one (d_model 100, or y one float off).
TEST(NormKernels, FusedLayerNormKeepsPrecisionWithALargeOffset) {
  for (const int64_t d_model : {64, 100, 4096}) {
    for (const int64_t y_offset : {0, 1}) {
      const norm::Dims d{5, d_model};
      HostVector<float> x(d.tokens * d.d_model), gamma(d.d_model), beta(d.d_model), y_buf(x.size() + 16);
      std::span<float> y(y_buf.data() + y_offset, x.size());
      const uint64_t seed = test::fresh_seed();
      fill_uniform(x, seed, 999.99f, 1000.01f);
      fill_uniform(gamma, seed + 1, 0.5f, 1.5f);
      fill_uniform(beta, seed + 2, -0.5f, 0.5f);
      norm::cpu_fused(norm::Kind::layernorm, d, x.data(), gamma.data(), beta.data(), y.data());
      std::vector<double> ref(y.size());
      norm::reference(norm::Kind::layernorm, d, x, gamma, beta, ref);
      EXPECT_LT(relative_error<float>(y, ref), 1e-3) << "d_model " << d_model << " y offset " << y_offset << " seed " << seed;
    }
  }
}

// The pipelined loop splits rows between threads, writes them two at a time and
// reads the two groups after them; an odd last row goes alone: one row per thread,
// odd and even rows per thread, a row count that does not divide, both kinds.
TEST(NormKernels, FusedPipelinedMatchesTheReferenceAtEveryRowCount) {
  for (const int64_t tokens : {1, 2, 3, 5, 6, 7, 9, 11, 64}) {
    for (const auto kind : {norm::Kind::layernorm, norm::Kind::rmsnorm}) {
      const norm::Dims d{tokens, 128};
      HostVector<float> x(d.tokens * d.d_model), gamma(d.d_model), beta(d.d_model), y(x.size());
      const uint64_t seed = test::fresh_seed();
      fill_uniform(x, seed, -2.f, 2.f);
      fill_uniform(gamma, seed + 1, 0.5f, 1.5f);
      fill_uniform(beta, seed + 2, -0.5f, 0.5f);
      poison(y);
      norm::cpu_fused(kind, d, x.data(), gamma.data(), beta.data(), y.data());
      std::vector<double> ref(y.size());
      norm::reference(kind, d, x, gamma, beta, ref);
      EXPECT_LT(relative_error<float>(y, ref), 1e-5) << "tokens " << tokens << " seed " << seed;
    }
  }
}

TEST(NormCost, HandComputedLayerNorm) {
  // T=2, d=4, fp32: minimum = (2*8 + 2*4) * 4 bytes = 96
  const auto c = norm::cost(norm::Kind::layernorm, true, {2, 4}, 4);
  EXPECT_DOUBLE_EQ(c.bytes_minimum, 96);
  EXPECT_DOUBLE_EQ(c.bytes_model, 96);
  EXPECT_DOUBLE_EQ(c.flops.vector, 7 * 8 + 3 * 2);
  EXPECT_DOUBLE_EQ(c.flops.special, 2);
  // unfused elements: reads 8+10+8+8+2+2+10+12+12 = 72, writes 2+8+8+2+2+2+8+8+8 = 48
  const auto u = norm::cost(norm::Kind::layernorm, false, {2, 4}, 4);
  EXPECT_DOUBLE_EQ(u.bytes_model, (72 + 48) * 4);
  EXPECT_DOUBLE_EQ(u.flops.total(), c.flops.total());
}

TEST(NormCost, HandComputedRmsNorm) {
  // T=2, d=4, bf16: minimum = (2*8 + 4) * 2 = 40
  const auto c = norm::cost(norm::Kind::rmsnorm, true, {2, 4}, 2);
  EXPECT_DOUBLE_EQ(c.bytes_minimum, 40);
  EXPECT_DOUBLE_EQ(c.flops.vector, 4 * 8 + 2 * 2);
  // unfused elements: reads 8+8+2+2+10+12 = 42, writes 8+2+2+2+8+8 = 30
  const auto u = norm::cost(norm::Kind::rmsnorm, false, {2, 4}, 2);
  EXPECT_DOUBLE_EQ(u.bytes_model, (42 + 30) * 2);
}

TEST(NormShape, RejectsBadShapes) {
  const auto& pair = find_pair("norm");
  EXPECT_THROW(pair.complete_shape("rmsnorm", {{"tokens", 0}, {"d_model", 8}}), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("rmsnorm", {{"tokens", -4}, {"d_model", 8}}), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("rmsnorm", {{"tokens", 8}}), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("rmsnorm", {{"tokens", 1 << 20}, {"d_model", 1 << 20}}), std::invalid_argument);
}

}  // namespace
}  // namespace lmroof
