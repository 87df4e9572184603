// window pair: every variant's stack against the float64 windowed reference on fresh
// random inputs (the CPU validation builds each local layer's rolling buffer from a
// full history, so the slot mapping is checked), awkward shapes (window 1, window >
// context, context not a multiple of the 64-position block, one head), the cost model
// against numbers worked out by hand, and bad shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "common/host_data.h"
#include "registry.h"
#include "reference_check.h"
#include "test_support.h"
#include "window/window.h"

namespace lmroof {
namespace {

using Param = test::KernelParam;

Shape stack(int64_t batch, int64_t q_heads, int64_t kv_heads, int64_t head_dim, int64_t context, int64_t window,
            int64_t layers = 6) {
  return {{"batch", batch},     {"q_heads", q_heads}, {"kv_heads", kv_heads}, {"head_dim", head_dim},
          {"context", context}, {"window", window},   {"layers", layers}};
}

std::vector<Param> kernel_params() {
  const Shape shapes[] = {
      stack(1, 1, 1, 8, 1, 1),        // one token, one head, window 1
      stack(2, 4, 2, 16, 100, 1),     // window 1: only the newest position
      stack(1, 4, 1, 32, 50, 200),    // window > context: local = global
      stack(2, 8, 2, 24, 333, 130),   // rotated rolling buffer, neither a multiple of 64
      stack(1, 6, 3, 7, 1500, 700),   // odd head_dim; split contexts (one work item per kv head)
      stack(3, 2, 2, 64, 64, 64),     // window = context
  };
  std::vector<Param> params;
  for (const char* variant : {"full", "sliding", "interleave_1_1", "interleave_1_5"})
    for (const auto& s : shapes) params.emplace_back(variant, "grouped", s);
  return params;
}

class WindowKernels : public ::testing::TestWithParam<Param> {};

TEST_P(WindowKernels, MatchesFloat64Reference) {
  EXPECT_TRUE(test::check_against_reference("window", GetParam()).passed());
}

INSTANTIATE_TEST_SUITE_P(Cpu, WindowKernels, ::testing::ValuesIn(kernel_params()), test::param_name);

TEST(WindowReference, IsNotFullAttentionBeyondTheWindow) {
  // guards the reference itself: a window shorter than the context must change the output
  const decode::Dims h{1, 2, 1, 4, 10};
  std::vector<float> q(8), k(40), v(40);
  fill_uniform(q, 1);
  fill_uniform(k, 2);
  fill_uniform(v, 3);
  std::vector<double> full(8), local(8);
  window::reference(h, 10, q, k, v, full);
  window::reference(h, 3, q, k, v, local);
  double diff = 0;
  for (int i = 0; i < 8; ++i) diff += std::abs(full[i] - local[i]);
  EXPECT_GT(diff, 1e-3);
}

TEST(WindowReference, RollingBufferPutsPositionInSlotModuloWindow) {
  const decode::Dims h{1, 1, 1, 1, 7};  // positions 0..6, one value each
  const std::vector<float> full = {0, 1, 2, 3, 4, 5, 6};
  std::vector<float> ring(3);
  window::to_rolling_buffer(h, 3, full, ring);  // positions 4, 5, 6 in slots 1, 2, 0
  EXPECT_EQ(ring, (std::vector<float>{6, 4, 5}));
}

// B = 1, Hq = 2, Hkv = 1, dh = 4, per layer over L rows (decode's grouped cost, one
// piece: a single work item but L < 512): matrix 2·4·L·4 = 32L, vector 2·(3L + 8),
// special 2L, bytes (2·2·4 + 2·L·4)·4 = 64 + 32L.
window::Dims small(int64_t context, int64_t window) { return {1, 2, 1, 4, context, window, 6}; }

TEST(WindowCost, ByHand) {
  using window::Kind;
  const auto cost = [](Kind k, window::Dims d) { return window::cost(k, d, 4, Backend::cpu); };
  // n = 10, W = 4
  EXPECT_DOUBLE_EQ(cost(Kind::full, small(10, 4)).flops.matrix, 1920);          // 6·320
  EXPECT_DOUBLE_EQ(cost(Kind::full, small(10, 4)).bytes_minimum, 2304);         // 6·384
  EXPECT_DOUBLE_EQ(cost(Kind::sliding, small(10, 4)).flops.matrix, 768);        // 6·128
  EXPECT_DOUBLE_EQ(cost(Kind::sliding, small(10, 4)).bytes_minimum, 1152);      // 6·192
  EXPECT_DOUBLE_EQ(cost(Kind::sliding, small(10, 4)).flops.vector, 240);        // 6·2·(12 + 8)
  EXPECT_DOUBLE_EQ(cost(Kind::sliding, small(10, 4)).flops.special, 48);        // 6·8
  EXPECT_DOUBLE_EQ(cost(Kind::interleave_1_1, small(10, 4)).bytes_minimum, 1728);  // 3·384 + 3·192
  EXPECT_DOUBLE_EQ(cost(Kind::interleave_1_5, small(10, 4)).bytes_minimum, 1344);  // 384 + 5·192
  EXPECT_DOUBLE_EQ(cost(Kind::interleave_1_5, small(10, 4)).flops.matrix, 960);    // 320 + 5·128
  EXPECT_DOUBLE_EQ(cost(Kind::interleave_1_5, small(10, 4)).bytes_model, 1344);    // no split
  // below the window every variant moves the full stack's bytes: n = 3, W = 4
  for (Kind k : {Kind::sliding, Kind::interleave_1_1, Kind::interleave_1_5})
    EXPECT_DOUBLE_EQ(cost(k, small(3, 4)).bytes_minimum, 6 * (64 + 32 * 3));
  // split: n = 1100 -> 3 pieces, W = 600 -> 2: partials 2·2·S·(4 + 2)·4 = 96·S bytes per layer
  EXPECT_DOUBLE_EQ(cost(Kind::sliding, small(1100, 600)).bytes_model - cost(Kind::sliding, small(1100, 600)).bytes_minimum,
                   6 * 192);
  EXPECT_DOUBLE_EQ(cost(Kind::full, small(1100, 600)).bytes_model - cost(Kind::full, small(1100, 600)).bytes_minimum,
                   6 * 288);
}

TEST(WindowShape, CompletesAndRejects) {
  const auto& pair = find_pair("window");
  const Shape base{{"batch", 1}, {"q_heads", 32}, {"head_dim", 64}, {"context", 100}, {"window", 10}};
  const Shape s = pair.complete_shape("sliding", base);
  EXPECT_EQ(s["kv_heads"], 4);
  EXPECT_EQ(s["layers"], 6);
  EXPECT_THROW(pair.complete_shape("interleave_1_5", stack(1, 4, 2, 8, 10, 4, 4)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("interleave_1_1", stack(1, 4, 2, 8, 10, 4, 3)), std::invalid_argument);
  EXPECT_NO_THROW(pair.complete_shape("interleave_1_1", stack(1, 4, 2, 8, 10, 4, 4)));
  EXPECT_THROW(pair.complete_shape("full", stack(1, 4, 3, 8, 10, 4)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("full", stack(1, 4, 2, 8, 10, 0)), std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("full", Shape{{"batch", 1}, {"q_heads", 4}, {"head_dim", 8}, {"context", 5}}),
               std::invalid_argument);
  EXPECT_THROW(pair.complete_shape("banded", base), std::invalid_argument);
}

TEST(WindowLayers, MixesAsDocumented) {
  using window::Kind;
  EXPECT_EQ(window::global_layers(Kind::full, 6), 6);
  EXPECT_EQ(window::global_layers(Kind::sliding, 6), 0);
  EXPECT_EQ(window::global_layers(Kind::interleave_1_1, 6), 3);
  EXPECT_EQ(window::global_layers(Kind::interleave_1_5, 6), 1);
  EXPECT_TRUE(window::layer_is_global(Kind::interleave_1_5, 0));
  EXPECT_FALSE(window::layer_is_global(Kind::interleave_1_5, 3));
  EXPECT_TRUE(window::layer_is_global(Kind::interleave_1_1, 4));
  EXPECT_EQ(window::layer_dims(small(10, 4), false).context, 4);
  EXPECT_EQ(window::layer_dims(small(3, 4), false).context, 3);
  EXPECT_EQ(window::layer_dims(small(10, 4), true).context, 10);
}

}  // namespace
}  // namespace lmroof
