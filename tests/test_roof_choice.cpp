// The roof-choice rule (analysis/roofs/roof_choice.h) on traffic worked out by hand: which
// roof, at what rate, and the time a run would take at it.
#include <gtest/gtest.h>

#include <tuple>

#include "analysis/roofs/roof_choice.h"
#include "kernels/run_names/cost.h"
#include "registry.h"
#include "roof_fixture.h"

namespace lmroof {
namespace {

using test::G;
using test::MiB;
using test::stream;
// The small machine of tests/roof_fixture.h.
MachineRoofs machine() { return test::nominal_machine(); }

TEST(RoofChoice, ReadOnlyStreamGetsTheReadRoof) {
  // 512 MiB read, 64 KiB written (decode's output): 0.01% writes
  const auto c = choose_roof(stream(512 * MiB, 64 * 1024, 512 * MiB), machine());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->roof, "read");
  EXPECT_EQ(c->unit, "B/s");
  // 64 KiB pairs with 64 KiB of reads at the copy roof, the rest at the read roof
  const double expected = 2 * 65536 / (36 * G) + (512 * MiB - 65536) / (40 * G);
  EXPECT_DOUBLE_EQ(c->seconds, expected);
  EXPECT_DOUBLE_EQ(c->value, (512 * MiB + 65536) / expected);
}

TEST(RoofChoice, CopyStreamGetsTheBestCopy) {
  // a fused norm: read x (+ gamma), write y, 256 MiB in all
  const auto c = choose_roof(stream(128 * MiB + 16384, 128 * MiB, 256 * MiB), machine());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->roof, "copy_nt");  // streaming stores measured faster than ordinary ones
  EXPECT_NEAR(c->value, 36 * G, 0.001 * G);
  // with ordinary stores measured faster, that copy is the roof
  MachineRoofs m = machine();
  m.copy = 50 * G;
  EXPECT_EQ(choose_roof(stream(128 * MiB, 128 * MiB, 256 * MiB), m)->roof, "copy");
  EXPECT_DOUBLE_EQ(choose_roof(stream(128 * MiB, 128 * MiB, 256 * MiB), m)->value, 50 * G);
}

TEST(RoofChoice, MixedStreamSplitsIntoCopyAndRead) {
  // 3 parts read, 1 written: 1+1 at the copy roof, 2 at the read roof
  const auto c = choose_roof(stream(300 * MiB, 100 * MiB, 400 * MiB), machine());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->roof, "copy_nt+read");
  EXPECT_DOUBLE_EQ(c->seconds, 200 * MiB / (36 * G) + 200 * MiB / (40 * G));
  // more writes than reads: the extra writes at the copy roof
  const auto w = choose_roof(stream(100 * MiB, 300 * MiB, 400 * MiB), machine());
  EXPECT_EQ(w->roof, "copy_nt");
  EXPECT_DOUBLE_EQ(w->seconds, 200 * MiB / (36 * G) + 200 * MiB / (36 * G));
}

TEST(RoofChoice, WorkingSetInACacheGetsThatLevel) {
  EXPECT_EQ(choose_roof(stream(16 * 1024, 16 * 1024, 32 * 1024), machine())->roof, "l1_read");
  EXPECT_EQ(choose_roof(stream(1 * MiB, 0, 1 * MiB), machine())->roof, "l2_read");
  const auto c = choose_roof(stream(10 * MiB, 10 * MiB, 20 * MiB), machine());
  EXPECT_EQ(c->roof, "l3_read");
  EXPECT_DOUBLE_EQ(c->seconds, 20 * MiB / (200 * G));
  // just over L3: partly L3, mostly DRAM (AWorkingSetUnderTwiceTheLastCacheIsPartlyServedByIt); twice L3: DRAM
  EXPECT_EQ(choose_roof(stream(17 * MiB, 17 * MiB, 34 * MiB), machine())->roof, "l3_read+copy_nt");
  EXPECT_EQ(choose_roof(stream(32 * MiB, 32 * MiB, 64 * MiB), machine())->roof, "copy_nt");
  // no cache ceilings measured: DRAM roofs, never an invented cache roof
  MachineRoofs m = machine();
  m.caches.clear();
  EXPECT_EQ(choose_roof(stream(1 * MiB, 0, 1 * MiB), m)->roof, "read");
}

