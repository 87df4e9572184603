// CUPTI measurement on a GPU (profiler/metrics.h): counters of kernels whose cost is
// known exactly, and the kernel trace.
//   - a copy of N bytes must measure 2·N DRAM bytes within 3%;
//   - an FMA kernel must measure exactly its FP32 FLOPs;
//   - a bf16 cuBLASLt GEMM must measure 2·M·N·K tensor FLOPs within 2% (this checks
//     that one sm__ops_path_tensor op is one FLOP, docs/metrics.md);
//   - a metric the chip does not know is dropped with a reason, the rest collected;
//   - the trace of a two-kernel workload lists both kernels with durations > 0.
//
// Compiled in every build. Without CUDA, without a device, or without permission to
// read counters (ERR_NVGPUCTRPERM), each test is SKIPPED with probe()'s reason.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>

#include "profiler/kernel_trace.h"
#include "profiler/metrics.h"
#include "profiler/range_profiler.h"

#ifdef LMROOF_WITH_CUDA
#include <cuda_runtime.h>

#include <vector>

#include "common/cublaslt_gemm.h"
#include "common/cuda_buffer.h"
#include "common/cuda_workload.h"
#include "cupti_test_kernels.h"
#endif

namespace lmroof::profiler {
namespace {

const MetricsAvailability& availability() {
  static const MetricsAvailability a = MetricsCollector::instance().probe();
  return a;
}

#define LMROOF_SKIP_WITHOUT_COUNTERS()                                                  \
  do {                                                                                  \
    if (!availability().available())                                                    \
      GTEST_SKIP() << "CUPTI counters unavailable (" << to_string(availability().state) \
                   << "): " << availability().reason;                                   \
  } while (0)

#define LMROOF_SKIP_WITHOUT_TRACING()                                                        \
  do {                                                                                       \
    if (!availability().tracing)                                                             \
      GTEST_SKIP() << "CUPTI kernel tracing unavailable: " << availability().tracing_reason; \
  } while (0)

// A workload that is not a CUDA one: measure() and trace() must refuse it politely.
class HostOnlyWorkload : public Workload {
 public:
  void run() override {}
  Validation validate(uint64_t) override { return {}; }
};

TEST(CuptiProbe, AnswersWithAStateAndAReason) {
  const MetricsAvailability& a = availability();
  std::printf("CUPTI: %s%s%s; tracing %s; chip %s; %zu metrics, %zu dropped, %zu passes\n", to_string(a.state),
              a.reason.empty() ? "" : ": ", a.reason.c_str(), a.tracing ? "yes" : ("no: " + a.tracing_reason).c_str(),
              a.chip.empty() ? "-" : a.chip.c_str(), a.metrics.size(), a.dropped_metrics.size(), a.passes);
  for (const auto& [metric, why] : a.dropped_metrics) std::printf("  dropped %s: %s\n", metric.c_str(), why.c_str());
  if (a.available()) {
    EXPECT_TRUE(a.reason.empty());
    EXPECT_FALSE(a.chip.empty());
    EXPECT_FALSE(a.metrics.empty());
    EXPECT_GE(a.passes, 1u);
  } else {
    EXPECT_FALSE(a.reason.empty()) << "an unavailable profiler must say why";
  }
#ifndef LMROOF_WITH_CUDA
  EXPECT_EQ(a.state, MetricsState::built_without_cuda);
#endif
}

TEST(CuptiProbe, HostWorkloadIsRefusedWithAReason) {
  HostOnlyWorkload w;
  const MeasuredCounters m = MetricsCollector::instance().measure(w);
  EXPECT_FALSE(m.available);
  EXPECT_FALSE(m.reason.empty());
  const KernelTrace t = MetricsCollector::instance().trace(w);
  EXPECT_FALSE(t.available);
  EXPECT_FALSE(t.reason.empty());
}

#ifdef LMROOF_WITH_CUDA

// A CUDA workload running whatever the test gives it on its stream.
class LambdaWorkload : public cuda::CudaWorkload {
 public:
  explicit LambdaWorkload(std::function<void(cudaStream_t)> body) : body_(std::move(body)) {}
  void run() override { body_(stream()); }
  Validation validate(uint64_t) override { return {}; }

