// bias pair: every CPU combo against the float64 reference on fresh random inputs,
// the cost model against numbers worked out by hand, and bad shapes rejected.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "bias/bias.h"
#include "common/host_data.h"
#include "registry.h"
#include "reference_check.h"
#include "test_support.h"

namespace lmroof {
namespace {

using Param = test::KernelParam;

Shape linear(int64_t tokens, int64_t in, int64_t out) {
  return {{"tokens", tokens}, {"in_features", in}, {"out_features", out}};
}

std::vector<Param> kernel_params() {
  // Awkward on purpose: one token, one feature, sizes that are not multiples of the
  // vector width or of OpenBLAS's blocking, and a long reduction (in_features 4096).
  const Shape shapes[] = {linear(1, 7, 5),     linear(1, 1, 1),     linear(3, 1000, 17),
                          linear(17, 4096, 64), linear(64, 33, 300), linear(130, 257, 129)};
  std::vector<Param> params;
  for (const auto& combo : find_pair("bias").combos)
    for (const auto& shape : shapes) params.emplace_back(combo.variant, combo.impl, shape);
  return params;
}

class BiasKernels : public ::testing::TestWithParam<Param> {};

TEST_P(BiasKernels, MatchesFloat64Reference) {
  test::ReferenceCheck check = test::check_against_reference("bias", GetParam());
  EXPECT_TRUE(check.passed());
  // A second validation on the same workload: the fused level must not accumulate
  // onto the previous run's y (it re-initialises y with b every run).
  check.validate(check.seed + 1);
  EXPECT_TRUE(check.passed());
}

INSTANTIATE_TEST_SUITE_P(Cpu, BiasKernels, ::testing::ValuesIn(kernel_params()), test::param_name);

TEST(BiasKernelsRun, RepeatedRunsDoNotAccumulate) {
  // The benchmark runs the kernel many times on the same y: the second run must
  // start from scratch, not add onto the first one's output.
  const bias::Dims d{9, 40, 24};
  const uint64_t seed = test::fresh_seed();
  std::vector<float> x(d.tokens * d.in_features), w(d.out_features * d.in_features), b(d.out_features),
      y(d.tokens * d.out_features);
  fill_uniform(x, seed);
  fill_uniform(w, seed + 1);
  fill_uniform(b, seed + 2);
  std::vector<double> ref(y.size());
  for (const auto kind : {bias::Kind::nobias, bias::Kind::bias}) {
    bias::reference(kind, d, x, w, b, ref);
    for (const bool fused : {true, false}) {
      if (kind == bias::Kind::nobias && !fused) continue;
      poison(y);
      for (int run = 0; run < 2; ++run) {
        if (fused)
          bias::cpu_fused(kind, d, x.data(), w.data(), b.data(), y.data());
        else
          bias::cpu_unfused(d, x.data(), w.data(), b.data(), y.data());
      }
      EXPECT_LE(relative_error<float>(y, ref), tolerance_for(DType::fp32))
          << (kind == bias::Kind::bias ? "bias " : "nobias ") << (fused ? "fused" : "unfused") << " seed " << seed;
    }
  }
}

TEST(BiasCost, HandComputed) {
  // T=2, in=3, out=4, fp32.
  // matrix = 2*T*in*out = 2*2*3*4 = 48; vector (bias) = T*out = 8
  // minimum, nobias = (T*in + out*in + T*out) * 4 = (6 + 12 + 8) * 4 = 104
  // minimum, bias   = (6 + 12 + 8 + 4) * 4 = 120
  // model, unfused  = 120 + 2*T*out*4 = 120 + 64 = 184
  const bias::Dims d{2, 3, 4};
  const auto nb = bias::cost(bias::Kind::nobias, true, d, 4);
  EXPECT_DOUBLE_EQ(nb.flops.matrix, 48);
  EXPECT_DOUBLE_EQ(nb.flops.vector, 0);
  EXPECT_DOUBLE_EQ(nb.flops.special, 0);
  EXPECT_DOUBLE_EQ(nb.bytes_minimum, 104);
  EXPECT_DOUBLE_EQ(nb.bytes_model, 104);

  const auto fused = bias::cost(bias::Kind::bias, true, d, 4);
  EXPECT_DOUBLE_EQ(fused.flops.matrix, 48);
  EXPECT_DOUBLE_EQ(fused.flops.vector, 8);
  EXPECT_DOUBLE_EQ(fused.bytes_minimum, 120);
  EXPECT_DOUBLE_EQ(fused.bytes_model, 120);

  const auto unfused = bias::cost(bias::Kind::bias, false, d, 4);
  EXPECT_DOUBLE_EQ(unfused.flops.total(), fused.flops.total());
  EXPECT_DOUBLE_EQ(unfused.bytes_minimum, 120);
  EXPECT_DOUBLE_EQ(unfused.bytes_model, 184);

  // bf16 (2 bytes): unfused model = (6 + 12 + 8 + 4 + 2*8) * 2 = 92
  EXPECT_DOUBLE_EQ(bias::cost(bias::Kind::bias, false, d, 2).bytes_model, 92);
}

TEST(BiasCost, RegistryAgrees) {
  RunSpec spec{"bias", "bias", "unfused", Backend::cpu, DType::fp32, linear(2048, 1024, 512)};
  const Cost c = cost_of(spec);
  // matrix = 2 * 2048 * 1024 * 512; extra pass = 2 * 2048 * 512 * 4 bytes
  EXPECT_DOUBLE_EQ(c.flops.matrix, 2.0 * 2048 * 1024 * 512);
  EXPECT_DOUBLE_EQ(c.bytes_model - c.bytes_minimum, 2.0 * 2048 * 512 * 4);
}

TEST(BiasShape, CompletesAndRejects) {
  const auto& pair = find_pair("bias");
  const Shape extra{{"tokens", 4}, {"in_features", 8}, {"out_features", 2}, {"d_model", 5}};
  EXPECT_EQ(pair.complete_shape("bias", extra), linear(4, 8, 2));
  EXPECT_THROW(pair.complete_shape("bias", linear(0, 8, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("bias", linear(8, -1, 8)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("bias", linear(8, 8, 0)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("bias", {{"tokens", 8}, {"in_features", 8}}), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("nobias", linear(1 << 20, 1 << 20, 1)), std::invalid_argument);  // x
  EXPECT_THROW(pair.complete_shape("nobias", linear(1, 1 << 16, 1 << 16)), std::invalid_argument);  // W
  EXPECT_THROW(pair.complete_shape("nobias", linear(1 << 16, 1, 1 << 16)), std::invalid_argument);  // y
  EXPECT_THROW(pair.complete_shape("nobias", linear(int64_t{1} << 30, 1, 1)), std::invalid_argument);
  // nobias has no unfused level; unknown variants are refused
  EXPECT_THROW(make_workload({"bias", "nobias", "unfused", Backend::cpu, DType::fp32, linear(2, 2, 2)}),
               std::invalid_argument);
  EXPECT_THROW(bias::parse_kind("bias2"), std::invalid_argument);
}

}  // namespace
}  // namespace lmroof
