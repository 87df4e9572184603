// Issue #34's judging rules (analysis/roof_choice.h) on numbers worked out by hand: a run
// judged at the bandwidth curve's rate at its own working set, the level it is judged at,
// composite runs against the sum of their steps' roof times, the unstable ceilings a
// judgement uses, and the sentence that splits a speedup into bytes and a level change.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/roofs/roof_choice.h"
#include "kernels/run_names/cost.h"
#include "roof_fixture.h"

namespace lmroof {
namespace {

using test::G;
using test::KiB;
using test::MiB;
using test::stream;
MachineRoofs nominal() { return test::nominal_machine(); }  // tests/roof_fixture.h

// The same machine with a curve whose L3 rate falls towards its capacity, as a VM's
// shared L3 does: 200 GB/s at 4 MiB, 100 GB/s at 32 MiB; 40 GB/s from 128 MiB on.
model::BandwidthCurve curve() {
  model::BandwidthCurve c;
  c.backend = "cpu";
  c.threads = 2;
  auto point = [](double ws, double read) {
    model::BandwidthPoint p;
    p.working_set_bytes = ws;
    p.read = read;
    p.repetitions = 5;
    return p;
  };
  c.points = {point(32 * KiB, 800 * G), point(1 * MiB, 400 * G), point(4 * MiB, 200 * G), point(32 * MiB, 100 * G),
              point(128 * MiB, 40 * G), point(1024 * MiB, 40 * G)};
  c.levels = {{"L1", 64 * KiB, 800 * G}, {"L2", 2 * MiB, 400 * G}, {"L3", 32 * MiB, 180 * G}, {"DRAM", std::nullopt, 40 * G}};
  return c;
}

MachineRoofs with_curve() {
  MachineRoofs r = nominal();
  r.curve = curve();
  return r;
}

TEST(RoofCurve, ReadAtInterpolatesInLogBytesAndHoldsTheEnds) {
  const model::BandwidthCurve c = curve();
  EXPECT_DOUBLE_EQ(c.read_at(1 * KiB), 800 * G);              // below the first point: its rate
  EXPECT_DOUBLE_EQ(c.read_at(4 * MiB), 200 * G);              // on a point
  EXPECT_NEAR(c.read_at(std::sqrt(4.0 * 32) * MiB), 150 * G, 1e-3 * G);  // halfway in log(bytes)
  EXPECT_DOUBLE_EQ(c.read_at(64 * 1024 * MiB), 40 * G);       // beyond the last: its rate
}

TEST(RoofCurve, ARunIsJudgedAtTheCurvesRateAtItsOwnWorkingSet) {
  // A read-mostly run of 24 MiB inside the 32 MiB L3: the nominal rule takes l3_read's
  // 200 GB/s (measured in a small set); the curve measured less there.
  const Traffic t = stream(24 * MiB, 0, 24 * MiB);
  const auto nominal_choice = choose_roof(t, nominal());
  ASSERT_TRUE(nominal_choice);
  EXPECT_EQ(nominal_choice->roof, "l3_read");
  EXPECT_EQ(nominal_choice->level, "L3");
  EXPECT_DOUBLE_EQ(nominal_choice->value, 200 * G);

  const auto c = choose_roof(t, with_curve());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->roof, "L3 curve");
  EXPECT_EQ(c->level, "L3");
  const double rate = 200 * G + std::log(24.0 / 4) / std::log(32.0 / 4) * (100 * G - 200 * G);
  EXPECT_NEAR(c->value, rate, 1e-6 * rate);
  EXPECT_NEAR(c->seconds, 24 * MiB / rate, 1e-12);
  // Nearer the capacity, a lower rate: a level's roof is not applied at its edge.
  EXPECT_LT(choose_roof(stream(30 * MiB, 0, 30 * MiB), with_curve())->value, choose_roof(stream(6 * MiB, 0, 6 * MiB), with_curve())->value);
}

TEST(RoofCurve, EachLevelOfTheCurveNamesWhereTheBytesComeFrom) {
  EXPECT_EQ(choose_roof(stream(16 * KiB, 0, 16 * KiB), with_curve())->level, "L1");
  EXPECT_EQ(choose_roof(stream(1 * MiB, 0, 1 * MiB), with_curve())->level, "L2");
  EXPECT_EQ(choose_roof(stream(512 * MiB, 0, 512 * MiB), with_curve())->level, "DRAM");
  // Without a curve, the level the nominal rule chose.
  EXPECT_EQ(choose_roof(stream(1 * MiB, 0, 1 * MiB), nominal())->level, "L2");
  EXPECT_EQ(choose_roof(stream(512 * MiB, 0, 512 * MiB), nominal())->level, "DRAM");
}

TEST(RoofCurve, BeyondTheCachesWritesPairWithReadsAtTheBestCopy) {
  // A copy stream of 256 MiB: as many reads as writes at copy_nt (36 GB/s, better than
  // the curve, which measured no copy), nothing left at the read rate.
  const auto c = choose_roof(stream(128 * MiB, 128 * MiB, 256 * MiB), with_curve());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->level, "DRAM");
  EXPECT_EQ(c->roof, "copy_nt+DRAM curve");
  EXPECT_NEAR(c->seconds, 256 * MiB / (36 * G), 1e-12);
  // Read-only at 64 MiB: between the 32 MiB (100 GB/s) and 128 MiB (40 GB/s) points,
  // the curve measured what part of the stream the L3 still served: 70 GB/s.
  const auto r = choose_roof(stream(64 * MiB, 0, 64 * MiB), with_curve());
  EXPECT_NEAR(r->value, 70 * G, 1e-6 * G);
  EXPECT_EQ(r->roof, "DRAM curve");
}

