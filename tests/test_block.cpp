// block pair: both variants against their float64 references on fresh random inputs,
// the cost model against numbers worked out by hand, shape completion and the
// per-class phase timers.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "bench/suite.h"
#include "block/block.h"
#include "common/host_data.h"
#include "registry.h"
#include "reference_check.h"
#include "test_support.h"

namespace lmroof {
namespace {

RunSpec block_spec(const std::string& variant, const Shape& shape) {
  return {"block", variant, "fused", Backend::cpu, DType::fp32, shape};
}

class BlockKernels : public ::testing::TestWithParam<test::KernelParam> {};

TEST_P(BlockKernels, MatchesFloat64Reference) {
  const test::ReferenceCheck check = test::check_against_reference("block", GetParam());
  EXPECT_EQ(check.result.tolerance, tolerance_for(DType::fp32, /*composite=*/true));
  EXPECT_TRUE(check.passed());
}

// Awkward shapes on purpose: one token; one head (d_model = head_dim); d_model not a
// multiple of 64 (head_dim 48); tokens not a multiple of the 64-query tile; an explicit
// d_ff that is no multiple of anything; tiny heads (head_dim 2, 64 heads).
const Shape kShapes[] = {
    {{"tokens", 1}, {"d_model", 64}},
    {{"tokens", 3}, {"d_model", 64}},
    {{"tokens", 77}, {"d_model", 96}, {"head_dim", 48}},
    {{"tokens", 130}, {"d_model", 256}},
    {{"tokens", 65}, {"d_model", 192}, {"d_ff", 100}, {"head_dim", 32}},
    {{"tokens", 40}, {"d_model", 128}, {"head_dim", 2}},
    // the options: QK-norm and the soft-cap, one token and a partial query tile
    {{"tokens", 1}, {"d_model", 64}, {"qk_norm", 1}, {"softcap", 50}},
    {{"tokens", 77}, {"d_model", 96}, {"head_dim", 48}, {"qk_norm", 1}},
    {{"tokens", 130}, {"d_model", 128}, {"head_dim", 32}, {"softcap", 2}},  // a cap that bites
    {{"tokens", 65}, {"d_model", 192}, {"d_ff", 100}, {"head_dim", 6}, {"qk_norm", 1}, {"softcap", 5}},
};

INSTANTIATE_TEST_SUITE_P(Cpu, BlockKernels,
                         ::testing::Combine(::testing::Values("serial", "parallel"), ::testing::Values("fused", "unfused"),
                                            ::testing::ValuesIn(kShapes)),
                         test::param_name);

// The tolerance is norm-wise over y = x + branches; make sure the branches are not
// drowned by the residual, or a broken attention or MLP could hide under 1e-4.
TEST(BlockReference, BranchesAreNotNegligible) {
  const Shape shape = block::complete_shape({{"tokens", 50}, {"d_model", 128}});
  const block::Dims d = block::dims_of(shape);
  for (auto variant : {block::Variant::serial, block::Variant::parallel}) {
    block::HostWeights w(variant, d);
    w.randomize(7);
    std::vector<float> x(d.tokens * d.d_model);
    fill_uniform(x, 3);
    std::vector<double> y(x.size());
    block::reference(variant, d, w.view(), x, y);
    std::vector<double> xd = to_double(x);
    EXPECT_GT(relative_error<double>(xd, y), 0.1);
  }
}

TEST(BlockShape, CompletesDefaults) {
  const Shape s = block::complete_shape({{"tokens", 512}, {"d_model", 1024}});
  EXPECT_EQ(s, (Shape{{"tokens", 512}, {"d_model", 1024}, {"d_ff", 2752}, {"q_heads", 16}, {"head_dim", 64}}));
  EXPECT_EQ(s.dims()[2].first, "d_ff");
  EXPECT_EQ(block::default_d_ff(256), 704);  // 682.7 -> 704
  EXPECT_EQ(block::default_d_ff(96), 256);   // exactly 256
  EXPECT_EQ(block::default_d_ff(48), 128);   // 128 exactly
  // head_dim from q_heads when only q_heads is given
  const Shape q = block::complete_shape({{"tokens", 4}, {"d_model", 256}, {"q_heads", 8}});
  EXPECT_EQ(q["head_dim"], 32);
  // explicit d_ff and head_dim are kept
  const Shape e = block::complete_shape({{"tokens", 4}, {"d_model", 96}, {"d_ff", 100}, {"head_dim", 48}});
  EXPECT_EQ(e["d_ff"], 100);
  EXPECT_EQ(e["q_heads"], 2);
  // completion is idempotent, so suite shapes can be completed twice
  EXPECT_EQ(block::complete_shape(s), s);
}

TEST(BlockShape, RejectsBadShapes) {
  const auto& pair = find_pair("block");
  auto bad = [&](const Shape& s) {
    EXPECT_THROW(pair.complete_shape("serial", s), std::invalid_argument) << s.label();
  };
  bad({{"tokens", 0}, {"d_model", 64}});
  bad({{"tokens", -3}, {"d_model", 64}});
  bad({{"tokens", 8}});
  bad({{"d_model", 64}});
  bad({{"tokens", 8}, {"d_model", 100}});                      // not a multiple of head_dim 64
  bad({{"tokens", 8}, {"d_model", 96}, {"head_dim", 0}});
  bad({{"tokens", 8}, {"d_model", 9}, {"head_dim", 3}});       // odd head_dim: RoPE needs pairs
  bad({{"tokens", 8}, {"d_model", 256}, {"q_heads", 3}});      // 256 / 3
  bad({{"tokens", 8}, {"d_model", 256}, {"head_dim", 64}, {"q_heads", 8}});  // 8 * 64 != 256
  bad({{"tokens", 8}, {"d_model", 256}, {"d_ff", 0}});
  bad({{"tokens", 1 << 20}, {"d_model", 1 << 14}});            // activations too large
  bad({{"tokens", 8}, {"d_model", 1 << 16}});                  // weights too large
  EXPECT_THROW(pair.complete_shape("sequential", {{"tokens", 8}, {"d_model", 64}}), std::invalid_argument);
  EXPECT_THROW(make_workload(RunSpec{"block", "serial", "eager", Backend::cpu, DType::fp32,
                                     {{"tokens", 8}, {"d_model", 64}}}),
               std::invalid_argument);
  bad({{"tokens", 8}, {"d_model", 64}, {"qk_norm", 2}});
  bad({{"tokens", 8}, {"d_model", 64}, {"softcap", -1}});
  // the unfused level's scores (H·T² floats) beyond the element limit: refused when built
  EXPECT_THROW(make_workload(RunSpec{"block", "serial", "unfused", Backend::cpu, DType::fp32,
                                     {{"tokens", 16384}, {"d_model", 64}, {"head_dim", 2}, {"d_ff", 1}}}),
               std::invalid_argument);
}

// T=2, d=4, head_dim=2 (2 heads), d_ff=8, fp32. TD=8, TF=16, D²=16, DF=32,
// P = T(T+1)/2 = 3 causal pairs per head.
//   normalization, per RMSNorm: vector 4·TD + 2·T = 36, special T = 2, bytes (2TD + D)·4 = 80
//   matrix: 2T(4D² + 3DF) = 4·(64 + 96) = 640
//     bytes serial:   8TD + 4D² + 3DF + 3TF = 64 + 64 + 96 + 48 = 272 elements = 1088 B
//     bytes parallel: 6TD + 4D² + 3DF + 3TF = 48 + 64 + 96 + 48 = 256 elements = 1024 B
//   attention: matrix H·2·(2·dh·P) = 2·2·12 = 48; vector 4HP + HT + TD = 24 + 4 + 8 = 36;
//     special HP = 6; bytes 4TD = 32 elements = 128 B
//   elementwise: vector 6TD (RoPE) + 2TF (SwiGLU) + residuals·TD, special TF = 16;
//     serial:   vector 48 + 32 + 16 = 96; bytes (4TD + T·dh) + 3TF + 2·3TD = 36 + 48 + 48 = 132 el = 528 B
//     parallel: vector 48 + 32 + 8 = 88;  bytes 36 + 48 + 24 = 108 el = 432 B
//   minimum: 2TD + 4D² + 3DF + gammas·D: serial 16 + 64 + 96 + 8 = 184 el = 736 B; parallel 180 el = 720 B
TEST(BlockCost, HandComputed) {
  const Shape shape{{"tokens", 2}, {"d_model", 4}, {"d_ff", 8}, {"head_dim", 2}};
  const Cost s = cost_of(block_spec("serial", shape));
  EXPECT_DOUBLE_EQ(s.flops_by_class.at(kClassNormalization).vector, 72);
  EXPECT_DOUBLE_EQ(s.flops_by_class.at(kClassNormalization).special, 4);
  EXPECT_DOUBLE_EQ(s.bytes_by_class.at(kClassNormalization), 160);
  EXPECT_DOUBLE_EQ(s.flops_by_class.at(kClassMatmul).matrix, 640);
  EXPECT_DOUBLE_EQ(s.bytes_by_class.at(kClassMatmul), 1088);
  EXPECT_DOUBLE_EQ(s.flops_by_class.at(kClassAttention).matrix, 48);
  EXPECT_DOUBLE_EQ(s.flops_by_class.at(kClassAttention).vector, 36);
  EXPECT_DOUBLE_EQ(s.flops_by_class.at(kClassAttention).special, 6);
  EXPECT_DOUBLE_EQ(s.bytes_by_class.at(kClassAttention), 128);
  EXPECT_DOUBLE_EQ(s.flops_by_class.at(kClassElementwise).vector, 96);
  EXPECT_DOUBLE_EQ(s.flops_by_class.at(kClassElementwise).special, 16);
  EXPECT_DOUBLE_EQ(s.bytes_by_class.at(kClassElementwise), 528);
  EXPECT_DOUBLE_EQ(s.flops.matrix, 688);
  EXPECT_DOUBLE_EQ(s.flops.vector, 72 + 36 + 96);
  EXPECT_DOUBLE_EQ(s.flops.special, 4 + 6 + 16);
  EXPECT_DOUBLE_EQ(s.bytes_model, 160 + 1088 + 128 + 528);
  EXPECT_DOUBLE_EQ(s.bytes_minimum, 736);

  const Cost p = cost_of(block_spec("parallel", shape));
  EXPECT_DOUBLE_EQ(p.flops_by_class.at(kClassNormalization).vector, 36);
  EXPECT_DOUBLE_EQ(p.bytes_by_class.at(kClassNormalization), 80);
  EXPECT_DOUBLE_EQ(p.bytes_by_class.at(kClassMatmul), 1024);
  EXPECT_DOUBLE_EQ(p.flops_by_class.at(kClassElementwise).vector, 88);
  EXPECT_DOUBLE_EQ(p.bytes_by_class.at(kClassElementwise), 432);
  EXPECT_DOUBLE_EQ(p.flops.matrix, 688);
  EXPECT_DOUBLE_EQ(p.flops.vector, 36 + 36 + 88);
  EXPECT_DOUBLE_EQ(p.flops.special, 2 + 6 + 16);
  EXPECT_DOUBLE_EQ(p.bytes_model, 80 + 1024 + 128 + 432);
  EXPECT_DOUBLE_EQ(p.bytes_minimum, 720);
}

// The CUDA backend materialises the scores (block_cuda.cu): per head the QKᵀ GEMM writes
// T², the softmax reads P and writes T², the P·V GEMM reads T². Same shape as above,
// bf16 (s = 2): H = 2, T = 2, P = 3.
//   attention bytes: s·(4TD + H·(3T² + P)) = 2·(32 + 2·15) = 124 (cpu: 2·32 = 64)
//   elementwise serial: s·(4TD + 3TF + 2·3TD) + 4·T·dh (fp32 RoPE tables) = 2·128 + 16 = 272
// Everything else is the same for both backends.
TEST(BlockCost, CudaCountsMaterialisedScores) {
  const Shape shape{{"tokens", 2}, {"d_model", 4}, {"d_ff", 8}, {"head_dim", 2}};
  const RunSpec gpu{"block", "serial", "fused", Backend::cuda, DType::bf16, shape};
  const RunSpec cpu{"block", "serial", "fused", Backend::cpu, DType::bf16, shape};
  const Cost g = cost_of(gpu), c = cost_of(cpu);
  EXPECT_DOUBLE_EQ(g.bytes_by_class.at(kClassAttention), 124);
  EXPECT_DOUBLE_EQ(c.bytes_by_class.at(kClassAttention), 64);
  EXPECT_DOUBLE_EQ(g.bytes_by_class.at(kClassElementwise), 272);
  EXPECT_DOUBLE_EQ(c.bytes_by_class.at(kClassElementwise), 272);
  EXPECT_DOUBLE_EQ(g.bytes_model - c.bytes_model, 60);
  EXPECT_DOUBLE_EQ(g.bytes_minimum, c.bytes_minimum);
  EXPECT_DOUBLE_EQ(g.flops.total(), c.flops.total());
}

// The options, same shape as HandComputed (T=2, d=4, f=8, h=2, H=2, P=3, fp32):
//   qk_norm: normalization vector + 2·(4·T·d + 2·T·H) = 80 -> 152, special + 2·T·H = 8 -> 12,
//            bytes + 2·h·s = 16 -> 176; minimum 736 + 16 = 752
//   softcap: attention vector + 2·H·P = 12 -> 48, special + H·P = 6 -> 12
// unfused (eager), no options: normalization 2·(7TD + 6T + D)·4 = 576; attention
//   (4TD + 8HT² + T²)·4 = (32 + 64 + 4)·4 = 400; elementwise (20TD + 5TF + 2·3TD)·4 + 16·T·h
//   = 1152 + 64 = 1216; matrix 1088 as fused; the FLOPs of fused.
// unfused with both options: normalization 576 + 2·(7TD + 6TH + h)·4 = 576 + 656 = 1232;
//   attention 400 + 6HT²·4 = 592.
TEST(BlockCost, HandComputedOptionsAndUnfused) {
  const Shape base{{"tokens", 2}, {"d_model", 4}, {"d_ff", 8}, {"head_dim", 2}};
  Shape opts = base;
  opts.set("qk_norm", 1);
  opts.set("softcap", 50);
  const Cost f = cost_of(block_spec("serial", opts));
  EXPECT_DOUBLE_EQ(f.flops_by_class.at(kClassNormalization).vector, 152);
  EXPECT_DOUBLE_EQ(f.flops_by_class.at(kClassNormalization).special, 12);
  EXPECT_DOUBLE_EQ(f.bytes_by_class.at(kClassNormalization), 176);
  EXPECT_DOUBLE_EQ(f.flops_by_class.at(kClassAttention).vector, 48);
  EXPECT_DOUBLE_EQ(f.flops_by_class.at(kClassAttention).special, 12);
  EXPECT_DOUBLE_EQ(f.bytes_minimum, 752);

  const RunSpec u{"block", "serial", "unfused", Backend::cpu, DType::fp32, base};
  const Cost e = cost_of(u), fused = cost_of(block_spec("serial", base));
  EXPECT_DOUBLE_EQ(e.bytes_by_class.at(kClassNormalization), 576);
  EXPECT_DOUBLE_EQ(e.bytes_by_class.at(kClassAttention), 400);
  EXPECT_DOUBLE_EQ(e.bytes_by_class.at(kClassElementwise), 1216);
  EXPECT_DOUBLE_EQ(e.bytes_by_class.at(kClassMatmul), 1088);
  EXPECT_DOUBLE_EQ(e.flops.total(), fused.flops.total());
  EXPECT_DOUBLE_EQ(e.bytes_minimum, fused.bytes_minimum);

  const Cost eo = cost_of({"block", "serial", "unfused", Backend::cpu, DType::fp32, opts});
  EXPECT_DOUBLE_EQ(eo.bytes_by_class.at(kClassNormalization), 1232);
  EXPECT_DOUBLE_EQ(eo.bytes_by_class.at(kClassAttention), 592);
  EXPECT_DOUBLE_EQ(eo.flops.total(), f.flops.total());
}

// What the process holds right now (VmRSS), in bytes; 0 where /proc cannot say.
double resident_set_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  double kb = 0;
  while (status >> key)
    if (key == "VmRSS:" && status >> kb) return kb * 1024;
  return 0;
}

// issue 47 #20: the eager block's H·T² scores and T² mask were left out of the memory
// budget, so `--tokens 8192` printed "at most 538.6 MB" and passed 2 GB. The footprint
// the budget counts must bound what constructing and running the workload holds. At
// 2048 tokens the scores (64 MiB) and mask (16 MiB) dwarf the rest.
TEST(BlockCost, FootprintBoundsWhatTheEagerBlockHolds) {
  const Shape shape = block::complete_shape({{"tokens", 2048}, {"d_model", 256}});
  const RunSpec eager{"block", "serial", "unfused", Backend::cpu, DType::fp32, shape};
  const double H = static_cast<double>(shape["q_heads"]), T = 2048;
  const double footprint = bench::footprint_bytes(eager);
  EXPECT_GE(footprint, 4 * (H * T * T + T * T)) << "the scores and the mask are not counted";
  EXPECT_GT(footprint, bench::footprint_bytes(block_spec("serial", shape)));
  // BLAS touches its per-thread buffers, and OpenMP its stacks, on first use at this
  // shape: not the workload's. A first workload does that; its buffers go back to the OS.
  find_pair("block").make_cpu(eager)->run();
  release_kept_host_bytes();
  const double before = resident_set_bytes();
  if (before == 0) GTEST_SKIP() << "no VmRSS in /proc/self/status";
  auto workload = find_pair("block").make_cpu(eager);
  workload->run();
  const double grown = resident_set_bytes() - before;
  // Buffers of 2 MiB and more are 2 MiB-aligned huge pages (common/host_buffer.h): each
  // may hold up to 2 MiB more than its bytes. The CPU block holds 24 buffers
  // (block_cpu.cpp: 10 always, 11 eager; block.h: 3 weight matrices).
  constexpr double kHugePageRounding = 24 * 2.0 * (1 << 20);
  EXPECT_LE(grown, footprint + kHugePageRounding) << "the workload holds " << grown << " bytes, the budget counts " << footprint;
}

TEST(BlockShape, OptionsAppearOnlyWhenOn) {
  const Shape off = block::complete_shape({{"tokens", 4}, {"d_model", 64}, {"qk_norm", 0}, {"softcap", 0}});
  EXPECT_FALSE(off.has("qk_norm"));
  EXPECT_FALSE(off.has("softcap"));
  const Shape on = block::complete_shape({{"tokens", 4}, {"d_model", 64}, {"softcap", 50}, {"qk_norm", 1}});
  EXPECT_EQ(on["qk_norm"], 1);
  EXPECT_EQ(on["softcap"], 50);
  EXPECT_EQ(block::complete_shape(on), on);
  const block::Dims d = block::dims_of(on);
  EXPECT_TRUE(d.qk_norm);
  EXPECT_EQ(d.softcap, 50);
}

TEST(BlockCost, ClassesSumToTotals) {
  const auto& pair = find_pair("block");
  std::vector<Shape> shapes = pair.default_shapes;
  shapes.insert(shapes.end(), pair.quick_shapes.begin(), pair.quick_shapes.end());
  shapes.push_back({{"tokens", 77}, {"d_model", 96}, {"head_dim", 48}});
  for (const auto& combo : pair.combos)
    for (const auto& shape : shapes) {
      const Cost c = cost_of(block_spec(combo.variant, shape));
      ASSERT_EQ(c.flops_by_class.size(), 4u);
      ASSERT_EQ(c.bytes_by_class.size(), 4u);
      FlopCount sum;
      double bytes = 0;
      for (const char* cls : {kClassMatmul, kClassAttention, kClassNormalization, kClassElementwise}) {
        sum += c.flops_by_class.at(cls);
        bytes += c.bytes_by_class.at(cls);
      }
      EXPECT_DOUBLE_EQ(sum.matrix, c.flops.matrix);
      EXPECT_DOUBLE_EQ(sum.vector, c.flops.vector);
      EXPECT_DOUBLE_EQ(sum.special, c.flops.special);
      EXPECT_DOUBLE_EQ(sum.total(), c.flops.total());
      EXPECT_DOUBLE_EQ(bytes, c.bytes_model);
      EXPECT_GE(c.bytes_model, c.bytes_minimum);
    }
}

TEST(BlockCost, ParallelSavesTrafficNotFlops) {
  const Shape shape{{"tokens", 512}, {"d_model", 1024}};
  const Cost s = cost_of(block_spec("serial", shape)), p = cost_of(block_spec("parallel", shape));
  EXPECT_DOUBLE_EQ(s.flops.matrix, p.flops.matrix);
  EXPECT_DOUBLE_EQ(s.flops_by_class.at(kClassAttention).total(), p.flops_by_class.at(kClassAttention).total());
  // docs/cost-model.md: parallel moves 7·T·d + d fewer elements and does 5·T·d + 2·T
  // fewer vector and T fewer special FLOPs (one RMSNorm and one residual add fewer).
  const double T = 512, d = 1024;
  EXPECT_DOUBLE_EQ(s.bytes_model - p.bytes_model, 4 * (7 * T * d + d));
  EXPECT_DOUBLE_EQ(s.flops.vector - p.flops.vector, 5 * T * d + 2 * T);
  EXPECT_DOUBLE_EQ(s.flops.special - p.flops.special, T);
}

TEST(BlockTimers, ClassSecondsCoverAllClassesWithinWallTime) {
  for (const char* variant : {"serial", "parallel"})
    for (const char* impl : {"fused", "unfused"}) {
    auto workload = make_workload(
        RunSpec{"block", variant, impl, Backend::cpu, DType::fp32, {{"tokens", 64}, {"d_model", 256}}});
    EXPECT_TRUE(workload->last_class_seconds().empty() || workload->last_class_seconds().size() == 4);
    workload->run();  // warm up
    const auto start = std::chrono::steady_clock::now();
    workload->run();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto classes = workload->last_class_seconds();
    ASSERT_EQ(classes.size(), 4u) << variant;
    double sum = 0;
    for (const char* cls : {kClassMatmul, kClassAttention, kClassNormalization, kClassElementwise}) {
      ASSERT_TRUE(classes.contains(cls)) << variant << " " << cls;
      EXPECT_GT(classes.at(cls), 0) << variant << " " << cls;
      sum += classes.at(cls);
    }
    EXPECT_LE(sum, wall) << variant;
  }
}

}  // namespace
}  // namespace lmroof
