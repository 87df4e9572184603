// The counter formulas of profiler/counter_formulas.h (docs/metrics.md) on raw counter
// values with hand-computed expectations, and the kernel classes of
// profiler/kernel_trace.h. CPU only: no device, no CUPTI.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "profiler/counter_formulas.h"
#include "profiler/device_query.h"
#include "profiler/kernel_trace.h"
#include "registry.h"

namespace lmroof::profiler {
namespace {

// Every counter a formula needs, with small distinct values.
CounterValues full_counters() {
  return {
      {metric::kDramRead, 3000},  {metric::kDramWrite, 1000}, {metric::kL2Bytes, 9000}, {metric::kSmCycles, 1.98e6},
      {metric::kSmClock, 1.98e9}, {metric::kDuration, 1e6},   {metric::kFadd, 10},      {metric::kFmul, 20},
      {metric::kFfma, 30},        {metric::kDadd, 1},         {metric::kDmul, 2},       {metric::kDfma, 3},
      {metric::kHadd, 4},         {metric::kHmul, 5},         {metric::kHfma, 6},       {metric::kTensorBf16, 1000},
      {metric::kTensorFp16, 24},  {metric::kTensorTf32, 0},   {metric::kTensorFp64, 0}, {metric::kTensorFp8, 0},
  };
}

TEST(CounterFormulas, Fp32IsAddPlusMulPlusTwiceFma) {
  const CounterValues c = full_counters();
  ASSERT_TRUE(fp32_flops(c).has_value());
  EXPECT_DOUBLE_EQ(*fp32_flops(c), 10 + 20 + 2 * 30);  // 90
}

TEST(CounterFormulas, Fp32CountsPairedInstructionsWhenTheChipHasThem) {
  CounterValues c = full_counters();
  c[metric::kFadd2] = 1;  // 2 FLOPs each
  c[metric::kFmul2] = 2;  // 2 FLOPs each
  c[metric::kFfma2] = 3;  // 4 FLOPs each
  EXPECT_DOUBLE_EQ(*fp32_flops(c), 90 + 2 + 4 + 12);
}

TEST(CounterFormulas, Fp64IsAddPlusMulPlusTwiceFma) {
  EXPECT_DOUBLE_EQ(*fp64_flops(full_counters()), 1 + 2 + 2 * 3);  // 9
}

TEST(CounterFormulas, Fp16CountsHalf2Lanes) {
  // Nsight Compute's half-precision roofline: 2·hadd + 2·hmul + 4·hfma.
  EXPECT_DOUBLE_EQ(*fp16_flops(full_counters()), 2 * 4 + 2 * 5 + 4 * 6);  // 42
}

TEST(CounterFormulas, TensorFlopsSumThePathsPresent) {
  const CounterValues c = full_counters();
  EXPECT_DOUBLE_EQ(*tensor_flops(c), 1000 + 24);
  // The hgmma/hmma split is a diagnostic inside the bf16 path, never added again.
  CounterValues with_split = c;
  with_split[metric::kTensorBf16Hgmma] = 900;
  with_split[metric::kTensorBf16Hmma] = 100;
  EXPECT_DOUBLE_EQ(*tensor_flops(with_split), 1024);
  // One path present is enough; none is unknown (not zero).
  EXPECT_DOUBLE_EQ(*tensor_flops({{metric::kTensorBf16, 7}}), 7);
  EXPECT_FALSE(tensor_flops({{metric::kFadd, 1}}).has_value());
}

TEST(CounterFormulas, DramAndL2Bytes) {
  const CounterValues c = full_counters();
  EXPECT_DOUBLE_EQ(*dram_bytes(c), 4000);
  EXPECT_DOUBLE_EQ(*l2_bytes(c), 9000);
  EXPECT_FALSE(dram_bytes({{metric::kDramRead, 1}}).has_value()) << "read without write is not DRAM bytes";
}

TEST(CounterFormulas, ClockFromTheRateOrFromCyclesOverDuration) {
  EXPECT_DOUBLE_EQ(*sm_clock_hz(full_counters()), 1.98e9);
  // 1.5e6 cycles in 1 ms: 1.5 GHz.
  EXPECT_DOUBLE_EQ(*sm_clock_hz({{metric::kSmCycles, 1.5e6}, {metric::kDuration, 1e6}}), 1.5e9);
  EXPECT_FALSE(sm_clock_hz({{metric::kSmCycles, 1.5e6}}).has_value());
}

TEST(CounterFormulas, MissingCounterMakesTheFormulaUnknownNotZero) {
  CounterValues c = full_counters();
  c.erase(metric::kFfma);
  EXPECT_FALSE(fp32_flops(c).has_value());
  const DerivedMetrics d = derive(c);
  EXPECT_FALSE(d.fp32_flops.has_value());
  EXPECT_FALSE(d.cuda_core_flops.has_value());
  EXPECT_FALSE(d.total_flops.has_value());
  ASSERT_EQ(d.missing.size(), 1u);
  EXPECT_EQ(d.missing[0], metric::kFfma);
}

TEST(CounterFormulas, DeriveAddsItAllUp) {
  const DerivedMetrics d = derive(full_counters());
  EXPECT_DOUBLE_EQ(*d.cuda_core_flops, 90 + 9 + 42);
  EXPECT_DOUBLE_EQ(*d.tensor_flops, 1024);
  EXPECT_DOUBLE_EQ(*d.total_flops, 90 + 9 + 42 + 1024);
  EXPECT_DOUBLE_EQ(*d.dram_read_bytes, 3000);
  EXPECT_DOUBLE_EQ(*d.dram_write_bytes, 1000);
  EXPECT_DOUBLE_EQ(*d.dram_bytes, 4000);
  EXPECT_DOUBLE_EQ(*d.duration_s, 1e-3);
  EXPECT_TRUE(d.missing.empty());
}

TEST(CounterFormulas, AWorkedRmsNormExample) {
  // An RMSNorm over T = 4096 rows of D = 4096 bf16 values, as a fused kernel would
  // execute it: per element one FFMA (sum of squares) and two FMUL (× rstd, × gamma),
  // reads x once (32 MiB) and writes y once (32 MiB).
  const double elements = 4096.0 * 4096.0;
  const CounterValues c = {{metric::kFadd, 0},
                           {metric::kFmul, 2 * elements},
                           {metric::kFfma, elements},
                           {metric::kDadd, 0},
                           {metric::kDmul, 0},
                           {metric::kDfma, 0},
                           {metric::kHadd, 0},
                           {metric::kHmul, 0},
                           {metric::kHfma, 0},
                           {metric::kTensorBf16, 0},
                           {metric::kDramRead, 2 * elements},
                           {metric::kDramWrite, 2 * elements}};
  const DerivedMetrics d = derive(c);
  EXPECT_DOUBLE_EQ(*d.total_flops, 4 * elements);         // 4 FLOPs per element
  EXPECT_DOUBLE_EQ(*d.dram_bytes, 4 * elements);          // 4 bytes per element
  EXPECT_DOUBLE_EQ(*d.total_flops / *d.dram_bytes, 1.0);  // intensity 1 FLOP/byte
}

TEST(CounterFormulas, SubtractKeepsOnlyAdditiveCounters) {
  const CounterValues a = {{metric::kDramWrite, 500}, {metric::kSmClock, 1.9e9}, {metric::kSmCycles, 300}};
  const CounterValues b = {{metric::kDramWrite, 200}, {metric::kSmClock, 1.8e9}, {metric::kSmCycles, 100}};
  const CounterValues d = subtract(a, b);
  EXPECT_DOUBLE_EQ(d.at(metric::kDramWrite), 300);
  EXPECT_DOUBLE_EQ(d.at(metric::kSmCycles), 200);
  EXPECT_EQ(d.count(metric::kSmClock), 0u) << "a clock rate is not a difference of two rates";
  EXPECT_FALSE(is_additive("sm__cycles_elapsed.avg.per_second"));
  EXPECT_TRUE(is_additive("dram__bytes_read.sum"));
}

TEST(CounterFormulas, WritebackIsTheExtraWritesOfTheFirstFlush) {
  EXPECT_DOUBLE_EQ(*writeback_bytes({{metric::kDramWrite, 48e6}}, {{metric::kDramWrite, 1e6}}), 47e6);
  EXPECT_DOUBLE_EQ(*writeback_bytes({{metric::kDramWrite, 1e6}}, {{metric::kDramWrite, 2e6}}), 0.0) << "clamped";
  EXPECT_FALSE(writeback_bytes({}, {{metric::kDramWrite, 2e6}}).has_value());
}

TEST(CounterFormulas, RooflineMetricsAreUniqueAndCoverTheFormulas) {
  const auto& m = roofline_metrics();
  for (size_t i = 0; i < m.size(); ++i)
    for (size_t j = i + 1; j < m.size(); ++j) EXPECT_NE(m[i], m[j]);
  for (const auto& t : tensor_flop_metrics()) EXPECT_NE(std::find(m.begin(), m.end(), t), m.end()) << t;
  for (const char* name : {metric::kDramRead, metric::kDramWrite, metric::kL2Bytes, metric::kSmCycles, metric::kSmClock,
                           metric::kFadd, metric::kFmul, metric::kFfma, metric::kHfma, metric::kDfma})
    EXPECT_NE(std::find(m.begin(), m.end(), std::string(name)), m.end()) << name;
}

// --- Kernel classes -------------------------------------------------------------------

std::string class_name(std::string_view kernel_name) { return std::string(to_string(classify_kernel(kernel_name))); }

TEST(KernelClasses, LmroofKernelsByName) {
  EXPECT_EQ(class_name("void lmroof::norm::(anonymous namespace)::fused_norm_kernel<__nv_bfloat16, 32, true, "
                            "(lmroof::norm::Kind)1>(__nv_bfloat16 const*, __nv_bfloat16 const*, long, int, float)"),
            "normalization");
  EXPECT_EQ(class_name("void lmroof::norm::(anonymous namespace)::streaming_norm_kernel<float>(float const*)"),
            "normalization");
  EXPECT_EQ(class_name("void lmroof::norm::(anonymous namespace)::ew_kernel<float>(float const*, float*)"),
            "normalization")
      << "the unfused norm's element-wise steps are still normalization work";
  EXPECT_EQ(class_name("void lmroof::block::(anonymous namespace)::causal_softmax_kernel<__nv_bfloat16, 32, "
                            "true>(__nv_bfloat16*, long, int)"),
            "attention");
  EXPECT_EQ(class_name("void lmroof::block::(anonymous namespace)::rope_kernel<float>(float*, long)"),
            "elementwise");
  EXPECT_EQ(class_name("void lmroof::block::(anonymous namespace)::swiglu_kernel<__nv_bfloat16, 8, true>()"),
            "elementwise");
  EXPECT_EQ(class_name("void lmroof::block::(anonymous namespace)::add_kernel<float, 4, true>(float const*)"),
            "elementwise");
  EXPECT_EQ(class_name("void lmroof::bias::(anonymous namespace)::add_bias_kernel<__nv_bfloat16>()"),
            "elementwise");
  EXPECT_EQ(class_name("void lmroof::decode::(anonymous namespace)::decode_mma_kernel<128, 64, 1>(Params)"),
            "attention");
  EXPECT_EQ(class_name("void lmroof::decode::(anonymous namespace)::combine_kernel<128>(Params, long)"),
            "attention");
}

TEST(KernelClasses, LibraryKernelsByName) {
  EXPECT_EQ(class_name("nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_NTN"), "matmul");
  EXPECT_EQ(class_name("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_"
                            "execute_segment_k_off_kernel__5x_cublas"),
            "matmul");
  EXPECT_EQ(class_name("void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_bf16_128x128_64x3_tn_align8>()"),
            "matmul");
  EXPECT_EQ(class_name("void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float>()"),
            "matmul");
  EXPECT_EQ(class_name("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4>()"), "matmul");
  EXPECT_EQ(class_name("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)"),
            "attention");
  EXPECT_EQ(class_name("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>()"),
            "elementwise");
  EXPECT_EQ(class_name("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>()"),
            "normalization");
  EXPECT_EQ(class_name("void cunn_SoftMaxForward<4, float, float, float, Epilogue>()"), "reduction")
      << "a softmax outside attention is a reduction (Ivanov's grouping counts it as a statistical normalization)";
  EXPECT_EQ(class_name("my_mystery_kernel"), "other");
}

TEST(KernelClasses, RulesAreDocumentedAndLowerCase) {
  // Names are lower-cased before matching, so a pattern with a capital never matches.
  for (const auto& r : kernel_class_rules()) {
    EXPECT_FALSE(r.pattern.empty());
    EXPECT_FALSE(r.why.empty()) << r.pattern;
    for (char c : r.pattern) EXPECT_FALSE(c >= 'A' && c <= 'Z') << r.pattern;
    for (char c : r.also) EXPECT_FALSE(c >= 'A' && c <= 'Z') << r.also;
  }
}

TEST(KernelClasses, PairsDeclareTheirOwnKernelNamesAheadOfTheLibraryTable) {
  // A pair's kernel names live in its PairDef (docs/adding-a-pair.md): each one is in
  // the rules, ahead of every library rule, and decides its own kernels' class even
  // where a generic word ("softmax" in the block's causal softmax) says otherwise.
  const auto& rules = kernel_class_rules();
  size_t declared = 0;
  for (const PairDef& pair : all_pairs())
    for (const KernelClassName& k : pair.kernel_classes) {
      ASSERT_LT(declared, rules.size());
      EXPECT_EQ(rules[declared].pattern, k.pattern) << pair.name;
      EXPECT_EQ(classify_kernel("void x::" + k.pattern + "_kernel<float>()"), k.op_class) << pair.name << " " << k.pattern;
      ++declared;
    }
  EXPECT_GT(declared, 0u) << "the built-in pairs declare their CUDA kernel names";
  EXPECT_EQ(class_name("void lmroof::block::(anonymous namespace)::causal_softmax_kernel<float>()"), "attention");
}

KernelRecord rec(std::string name, uint64_t start, uint32_t stream = 7) {
  KernelRecord k;
  k.name = std::move(name);
  k.start_ns = start;
  k.end_ns = start + 10;
  k.duration_ns = 10;
  k.stream_id = stream;
  k.correlation_id = static_cast<uint32_t>(start);
  return k;
}

TEST(KernelClasses, TraceContextMakesTheAttentionGemmsAttention) {
  // The serial block's launch order: norm, QKV GEMM, RoPE, QKᵀ GEMM, softmax, P·V GEMM
  // with a split-K reduction, O GEMM, residual add; plus a GEMM on another stream
  // that starts right after the softmax.
  std::vector<KernelRecord> k = {
      rec("void lmroof::norm::(anonymous namespace)::fused_norm_kernel<float>()", 0),
      rec("nvjet_sss_128x128_qkv", 100),
      rec("void lmroof::block::(anonymous namespace)::rope_kernel<float>()", 200),
      rec("nvjet_sss_64x64_scores_batched", 300),
      rec("void lmroof::block::(anonymous namespace)::causal_softmax_kernel<float, 32, true>()", 400),
      rec("sm90_xmma_gemm_f32f32_pv", 500),
      rec("void cublasLt::splitKreduce_kernel<32, 16, int, float, float>()", 600),
      rec("nvjet_sss_128x128_out_proj", 700),
      rec("void lmroof::block::(anonymous namespace)::add_kernel<float, 4, true>()", 800),
      rec("nvjet_other_stream", 450, 9),
  };
  classify_trace(k);
  const std::vector<std::string> expected = {"normalization", "matmul",    "elementwise", "attention",   "attention",
                                             "attention",     "attention", "matmul",      "elementwise", "matmul"};
  for (size_t i = 0; i < k.size(); ++i) EXPECT_EQ(to_string(k[i].op_class), expected[i]) << k[i].name;

  KernelTrace t;
  t.kernels = k;
  const auto by_class = t.seconds_by_class();
  EXPECT_DOUBLE_EQ(by_class.at("attention"), 4 * 10e-9);
  EXPECT_DOUBLE_EQ(by_class.at("matmul"), 3 * 10e-9);
  EXPECT_DOUBLE_EQ(t.total_kernel_seconds(), 10 * 10e-9);
}

TEST(KernelClasses, TracingWithoutCudaOrDeviceSaysWhy) {
  const DeviceInfo device = query_cuda_device();
  if (device.available) GTEST_SKIP() << "a CUDA device is present: tests/test_cupti_gpu.cpp traces real kernels";
  bool ran = false;
  const KernelTrace t = trace_kernels([&] { ran = true; });
  EXPECT_FALSE(t.available);
  EXPECT_FALSE(ran) << "without a device there is nothing to trace";
  EXPECT_EQ(t.reason, device.reason);
}

}  // namespace
}  // namespace lmroof::profiler