TEST(RoofCurve, JustBeyondTheCachesACopyIsAtLeastTheCurvesRead) {
  // A copy stream of 48 MiB, just beyond the 32 MiB L3: the curve reads 100-70 GB/s
  // there (the L3 still serves part of it), faster than a DRAM copy_nt (36 GB/s), so the
  // paired reads and writes go at the curve's read rate, not at the DRAM copy's.
  const auto c = choose_roof(stream(24 * MiB, 24 * MiB, 48 * MiB), with_curve());
  ASSERT_TRUE(c);
  const double read = curve().read_at(48 * MiB);
  ASSERT_GT(read, 36 * G);
  EXPECT_NEAR(c->seconds, 48 * MiB / read, 1e-12);
  EXPECT_EQ(c->roof, "DRAM curve");
  EXPECT_NE(c->rule.find("still partly cached"), std::string::npos) << c->rule;
}

TEST(RoofCurve, StreamedWritesLeaveTheReadsTheirOwnSetOnTheCurve) {
  // 80 MiB read and 80 MiB written with streaming stores: a 160 MiB set, on the memory
  // plateau (40 GB/s from 128 MiB on). The streamed writes bypass the caches, so the
  // reads compete for them alone: the curve reads 80 MiB at ~60 GB/s, the L3 still
  // serving part of it. Reads at that rate and writes at the best copy (copy_nt, 36
  // GB/s) beat the paired copy of all 160 MiB, so they are the roof.
  Traffic t = stream(80 * MiB, 80 * MiB, 160 * MiB);
  t.streamed_write_bytes = 80 * MiB;
  const auto c = choose_roof(t, with_curve());
  ASSERT_TRUE(c);
  const double read = curve().read_at(80 * MiB);
  ASSERT_GT(read, 40 * G);
  EXPECT_NEAR(c->seconds, 80 * MiB / read + 80 * MiB / (36 * G), 1e-12);
  EXPECT_LT(c->seconds, 160 * MiB / (36 * G));
  EXPECT_EQ(c->level, "DRAM");
  EXPECT_NE(c->rule.find("written with streaming stores bypass the caches"), std::string::npos) << c->rule;
  // The same traffic with ordinary stores: the whole 160 MiB competes, paired at copy_nt.
  t.streamed_write_bytes = 0;
  EXPECT_NEAR(choose_roof(t, with_curve())->seconds, 160 * MiB / (36 * G), 1e-12);
  // Under twice the L3 the partly-cached rule already takes every byte at the curve's read.
  Traffic small = stream(24 * MiB, 24 * MiB, 48 * MiB);
  small.streamed_write_bytes = 24 * MiB;
  EXPECT_NEAR(choose_roof(small, with_curve())->seconds, 48 * MiB / curve().read_at(48 * MiB), 1e-12);
}