TEST(RoofChoice, AWorkingSetUnderTwiceTheLastCacheIsPartlyServedByIt) {
  // 16 MiB read + 16 MiB written + 16 KiB of gamma: just over the 32 MiB L3. Nearly all
  // of it may come from L3 at 200 GB/s, the rest streams as a copy at 36 GB/s.
  const double ws = 32 * MiB + 16384;
  const auto c = choose_roof(stream(16 * MiB + 16384, 16 * MiB, ws), machine());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->roof, "l3_read+copy_nt");
  const double cached = 32 * MiB / ws;
  const double dram = 2 * 16 * MiB / (36 * G) + 16384 / (40 * G);
  EXPECT_DOUBLE_EQ(c->seconds, (1 - cached) * dram + cached * (32 * MiB + 16384) / (200 * G));
  // 48 MiB is two thirds served; from twice L3 on the cache is left out
  const auto part = choose_roof(stream(24 * MiB, 24 * MiB, 48 * MiB), machine());
  EXPECT_DOUBLE_EQ(part->seconds, (1 - 32.0 / 48) * (2 * 24 * MiB / (36 * G)) + (32.0 / 48) * (48 * MiB) / (200 * G));
  EXPECT_EQ(choose_roof(stream(32 * MiB, 32 * MiB, 64 * MiB), machine())->roof, "copy_nt");
}

TEST(RoofChoice, StreamedWritesLeaveTheLastCacheToTheReads) {
  // QK-norm's RoPE: 36 MiB read, 36 MiB written with streaming stores. The 72 MiB
  // working set is over twice L3, but only the 36 MiB of reads compete for it: up
  // to 32/36 of the reads from L3, the other reads paired with writes as a copy, the
  // remaining writes at the copy roof.
  Traffic t = stream(36 * MiB, 36 * MiB, 72 * MiB);
  EXPECT_EQ(choose_roof(t, machine())->roof, "copy_nt");  // as ordinary stores: DRAM
  t.streamed_write_bytes = 36 * MiB;
  const auto c = choose_roof(t, machine());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->roof, "l3_read+copy_nt");
  const double from_l3 = 32.0 / 36 * 36 * MiB, from_dram = 36 * MiB - from_l3;
  EXPECT_DOUBLE_EQ(c->seconds, 2 * from_dram / (36 * G) + (36 * MiB - from_dram) / (36 * G) + from_l3 / (200 * G));
  EXPECT_NE(c->rule.find("streaming stores"), std::string::npos) << c->rule;
  // reads that fit L3 entirely: all of them from there, every write to DRAM
  Traffic wide = stream(16 * MiB, 50 * MiB, 66 * MiB);
  wide.streamed_write_bytes = 50 * MiB;
  EXPECT_DOUBLE_EQ(choose_roof(wide, machine())->seconds, 50 * MiB / (36 * G) + 16 * MiB / (200 * G));
  // the whole working set under twice L3: the streamed writes may be held on chip too
  // (Zen 5 guest: a 16 MiB streamed output written at about twice DRAM's write rate),
  // so the best case takes every byte as the partly cached rule does
  Traffic small = stream(16 * MiB, 20 * MiB, 36 * MiB);
  small.streamed_write_bytes = 20 * MiB;
  const auto c_small = choose_roof(small, machine());
  EXPECT_EQ(c_small->roof, "l3_read+copy_nt");
  const double cached = 32.0 / 36;
  EXPECT_DOUBLE_EQ(c_small->seconds, (1 - cached) * (36 * MiB / (36 * G)) + cached * 36 * MiB / (200 * G));
  EXPECT_NE(c_small->rule.find("its writes too"), std::string::npos) << c_small->rule;
  // reads still over twice L3: DRAM only
  Traffic big = stream(80 * MiB, 36 * MiB, 116 * MiB);
  big.streamed_write_bytes = 36 * MiB;
  EXPECT_EQ(choose_roof(big, machine())->roof, "copy_nt+read");
  // from the cost: the fused norm and QK-norm declare their streamed output
  for (const auto& [name, variant, impl] : {std::tuple{"stability", "qknorm", "without"},
                                             std::tuple{"stability", "qknorm", "fused"},
                                             std::tuple{"norm", "rmsnorm", "fused"}}) {
    const auto& pair = find_pair(name);
    const RunSpec spec{name, variant, impl, Backend::cpu, DType::fp32,
                       pair.complete_shape(variant, pair.default_shapes.front())};
    const Cost cost = cost_of(spec);
    EXPECT_GT(cost.bytes_streamed_out, 0) << spec.bench_name();
    EXPECT_DOUBLE_EQ(traffic_of(cost).streamed_write_bytes, cost.bytes_written) << spec.bench_name();
  }
}