 private:
  std::function<void(cudaStream_t)> body_;
};

void print_counters(const char* what, const MeasuredCounters& m) {
  std::printf("%s on %s, %zu passes:\n", what, m.chip.c_str(), m.passes);
  for (const auto& [name, value] : m.workload_raw) std::printf("  %-72s %.6g\n", name.c_str(), value);
  std::printf("  writeback bytes %.6g (writeback range writes %.6g, baseline %.6g)\n", m.writeback_bytes.value_or(-1),
              m.writeback_raw.count(metric::kDramWrite) ? m.writeback_raw.at(metric::kDramWrite) : -1.0,
              m.baseline_raw.count(metric::kDramWrite) ? m.baseline_raw.at(metric::kDramWrite) : -1.0);
  if (!m.note.empty()) std::printf("  note: %s\n", m.note.c_str());
}

#endif

TEST(CuptiGpu, CopyKernelMeasuresItsDramBytesWithin3Percent) {
  LMROOF_SKIP_WITHOUT_COUNTERS();
#ifdef LMROOF_WITH_CUDA
  constexpr size_t kBytes = size_t{1} << 30;  // 20x the H200's L2: the copy cannot hide in it
  cuda::DeviceBuffer<std::byte> src(kBytes), dst(kBytes);
  ASSERT_EQ(cudaMemset(src.data(), 1, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(dst.data(), 0, kBytes), cudaSuccess);
  LambdaWorkload w([&](cudaStream_t s) { test::launch_copy(src.data(), dst.data(), kBytes, s); });
  const MeasuredCounters m = MetricsCollector::instance().measure(w);
  ASSERT_TRUE(m.available) << m.reason;
  print_counters("copy of 1 GiB", m);
  ASSERT_TRUE(m.dram_bytes.has_value());
  const double minimum = 2.0 * kBytes;
  EXPECT_NEAR(*m.dram_bytes / minimum, 1.0, 0.03) << "measured " << *m.dram_bytes << " DRAM bytes, minimum " << minimum;
  EXPECT_NEAR(m.dram_read_bytes.value_or(0) / kBytes, 1.0, 0.03);
  EXPECT_NEAR(m.dram_write_bytes.value_or(0) / kBytes, 1.0, 0.03);
  ASSERT_TRUE(m.workload.sm_clock_hz.has_value());
  EXPECT_GT(*m.workload.sm_clock_hz, 1e8);
  EXPECT_LT(*m.workload.sm_clock_hz, 4e9);
#endif
}

TEST(CuptiGpu, FmaKernelMeasuresExactlyItsFlops) {
  LMROOF_SKIP_WITHOUT_COUNTERS();
#ifdef LMROOF_WITH_CUDA
  constexpr int kThreads = 1 << 20, kIterations = 256;
  cuda::DeviceBuffer<float> in(kThreads), out(kThreads);
  ASSERT_EQ(cudaMemset(in.data(), 0, in.bytes()), cudaSuccess);
  LambdaWorkload w(
      [&](cudaStream_t s) { test::launch_fma(out.data(), in.data(), kThreads, kIterations, 0.999f, 0.5f, s); });
  const MeasuredCounters m = MetricsCollector::instance().measure(w);
  ASSERT_TRUE(m.available) << m.reason;
  print_counters("FMA kernel", m);
  const double expected = 2.0 * kThreads * kIterations;
  ASSERT_TRUE(m.workload.fp32_flops.has_value());
  EXPECT_EQ(*m.workload.fp32_flops, expected);
  EXPECT_EQ(m.workload_raw.at(metric::kFfma), static_cast<double>(kThreads) * kIterations);
  EXPECT_EQ(m.workload_raw.at(metric::kFadd), 0.0);
  EXPECT_EQ(m.workload_raw.at(metric::kFmul), 0.0);
  ASSERT_TRUE(m.workload.fp64_flops.has_value());
  EXPECT_EQ(*m.workload.fp64_flops, 0.0);
  ASSERT_TRUE(m.workload.fp16_flops.has_value());
  EXPECT_EQ(*m.workload.fp16_flops, 0.0);
  ASSERT_TRUE(m.workload.tensor_flops.has_value());
  EXPECT_EQ(*m.workload.tensor_flops, 0.0);
  ASSERT_TRUE(m.workload.total_flops.has_value());
  EXPECT_EQ(*m.workload.total_flops, expected);
#endif
}

TEST(CuptiGpu, Bf16GemmMeasuresTwoMnkTensorFlops) {
  LMROOF_SKIP_WITHOUT_COUNTERS();
#ifdef LMROOF_WITH_CUDA
  constexpr int64_t M = 4096, N = 4096, K = 4096;
  cuda::BlasContext blas;
  cuda::DeviceBuffer<uint16_t> a(M * K), b(N * K), c(M * N);  // bf16 storage
  ASSERT_EQ(cudaMemset(a.data(), 0, a.bytes()), cudaSuccess);
  ASSERT_EQ(cudaMemset(b.data(), 0, b.bytes()), cudaSuccess);
  cuda::GemmSpec spec;
  spec.M = M;
  spec.N = N;
  spec.K = K;
  spec.lda = K;
  spec.ldb = K;
  spec.ldc = N;
  spec.b_transposed = true;
  spec.dtype = DType::bf16;
  cuda::GemmPlan gemm(blas, spec, a.data(), b.data(), c.data());
  LambdaWorkload w([&](cudaStream_t s) { gemm.run(s); });
  const MeasuredCounters m = MetricsCollector::instance().measure(w);
  ASSERT_TRUE(m.available) << m.reason;
  print_counters("bf16 GEMM 4096^3", m);
  const double expected = 2.0 * M * N * K;
  ASSERT_TRUE(m.workload.tensor_flops.has_value()) << "no tensor-core counter could be collected";
  EXPECT_NEAR(*m.workload.tensor_flops / expected, 1.0, 0.02)
      << "measured " << *m.workload.tensor_flops << " tensor ops for " << expected
      << " FLOPs: if the ratio is 0.5 or 2, one op is not one FLOP (docs/metrics.md)";
#endif
}

TEST(CuptiGpu, UnknownMetricIsDroppedWithAReason) {
  LMROOF_SKIP_WITHOUT_COUNTERS();
#ifdef LMROOF_WITH_CUDA
  const std::string bogus = "lmroof__no_such_counter.sum";
  RangeProfiler profiler({metric::kDramRead, bogus});
  const RangeProfilerStatus& st = profiler.status();
  ASSERT_TRUE(st.available) << st.reason;
  ASSERT_EQ(st.dropped.count(bogus), 1u);
  EXPECT_FALSE(st.dropped.at(bogus).empty());
  ASSERT_EQ(st.metrics.size(), 1u);
  EXPECT_EQ(st.metrics[0], metric::kDramRead);

  cuda::DeviceBuffer<std::byte> src(64 << 20), dst(64 << 20);
  const RangeProfile p =
      profiler.profile(nullptr, {{"copy", [&] { test::launch_copy(src.data(), dst.data(), 64 << 20, nullptr); }}});
  ASSERT_TRUE(p.available) << p.reason;
  ASSERT_NE(p.find("copy"), nullptr);
  EXPECT_EQ(p.find("copy")->values.count(metric::kDramRead), 1u);
#endif
}

TEST(CuptiGpu, TraceOfTwoKernelsListsBothWithDurations) {
  LMROOF_SKIP_WITHOUT_TRACING();
#ifdef LMROOF_WITH_CUDA
  constexpr int kThreads = 1 << 20;
  cuda::DeviceBuffer<float> in(kThreads), out(kThreads);
  ASSERT_EQ(cudaMemset(in.data(), 0, in.bytes()), cudaSuccess);
  LambdaWorkload w([&](cudaStream_t s) {
    test::launch_fma(out.data(), in.data(), kThreads, 64, 0.999f, 0.5f, s);
    test::launch_scale(out.data(), kThreads, 2.0f, s);
  });
  const KernelTrace t = MetricsCollector::instance().trace(w);
  ASSERT_TRUE(t.available) << t.reason;
  for (const auto& k : t.kernels)
    std::printf("  %-60s grid %d,%d,%d block %d,%d,%d %10.0f ns stream %u class %s\n", k.name.c_str(), k.grid[0],
                k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.duration_ns, k.stream_id,
                std::string(to_string(k.op_class)).c_str());
  EXPECT_EQ(t.dropped_records, 0u) << t.note;
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_NE(t.kernels[0].name.find("cupti_test_fma_kernel"), std::string::npos) << t.kernels[0].name;
  EXPECT_NE(t.kernels[1].name.find("cupti_test_scale_kernel"), std::string::npos) << t.kernels[1].name;
  for (const auto& k : t.kernels) {
    EXPECT_GT(k.duration_ns, 0.0) << k.name;
    EXPECT_GT(k.end_ns, k.start_ns) << k.name;
    EXPECT_EQ(k.block[0], 256) << k.name;
    EXPECT_EQ(k.stream_id, t.kernels[0].stream_id) << "both kernels ran on the workload's stream";
  }
  EXPECT_EQ(t.kernels[0].grid[0], kThreads / 256);
  EXPECT_LE(t.kernels[0].end_ns, t.kernels[1].start_ns) << "same stream: the second starts after the first";
  EXPECT_GT(t.total_kernel_seconds(), 0.0);
#endif
}

}  // namespace
}  // namespace lmroof::profiler