TEST(RoofCurve, RereadsComeAtTheCurvesRateForTheirSet) {
  // 512 MiB streamed, of which 256 MiB re-read from a 512 KiB set per thread (1 MiB for
  // the two threads: L2 on the curve, 400 GB/s).
  Traffic t = stream(512 * MiB, 0, 512 * MiB);
  t.bytes_reread = 256 * MiB;
  t.reread_set_bytes = 512 * KiB;
  const auto c = choose_roof(t, with_curve());
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->seconds, 256 * MiB / (40 * G) + 256 * MiB / (400 * G), 1e-12);
}

TEST(RoofCurve, ACompositeRunIsJudgedAgainstTheSumOfItsStepsRoofTimes) {
  // A block in two steps: a GEMM of 200 GFLOP over 64 MiB (compute-bound: 1 s at the FMA
  // peak) and eager norms of 0 FLOPs over 4 GiB (memory-bound). Whole, the run's 200 GFLOP
  // and 4.06 GiB would allow max(1 s, bytes / W); by step the times add up.
  Cost cost;
  cost.flops.matrix = 200 * G;
  cost.flops_by_class["matmul"] = FlopCount{200 * G, 0, 0};
  cost.flops_by_class["normalization"] = FlopCount{0, 0, 0};
  cost.bytes_by_class["matmul"] = 64 * MiB;
  cost.bytes_by_class["normalization"] = 4096 * MiB;
  cost.bytes_model = cost.bytes_minimum = 4160 * MiB;
  cost.bytes_read = 2080 * MiB;
  cost.bytes_written = 2080 * MiB;
  cost.working_set_bytes = 1024 * MiB;
  const MachineRoofs m = nominal();
  const auto whole = choose_roof(traffic_of(cost), m);
  ASSERT_TRUE(whole);
  const double memory_rate = 36 * G;  // a copy stream from DRAM at copy_nt
  EXPECT_EQ(whole->roof, "fp32_fma");  // 1 s of FLOPs against 0.12 s of bytes
  const model::JudgedAgainst j = judged_against(cost, 2.0, m);
  ASSERT_TRUE(j.roof);
  EXPECT_TRUE(j.composite);
  EXPECT_EQ(*j.roof, "fp32_fma+copy_nt by step");
  const double expected = std::max(1.0, 64 * MiB / memory_rate) + 4096 * MiB / memory_rate;
  EXPECT_NEAR(j.seconds, expected, 1e-9);
  EXPECT_NEAR(j.fraction, expected / 2.0, 1e-9);
  EXPECT_GT(j.seconds, whole->seconds);
  EXPECT_EQ(j.level, "DRAM");
  EXPECT_NE(j.rule.find("normalization"), std::string::npos) << j.rule;

  // A run of one class (or none) is not composite.
  Cost single = cost;
  single.flops_by_class.erase("normalization");
  single.bytes_by_class.erase("normalization");
  EXPECT_FALSE(judged_against(single, 2.0, m).composite);
}

