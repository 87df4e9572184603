// `lmroof trace --what-if` (analysis/trace/what_if.h): hand-worked retimings of a
// compute-bound GEMM, a memory-bound elementwise op and a launch-bound kernel on two
// devices of round figures; the wave factor; a dtype without a fast path; the replay
// keeping two streams' overlap and a host-bound step's gaps (docs/trace.md, "What if").
#include <gtest/gtest.h>

#include "analysis/model/input_error.h"
#include "analysis/trace/what_if.h"

namespace {

using namespace lmroof::trace;
using lmroof::predict::Device;

// Round figures so that every expected value below is worked by hand.
Device device(const char* name, double bandwidth, double bf16, double fp32, double launch_s, int64_t sms) {
  Device d;
  d.name = name;
  d.architecture = "hopper";
  d.bandwidth_bytes_per_s = bandwidth;
  if (bf16 > 0) d.dense_peak_flops["bf16"] = bf16;
  d.dense_peak_flops["fp32"] = fp32;
  d.launch_s = launch_s;
  d.sm_count = sms;
  return d;
}
const Device kSource = device("S", 1e12, 1e15, 1e14, 2e-6, 100);
const Device kTarget = device("T", 2e12, 4e15, 2e14, 2e-6, 160);

OpCost gemm_cost(double flops, double bytes) {
  OpCost c;
  c.op_class = OpClass::matmul;
  c.model = "matmul: mm";
  c.unit = Unit::tensor;
  c.dtype = "bf16";
  c.flops = flops;
  c.bytes = bytes;
  return c;
}
OpCost elementwise_cost(double flops, double bytes) {
  OpCost c = gemm_cost(flops, bytes);
  c.op_class = OpClass::elementwise;
  c.unit = Unit::vector;
  return c;
}

TEST(WhatIf, ComputeBoundGemm) {
  // 1e12 FLOPs, 1e8 bytes, one kernel, 2 ms on S. S: compute 1 ms, memory 0.1 ms: roof
  // 1 ms + 2 µs launch = 1.002 ms (fraction 0.501). T: 0.25 ms + 2 µs = 0.252 ms.
  // Efficiency kept: 2 ms · 0.252 / 1.002 = 0.50299 ms; the time above the roof kept:
  // 0.252 + (2 - 1.002) = 1.25 ms: the interval.
  const OpRetime r = retime_op({gemm_cost(1e12, 1e8), 1, 1, 2e-3, 0, false}, kSource, 100, kTarget);
  EXPECT_EQ(r.source_bound, "compute");
  EXPECT_EQ(r.target_bound, "compute");
  EXPECT_NEAR(r.predicted_s, 2e-3 * 0.252 / 1.002, 1e-12);
  EXPECT_NEAR(r.low_s, 2e-3 * 0.252 / 1.002, 1e-12);
  EXPECT_NEAR(r.high_s, 1.25e-3, 1e-12);
  ASSERT_TRUE(r.source_fraction);
  EXPECT_NEAR(*r.source_fraction, 0.501, 1e-12);
  EXPECT_NE(r.why.find("compute-bound: bf16 peak ratio 0.25"), std::string::npos) << r.why;
}

TEST(WhatIf, WaveFactorOnTheGrid) {
  EXPECT_DOUBLE_EQ(wave_factor(150, 100), 200.0 / 150);  // two waves, the second half full
  EXPECT_DOUBLE_EQ(wave_factor(264, 132), 1.0);          // whole waves
  EXPECT_DOUBLE_EQ(wave_factor(66, 132), 2.0);           // half the units idle
  EXPECT_DOUBLE_EQ(wave_factor(0, 132), 1.0);            // no grid in the trace
  // 150 blocks: 4/3 on S's 100 SMs, 160/150 on T's 160. S: 1 ms · 4/3 + 2 µs; T: 0.25 ms · 16/15 + 2 µs.
  const OpRetime r = retime_op({gemm_cost(1e12, 1e8), 1, 1, 2e-3, 150, false}, kSource, 100, kTarget);
  const double rs = 1e-3 * 4 / 3 + 2e-6, rt = 0.25e-3 * 16 / 15 + 2e-6;
  EXPECT_NEAR(r.predicted_s, 2e-3 * rt / rs, 1e-12);
  EXPECT_NE(r.why.find("wave factor 1.33 here, 1.07 there"), std::string::npos) << r.why;
  // A grid of exactly the source's SM count is a persistent kernel: no factor either side.
  const OpRetime p = retime_op({gemm_cost(1e12, 1e8), 1, 1, 2e-3, 100, false}, kSource, 100, kTarget);
  EXPECT_NEAR(p.predicted_s, 2e-3 * 0.252 / 1.002, 1e-12);
}

TEST(WhatIf, MemoryBoundElementwise) {
  // 4e8 bytes, 1 ms on S: memory 0.4 ms + 2 µs = 0.402 ms; T: 0.2 ms + 2 µs = 0.202 ms.
  // 1 ms · 0.202 / 0.402 = 0.50249 ms; the additive reading 0.202 + 0.598 = 0.8 ms.
  const OpRetime r = retime_op({elementwise_cost(1e8, 4e8), 1, 1, 1e-3, 0, false}, kSource, 100, kTarget);
  EXPECT_EQ(r.source_bound, "memory");
  EXPECT_EQ(r.target_bound, "memory");
  EXPECT_NEAR(r.predicted_s, 1e-3 * 0.202 / 0.402, 1e-12);
  EXPECT_NEAR(r.high_s, 0.8e-3, 1e-12);
  // Under the bandwidth-latency size: 1e6 bytes in 10 µs. S: 1 + 2 µs; T: 0.5 + 2 µs: it
  // speeds up by 2.5/3, not by the bandwidth ratio 1/2.
  const OpRetime small = retime_op({elementwise_cost(1e5, 1e6), 1, 1, 10e-6, 0, false}, kSource, 100, kTarget);
  EXPECT_NEAR(small.predicted_s, 10e-6 * 2.5 / 3, 1e-15);
  EXPECT_NE(small.why.find("floor dominates"), std::string::npos) << small.why;
}

TEST(WhatIf, LaunchBoundKernelDoesNotSpeedUp) {
  // 10 calls of one 3 µs kernel: under 2 launch floors (4 µs) on S. The floors agree: kept.
  const OpRetime r = retime_op({elementwise_cost(1e3, 1e4), 10, 10, 30e-6, 0, false}, kSource, 100, kTarget);
  EXPECT_EQ(r.source_bound, "launch");
  EXPECT_DOUBLE_EQ(r.predicted_s, 30e-6);
  EXPECT_DOUBLE_EQ(r.low_s, 30e-6);
  EXPECT_DOUBLE_EQ(r.high_s, 30e-6);
  // A target whose floor is twice as long takes twice the time.
  const Device slow_launch = device("L", 2e12, 4e15, 2e14, 4e-6, 160);
  EXPECT_DOUBLE_EQ(retime_op({elementwise_cost(1e3, 1e4), 10, 10, 30e-6, 0, false}, kSource, 100, slow_launch).predicted_s, 60e-6);
}

TEST(WhatIf, DtypeWithoutAFastPath) {
  // T has no bf16 peak: a bf16 GEMM runs at its fp32 peak (2e14): 1e12 / 2e14 = 5 ms + 2 µs.
  const Device no_bf16 = device("V", 2e12, 0, 2e14, 2e-6, 160);
  const OpRetime r = retime_op({gemm_cost(1e12, 1e8), 1, 1, 2e-3, 0, false}, kSource, 100, no_bf16);
  EXPECT_NEAR(r.predicted_s, 2e-3 * 5.002e-3 / 1.002e-3, 1e-12);
  EXPECT_NE(r.why.find("no bf16 fast path on V"), std::string::npos) << r.why;
}

TEST(WhatIf, NoCostAndCommunicationAreKept) {
  OpCost none;
  none.op_class = OpClass::other;
  const OpRetime r = retime_op({none, 2, 2, 1e-3, 0, false}, kSource, 100, kTarget);
  EXPECT_TRUE(r.kept);
  EXPECT_DOUBLE_EQ(r.predicted_s, 1e-3);
  OpCost comm = elementwise_cost(0, 1e6);
  comm.op_class = OpClass::communication;
  EXPECT_TRUE(retime_op({comm, 1, 1, 1e-3, 0, false}, kSource, 100, kTarget).kept);
}

// A window of kernels whose rows run exactly at their roof (no launch floor), so that
// every replayed time is worked by hand: row 0 halves on the target, row 1 has no cost.
TraceAnalysis window(const std::vector<KernelSpan>& spans, double w1_us) {
  const Device s = device("S", 1e12, 1e15, 1e14, 0, 100), t_unused = s;
  (void)t_unused;
  TraceAnalysis a;
  a.file = "fixture";
  a.roofs.name = "S";
  a.roofs.source = "flag";
  a.roofs.device = s;
  a.window_kind = "whole";
  a.window_start_us = 0;
  a.window_end_us = w1_us;
  a.total_s = w1_us * 1e-6;
  OpRow gemm;
  gemm.row_id = 0;
  gemm.name = "aten::mm";
  gemm.cost = gemm_cost(0, 1e3);
  OpRow other;
  other.row_id = 1;
  other.name = "aten::_custom";
  for (const auto& k : spans) {
    OpRow& row = k.row_id == 0 ? gemm : other;
    row.device_time_s += k.dur_us * 1e-6;
    ++row.calls;
    ++row.kernel_launches;
  }
  // Each row-0 kernel is 1e8 FLOPs per µs at 1e15 FLOP/s: exactly at its roof.
  gemm.cost.flops = gemm.device_time_s / std::max<uint64_t>(gemm.calls, 1) * 1e15;
  a.ops = {gemm, other};
  a.timeline = spans;
  double busy = 0;
  for (const auto& k : spans) busy += k.dur_us;  // the fixtures below never overlap on one timeline unless said
  a.busy_s = busy * 1e-6;
  return a;
}
const Device kTwiceTheCompute = device("T2", 1e12, 2e15, 1e14, 0, 100);
// The replayed window and busy time, in µs (the fixtures' times are exact to 1e-12 s).
void expect_window(const WhatIf& w, double total_us, double busy_us) {
  EXPECT_NEAR(w.predicted_total_s, total_us * 1e-6, 1e-12);
  EXPECT_NEAR(w.predicted_busy_s, busy_us * 1e-6, 1e-12);
}
// Stream 7: A [0, 100) and C [130, 230), both row 0. Stream 8: B [20, 120), row 1 (no cost).
const std::vector<KernelSpan> kTwoStreams = {{0, 100, 7, 0, 0, 0, true}, {20, 100, 8, 0, 1, 0, true}, {130, 100, 7, 0, 0, 0, true}};

TEST(WhatIf, TwoStreamsKeepTheirOverlap) {
  // kTwoStreams: row 0 halves on the target. A' [0, 50) overlaps B' [20, 120) as on the source. C starts 10 µs after B ends (the
  // latest end before it): C' [130, 180). Window end: 10 µs after the last end: 190 µs.
  // Busy: [0, 120) and [130, 180) = 170 µs.
  TraceAnalysis a = window(kTwoStreams, 240);
  a.busy_s = 220e-6;  // [0, 120) and [130, 230)
  const WhatIf w = what_if(a, kTwiceTheCompute, "table");
  expect_window(w, 190, 170);
  EXPECT_NEAR(w.source_busy_s, 220e-6, 1e-12);
  // Serialised, the same kernels would take 50 + 100 + 50 µs of busy time, not 170.
}

TEST(WhatIf, HostBoundStepDoesNotShrink) {
  // Three 10 µs kernels 100 µs apart in a 300 µs step: the GPU idles 90% of it, waiting
  // on the host. Twice the compute halves the kernels; every gap stays: 0-5, 95-100,
  // 190-195, then the 90 µs the host took after the last kernel: 285 µs, not 150.
  const WhatIf w = what_if(window({{0, 10, 7, 0, 0, 0, true}, {100, 10, 7, 0, 0, 0, true}, {200, 10, 7, 0, 0, 0, true}}, 300),
                           kTwiceTheCompute, "table");
  expect_window(w, 285, 15);
  EXPECT_NEAR(w.host_gap_s, 270e-6, 1e-12);
}

TEST(WhatIf, SameDeviceReproducesTheSource) {
  const TraceAnalysis a = window(kTwoStreams, 240);
  const WhatIf w = what_if(a, *a.roofs.device, "table");
  expect_window(w, 240, 220);
  EXPECT_NEAR(w.low_total_s, 240e-6, 1e-12);
  EXPECT_NEAR(w.high_total_s, 240e-6, 1e-12);
}

TEST(WhatIf, UnknownSourceDeviceIsRefused) {
  TraceAnalysis a = window({{0, 10, 7, 0, 0, 0, true}}, 20);
  a.roofs.device.reset();
  a.roofs.why_unknown = "the trace names no device";
  EXPECT_THROW(what_if(a, kTarget, "table"), lmroof::model::InputError);
}

}  // namespace