TEST(RoofChoice, RereadsComeFromTheCacheThatHoldsEveryThreadsSet) {
  // naive GQA: 64 MiB of K/V streamed once, re-read 7 more times (448 MiB), one kv
  // head's K and V (4 MiB) per thread: 2 threads x 4 MiB fit L3, not L2
  Traffic t = stream(512 * MiB, 64 * 1024, 64 * MiB);
  t.bytes_reread = 448 * MiB;
  t.reread_set_bytes = 4 * MiB;
  const auto c = choose_roof(t, machine());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->roof, "read+l3_read");
  const double expected = 2 * 65536 / (36 * G) + (64 * MiB - 65536) / (40 * G) + 448 * MiB / (200 * G);
  EXPECT_DOUBLE_EQ(c->seconds, expected);
  // a re-read set too large for L3 on both threads: the re-reads come from DRAM
  t.reread_set_bytes = 20 * MiB;
  EXPECT_EQ(choose_roof(t, machine())->roof, "read");
}

TEST(RoofChoice, RereadsOfACacheResidentRunComeFromTheInnerLevelThatHoldsTheirSet) {
  // naive decode, groups of 8: 4 MiB of K/V (fits L3, not the two L2s) read 8 times
  // in all; one kv head's 1 MiB per thread fits the L2s (2 x 1 MiB <= 2 MiB)
  Traffic t = stream(32 * MiB, 64 * 1024, 4 * MiB);
  t.bytes_reread = 28 * MiB;
  t.reread_set_bytes = 1 * MiB;
  const auto c = choose_roof(t, machine());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->roof, "l3_read+l2_read");
  EXPECT_DOUBLE_EQ(c->seconds, (4 * MiB + 65536) / (200 * G) + 28 * MiB / (400 * G));
  EXPECT_NE(c->rule.find("re-read by design, which come from l2"), std::string::npos) << c->rule;
  // a set too large for the L2s on both threads: all at the L3 roof, as before
  t.reread_set_bytes = 1.5 * MiB;
  const auto l3 = choose_roof(t, machine());
  EXPECT_EQ(l3->roof, "l3_read");
  EXPECT_DOUBLE_EQ(l3->seconds, (32 * MiB + 65536) / (200 * G));
  // groups of 32 (naive MQA): under 5% of the bytes at L3, the roof is named after L2 alone
  t = stream(128 * MiB, 64 * 1024, 4 * MiB);
  t.bytes_reread = 124 * MiB;
  t.reread_set_bytes = 1 * MiB;
  EXPECT_EQ(choose_roof(t, machine())->roof, "l2_read");
}

TEST(RoofChoice, ASharedRereadSetIsNotCountedOncePerThread) {
  // an unfused pass over 16 MiB tensors split between the threads: the set between a
  // tensor's write and its re-read is 32 MiB in all (input and output of a pass), and
  // it fits the 32 MiB L3 once, not once per thread
  Traffic t = stream(96 * MiB, 80 * MiB, 112 * MiB);
  t.bytes_reread = 80 * MiB;
  t.reread_set_bytes = 32 * MiB;
  t.reread_set_shared = true;
  const auto shared = choose_roof(t, machine());
  ASSERT_TRUE(shared);
  EXPECT_NE(shared->roof.find("l3_read"), std::string::npos) << shared->roof;
  EXPECT_NE(shared->rule.find("shared by the threads"), std::string::npos) << shared->rule;
  t.reread_set_shared = false;  // per thread: 2 x 32 MiB do not fit, DRAM
  const auto per_thread = choose_roof(t, machine());
  EXPECT_EQ(per_thread->roof.find("l3_read"), std::string::npos) << per_thread->roof;
  EXPECT_GT(per_thread->seconds, shared->seconds);
}

TEST(RoofChoice, ComputeBoundGetsTheFmaPeak) {
  // 1 GFLOP over 8 MiB: 5 ms at the peak, 0.2 ms at the read roof
  Traffic t = stream(8 * MiB, 0, 64 * MiB);
  t.flops = 1e9;
  const auto c = choose_roof(t, machine());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->roof, "fp32_fma");
  EXPECT_EQ(c->unit, "FLOP/s");
  EXPECT_DOUBLE_EQ(c->value, 200 * G);
  EXPECT_DOUBLE_EQ(c->seconds, 1e9 / (200 * G));
  // the rule names the memory roof it was weighed against, and why that one
  EXPECT_NE(c->rule.find("than its bytes at the memory roof (read, 0.21 ms); for its bytes, its working set (64 MiB) fits no cache"),
            std::string::npos)
      << c->rule;
  // the same FLOPs over 1 GiB: memory takes longer
  t.bytes_read = 1024 * MiB;
  EXPECT_EQ(choose_roof(t, machine())->roof, "read");
}