TEST(RoofCurve, AJudgementNamesTheUnstableCeilingsItUses) {
  MachineRoofs m = nominal();
  m.unstable = {"copy_nt"};
  Cost cost;
  cost.bytes_model = cost.bytes_minimum = 256 * MiB;
  cost.bytes_read = cost.bytes_written = 128 * MiB;
  cost.working_set_bytes = 256 * MiB;
  const model::JudgedAgainst j = judged_against(cost, 0.01, m);
  ASSERT_TRUE(j.roof);
  EXPECT_EQ(*j.roof, "copy_nt");
  EXPECT_EQ(j.unstable_ceilings, std::vector<std::string>{"copy_nt"});
  m.unstable = {"l1_read"};
  EXPECT_TRUE(judged_against(cost, 0.01, m).unstable_ceilings.empty());
  // cpu_roofs_from_ceilings reads the flag.
  model::Ceiling c;
  c.name = "read";
  c.backend = "cpu";
  c.value = 40 * G;
  c.unstable = true;
  EXPECT_EQ(cpu_roofs_from_ceilings({c}).unstable.count("read"), 1u);
}

TEST(RoofCurve, AboveRoofIsAFaultBeyondFivePercent) {
  std::optional<model::JudgedAgainst> j = model::JudgedAgainst{};
  j->roof = "read";
  j->fraction = 1.05;
  EXPECT_FALSE(model::above_roof(j));
  j->fraction = 1.06;
  EXPECT_TRUE(model::above_roof(j));
  j->roof.reset();
  EXPECT_FALSE(model::above_roof(j));
}

TEST(RoofCurve, FilesWithoutALevelGetTheOneTheirRoofNameImplies) {
  model::JudgedAgainst j;
  auto level = [&](const char* roof) {
    j.roof = roof;
    return judged_level(j);
  };
  EXPECT_EQ(level("l3_read+l2_read"), "L3");
  EXPECT_EQ(level("l1_read"), "L1");
  EXPECT_EQ(level("copy_nt+read"), "DRAM");
  EXPECT_EQ(level("l3_read+copy_nt"), "DRAM");  // partly cached: a DRAM stream
  EXPECT_EQ(level("fp32_fma"), std::nullopt);
  j.level = "L2";
  EXPECT_EQ(judged_level(j), "L2");  // recorded: used as is
}

model::Run judged_run(std::string variant, std::string level, double rate) {
  model::Run r;
  r.variant = std::move(variant);
  r.judged_against = model::JudgedAgainst{};
  r.judged_against->roof = level + " curve";
  r.judged_against->unit = "B/s";
  r.judged_against->value = rate;
  r.judged_against->level = level;
  return r;
}

TEST(RoofCurve, ALevelChangeSplitsTheSpeedupIntoBytesAndLevel) {
  // Issue #34's decode: 15.9x for a bytes ratio of 0.126: the bytes explain 7.9x, the
  // change of level ~2x (MHA from DRAM, GQA from L3).
  model::Comparison c;
  c.speedup = 15.9;
  c.bytes_ratio = 0.126;
  const auto text = level_change(c, judged_run("mha", "DRAM", 40 * G), judged_run("gqa", "L3", 90 * G));
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("of which ~2x is a change of level: mha from DRAM, gqa from L3"), std::string::npos) << *text;
  EXPECT_NE(text->find("explains 7.94x"), std::string::npos) << *text;
  EXPECT_NE(text->find("differ 2.25x"), std::string::npos) << *text;
  // Same level: nothing to say.
  EXPECT_FALSE(level_change(c, judged_run("mha", "L3", 40 * G), judged_run("gqa", "L3", 90 * G)));
  // A compute-bound side: its level does not explain its time.
  model::Run compute = judged_run("gqa", "L3", 90 * G);
  compute.judged_against->unit = "FLOP/s";
  EXPECT_FALSE(level_change(c, judged_run("mha", "DRAM", 40 * G), compute));
  // The paired rounds' speedup where taken: 8x for the same bytes ratio is ~1x of level.
  c.paired = model::PairedRounds{10, 7.94, 7.5, 8.4, 0};
  EXPECT_NE(level_change(c, judged_run("mha", "DRAM", 40 * G), judged_run("gqa", "L3", 90 * G))->find("of which ~1x"),
            std::string::npos);
}

}  // namespace
}  // namespace lmroof