TEST(RoofChoice, MissingRoofsGiveNoVerdict) {
  MachineRoofs none;
  EXPECT_FALSE(choose_roof(stream(MiB, MiB, 2 * MiB), none));
  // a memory roof without the FMA peak cannot judge a run with FLOPs
  MachineRoofs m = machine();
  m.fp32_fma.reset();
  Traffic t = stream(MiB, MiB, 64 * MiB);
  t.flops = 10;
  EXPECT_FALSE(choose_roof(t, m));
  // no read ceiling: reads at the copy roof, named so
  m = machine();
  m.read.reset();
  EXPECT_EQ(choose_roof(stream(512 * MiB, 0, 512 * MiB), m)->roof, "copy_nt");
}

TEST(RoofChoice, TrafficFromCost) {
  Cost c;
  c.flops.matrix = 10;
  c.bytes_minimum = 100;
  c.bytes_model = 300;
  // no direction split: a copy, half each way; working set = minimum
  Traffic t = traffic_of(c);
  EXPECT_DOUBLE_EQ(t.bytes_read, 150);
  EXPECT_DOUBLE_EQ(t.bytes_written, 150);
  EXPECT_DOUBLE_EQ(t.working_set_bytes, 100);
  EXPECT_DOUBLE_EQ(t.flops, 10);
  c.bytes_read = 280;
  c.bytes_written = 20;
  c.working_set_bytes = 120;
  t = traffic_of(c);
  EXPECT_DOUBLE_EQ(t.bytes_read, 280);
  EXPECT_DOUBLE_EQ(t.bytes_written, 20);
  EXPECT_DOUBLE_EQ(t.working_set_bytes, 120);
}

TEST(RoofChoice, EveryCpuRunOfTheDefaultSuiteSplitsItsBytes) {
  // These pairs' costs say which way their bytes go, and the split adds up (a pair
  // without the split is judged as a copy: traffic_of).
  for (const char* name : {"norm", "bias", "decode", "mlp", "attention", "window", "stability"})
    for (const auto& pair = find_pair(name); const auto& combo : pair.combos)
      for (const auto& shape : pair.default_shapes) {
        const RunSpec spec{pair.name, combo.variant, combo.impl, Backend::cpu, DType::fp32,
                           pair.complete_shape(combo.variant, shape)};
        const Cost c = cost_of(spec);
        EXPECT_NEAR(c.bytes_read + c.bytes_written, c.bytes_model, 1e-9 * c.bytes_model) << spec.bench_name();
        EXPECT_LE(c.bytes_reread, c.bytes_read) << spec.bench_name();
        EXPECT_GT(c.bytes_written, 0) << spec.bench_name();
        // Decode reads the weights and the cache and writes a token's worth: judged
        // as a copy it would be held to the wrong roof.
        if ((name == std::string("attention") && combo.impl == "decode") || name == std::string("window")) {
          EXPECT_LT(c.bytes_written, 0.05 * c.bytes_model) << spec.bench_name();
        }
      }
}

TEST(RoofChoice, ReadsTheCpuCeilings) {
  auto ceiling = [](std::string name, std::string backend, double value, std::optional<int64_t> threads = {},
                    std::optional<double> cache = {}) {
    model::Ceiling c;
    c.name = std::move(name);
    c.backend = std::move(backend);
    c.value = value;
    c.threads = threads;
    c.cache_bytes = cache;
    return c;
  };
  const std::vector<model::Ceiling> ceilings = {
      ceiling("read", "cpu", 40e9, 2),
      ceiling("copy_nt", "cpu", 36e9),
      ceiling("l3_read", "cpu", 200e9, {}, 33554432),
      ceiling("l1_read", "cpu", 800e9, {}, 65536),
      ceiling("fp32_fma", "cpu", 200e9),
      ceiling("dram_copy", "cuda", 4e12),
      ceiling("l2_read", "cpu", 0, {}, 2097152),  // failed: ignored
  };
  const MachineRoofs m = cpu_roofs_from_ceilings(ceilings);
  EXPECT_DOUBLE_EQ(*m.read, 40e9);
  EXPECT_FALSE(m.copy);
  EXPECT_DOUBLE_EQ(*m.copy_nt, 36e9);
  EXPECT_DOUBLE_EQ(*m.fp32_fma, 200e9);
  EXPECT_EQ(m.threads, 2);
  ASSERT_EQ(m.caches.size(), 2u);
  EXPECT_EQ(m.caches[0].name, "l1_read");  // innermost first
  EXPECT_EQ(m.caches[1].name, "l3_read");
  const model::JudgedAgainst j = judged_against(Cost{}, 1.0, m);
  EXPECT_FALSE(j.roof);  // moves nothing, computes nothing: no verdict
  EXPECT_TRUE(j.reason);
}

}  // namespace
}  // namespace lmroof
