// The memory-bandwidth curve (issue #34): its working sets (bench/bandwidth_curve.h),
// the plateaus found on it (analysis/roofs/memory_levels.h) from synthetic curves of the
// machines lmroof is checked on, its interpolation (model::BandwidthCurve::read_at),
// how it travels through bench.json into results.json, and the reader's refusals.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "analysis/model/json_input.h"
#include "analysis/roofs/curve_agreement.h"
#include "analysis/roofs/memory_levels.h"
#include "analysis/roofs/roof_choice.h"
#include "analysis/rules/rules.h"
#include "analysis/results/results.h"
#include "bench/bandwidth_curve.h"
#include "reports/text/roof_text.h"
#include "bench/cache_levels.h"
#include "bench/memory_budget.h"
#include "bench_fixture.h"

namespace lmroof {
namespace {

struct Level {
  std::string name;
  double capacity, bandwidth;
};

// A read curve over `sets` for caches `levels` (ascending) in front of memory at
// `far` B/s: a level serves all of a set up to 3/4 of its capacity and none beyond
// 1.5x (a sweep larger than an LRU-like cache misses throughout), linearly in log(set)
// between; time per byte adds up over the levels that serve it. A deterministic
// +-3% wobble stands for noise.
std::vector<model::BandwidthPoint> synthetic_curve(const std::vector<Level>& levels, double far,
                                                   const std::vector<int64_t>& sets) {
  std::vector<model::BandwidthPoint> points;
  for (size_t k = 0; k < sets.size(); ++k) {
    const double set = static_cast<double>(sets[k]);
    double served = 0, seconds_per_byte = 0;
    for (const auto& l : levels) {
      const double hit = std::clamp(std::log(1.5 * l.capacity / set) / std::log(2.0), 0.0, 1.0);
      const double here = std::max(0.0, hit - served);
      seconds_per_byte += here / l.bandwidth;
      served = std::max(served, hit);
    }
    seconds_per_byte += (1 - served) / far;
    const double wobble = 1 + 0.03 * std::sin(1.7 * static_cast<double>(k));
    points.push_back({set, wobble / seconds_per_byte, std::nullopt, 0.01, 3});
  }
  return points;
}

std::vector<CacheCapacity> capacities(const std::vector<Level>& levels) {
  std::vector<CacheCapacity> out;
  for (const auto& l : levels) out.push_back({l.name, l.capacity});
  return out;
}

std::vector<int64_t> capacity_bytes(const std::vector<Level>& levels) {
  std::vector<int64_t> out;
  for (const auto& l : levels) out.push_back(static_cast<int64_t>(l.capacity));
  return out;
}

void expect_levels(const std::vector<model::MemoryLevel>& found, const std::vector<Level>& levels,
                   std::optional<double> far, std::string_view far_name) {
  ASSERT_EQ(found.size(), levels.size() + (far ? 1 : 0));
  for (size_t i = 0; i < levels.size(); ++i) {
    EXPECT_EQ(found[i].name, levels[i].name);
    ASSERT_TRUE(found[i].capacity_bytes);
    EXPECT_DOUBLE_EQ(*found[i].capacity_bytes, levels[i].capacity);
    EXPECT_NEAR(found[i].bandwidth / levels[i].bandwidth, 1.0, 0.05) << found[i].name;
  }
  if (far) {
    EXPECT_EQ(found.back().name, far_name);
    EXPECT_FALSE(found.back().capacity_bytes);
    EXPECT_NEAR(found.back().bandwidth / *far, 1.0, 0.05);
  }
}

constexpr double KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// The Intel Xeon VM of issue #34: L1d 48 KiB and L2 2 MiB per core, a 480 MiB L3, two
// threads; the curve ends at 3x the L3, as the memory budget allows there.
TEST(MemoryLevels, FindsEachPlateauOfAnIntelVmWithA480MiBL3) {
  const std::vector<Level> levels = {{"L1", 96 * KiB, 600e9}, {"L2", 4 * MiB, 300e9}, {"L3", 480 * MiB, 120e9}};
  const auto sets = bench::curve_working_sets(32 * 1024, static_cast<int64_t>(3 * 480 * MiB), capacity_bytes(levels));
  const auto found = memory_levels(synthetic_curve(levels, 20e9, sets), capacities(levels), "DRAM");
  expect_levels(found, levels, 20e9, "DRAM");
}

// An AMD EPYC with 3D V-Cache: 1.1 GiB of L3. With memory for 3x of it the DRAM
// plateau is found; a curve that stops at 2 GiB (a smaller budget) has none, and
// says so by leaving DRAM out rather than calling the L3's tail DRAM.
TEST(MemoryLevels, A1_1GiBL3HasADramPlateauOnlyWhenTheCurveReachesBeyondIt) {
  const std::vector<Level> levels = {{"L1", 64 * KiB, 500e9}, {"L2", 2 * MiB, 250e9}, {"L3", 1.1 * GiB, 90e9}};
  const auto far_sets = bench::curve_working_sets(32 * 1024, static_cast<int64_t>(3.3 * GiB), capacity_bytes(levels));
  expect_levels(memory_levels(synthetic_curve(levels, 25e9, far_sets), capacities(levels), "DRAM"), levels, 25e9, "DRAM");
  const auto near_sets = bench::curve_working_sets(32 * 1024, static_cast<int64_t>(2 * GiB), capacity_bytes(levels));
  expect_levels(memory_levels(synthetic_curve(levels, 25e9, near_sets), capacities(levels), "DRAM"), levels, std::nullopt, "DRAM");
}

// The same code for a GPU: a 50 MB L2 in front of HBM.
TEST(MemoryLevels, FindsAGpusL2AndHbm) {
  const std::vector<Level> levels = {{"L2", 50e6, 9e12}};
  const auto sets = bench::curve_working_sets(int64_t{1} << 20, int64_t{400} << 20, capacity_bytes(levels));
  expect_levels(memory_levels(synthetic_curve(levels, 3.3e12, sets), capacities(levels), "HBM"), levels, 3.3e12, "HBM");
}

// A level too narrow for its window (an L2 only twice the L1) takes the points of its
// whole range; a level with no point at all is left out; capacities come in any order.
TEST(MemoryLevels, NarrowLevelsFallBackToTheirRangeAndEmptyOnesAreLeftOut) {
  std::vector<model::BandwidthPoint> points;
  for (double set : {16 * KiB, 24 * KiB, 48 * KiB, 80 * KiB, 1 * MiB, 8 * MiB})
    points.push_back({set, set <= 32 * KiB ? 400e9 : set <= 64 * KiB ? 200e9 : set <= 128 * KiB ? 100e9 : 10e9, {}, 0, 1});
  const auto found = memory_levels(points, {{"L2", 128 * KiB}, {"L1", 64 * KiB}, {"L3", 200 * KiB}}, "DRAM");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "L1");
  EXPECT_DOUBLE_EQ(found[0].bandwidth, 400e9);
  EXPECT_EQ(found[1].name, "L2");
  EXPECT_DOUBLE_EQ(found[1].bandwidth, 100e9);  // its range (64, 128] KiB holds the 80 KiB point
  EXPECT_EQ(found[2].name, "DRAM");             // L3's (128, 200] KiB holds none
  EXPECT_DOUBLE_EQ(found[2].bandwidth, 10e9);
}

TEST(BandwidthCurve, ReadAtInterpolatesInLogOfTheWorkingSet) {
  model::BandwidthCurve curve;
  EXPECT_EQ(curve.read_at(1e6), 0);
  curve.points = {{1e3, 100, {}, 0, 1}, {1e5, 50, {}, 0, 1}, {1e7, 10, {}, 0, 1}};
  EXPECT_DOUBLE_EQ(curve.read_at(10), 100);   // below the range: the first point
  EXPECT_DOUBLE_EQ(curve.read_at(1e3), 100);
  EXPECT_DOUBLE_EQ(curve.read_at(1e4), 75);   // halfway in log between 1e3 and 1e5
  EXPECT_DOUBLE_EQ(curve.read_at(1e5), 50);
  EXPECT_NEAR(curve.read_at(1e6), 30, 1e-9);
  EXPECT_DOUBLE_EQ(curve.read_at(1e9), 10);   // beyond: the last
}

TEST(BandwidthCurve, WorkingSetsAscendFromInsideL1ToTheLargestWithMorePointsNearEachCapacity) {
  const std::vector<int64_t> caps = {96 << 10, 4 << 20, int64_t{480} << 20};
  const auto sets = bench::curve_working_sets(32 << 10, int64_t{1440} << 20, caps);
  ASSERT_GE(sets.size(), 20u);
  EXPECT_EQ(sets.front(), 32 << 10);
  EXPECT_EQ(sets.back(), int64_t{1440} << 20);
  for (size_t i = 1; i < sets.size(); ++i) EXPECT_GT(static_cast<double>(sets[i]), 1.07 * static_cast<double>(sets[i - 1]));
  for (const int64_t c : caps) {  // at least four points within an octave either side
    int near = 0;
    for (const int64_t s : sets) near += s >= c / 2 && s <= 2 * c;
    EXPECT_GE(near, 5) << c;
  }
}

// ---- bench.json -> results.json -------------------------------------------------

nlohmann::json curve_entry(double set, double ms, double copy) {
  return {{"name", fmt::format("curve/cpu/read/{:.0f}/manual_time", set)},
          {"run_name", fmt::format("curve/cpu/read/{:.0f}/manual_time", set)},
          {"run_type", "iteration"}, {"iterations", 1}, {"real_time", ms}, {"cpu_time", ms}, {"time_unit", "ms"},
          {"curve_read_bytes", 1e8}, {"curve_copy_bytes_per_s", copy}, {"working_set_bytes", set},
          {"ceiling_threads", 2}, {"curve_capacity_L1", 64 * KiB}, {"curve_capacity_L2", 2 * MiB}};
}

nlohmann::json ceiling_entry(double ms, int attempt) {
  return {{"name", "ceiling/cpu/copy/real_time"}, {"run_name", "ceiling/cpu/copy/real_time"}, {"run_type", "iteration"},
          {"iterations", 10}, {"real_time", ms}, {"cpu_time", ms}, {"time_unit", "ms"}, {"ceiling_bytes", 2e8},
          {"ceiling_attempt", attempt}};
}

// The DRAM read ceiling over `set` bytes: 2e8 bytes in `ms`.
nlohmann::json read_ceiling_entry(double set, double ms) {
  return {{"name", "ceiling/cpu/read/real_time"}, {"run_name", "ceiling/cpu/read/real_time"}, {"run_type", "iteration"},
          {"iterations", 10}, {"real_time", ms}, {"cpu_time", ms}, {"time_unit", "ms"}, {"ceiling_bytes", 2e8},
          {"working_set_bytes", set}};
}

nlohmann::json curve_bench(const std::vector<nlohmann::json>& ceilings) {
  nlohmann::json b = nlohmann::json::array();
  for (const auto& c : ceilings) b.push_back(c);
  // 1e8 bytes per repetition: 1 ms is 100 GB/s
  for (double set : {16 * KiB, 32 * KiB, 256 * KiB, 1 * MiB, 8 * MiB, 16 * MiB})
    for (double ms : {set <= 32 * KiB ? 0.5 : set <= 1 * MiB ? 1.0 : 5.0, 0.6 * (set <= 32 * KiB ? 1 : set <= 1 * MiB ? 2 : 10)})
      b.push_back(curve_entry(set, ms, 1e10));
  return {{"context", {{"host_name", "test"}}}, {"benchmarks", b}};
}

TEST(BandwidthCurve, TravelsFromBenchJsonIntoResultsAndBack) {
  // No L3 capacity beside the points: the read ceiling's working set says where DRAM
  // starts (issue 47 #17), here 8 MiB at 20 GB/s.
  const auto doc = parse_bench_json(test::as_measured(curve_bench({ceiling_entry(10, 0), read_ceiling_entry(8 * MiB, 10)})), "test");
  const model::Results results = build_results(doc, {});
  ASSERT_TRUE(results.bandwidth_curve);
  const auto& curve = *results.bandwidth_curve;
  EXPECT_EQ(curve.backend, "cpu");
  EXPECT_EQ(curve.threads, 2);
  ASSERT_EQ(curve.points.size(), 6u);
  EXPECT_DOUBLE_EQ(curve.points.front().read, 200e9);  // the best of 0.5 and 0.6 ms
  EXPECT_NEAR(curve.points.front().spread, 1 - 0.5 / 0.6, 1e-12);
  EXPECT_EQ(curve.points.front().repetitions, 2);
  EXPECT_DOUBLE_EQ(*curve.points.front().copy, 1e10);
  ASSERT_EQ(curve.levels.size(), 3u);
  EXPECT_EQ(curve.levels[0].name, "L1");
  EXPECT_DOUBLE_EQ(curve.levels[0].bandwidth, 200e9);
  EXPECT_EQ(curve.levels[1].name, "L2");
  EXPECT_DOUBLE_EQ(curve.levels[1].bandwidth, 100e9);
  EXPECT_EQ(curve.levels[2].name, "DRAM");
  EXPECT_DOUBLE_EQ(curve.levels[2].bandwidth, 20e9);
  const model::Results back = model::results_from_json(model::to_json(results), "round.json");
  ASSERT_TRUE(back.bandwidth_curve);
  EXPECT_EQ(model::to_json(back), model::to_json(results));
}

// The GPU's curve as bench/bandwidth_curve_cuda.cu writes it (points curve/cuda/read/<bytes>
// from 1 MiB to 4 x L2, the launched threads, the L2 capacity beside each point; without a
// GPU one curve/cuda/read that skipped with the reason) becomes a cuda curve with an L2
// and an HBM level. Synthetic rates (H200-like: 50 MB L2 at 9 TB/s, HBM at 3.3 TB/s): the
// benchmark itself has never run on a GPU.
TEST(BandwidthCurve, AGpuCurveFromBenchJsonHasL2AndHbmLevels) {
  const std::vector<Level> levels = {{"L2", 50e6, 9e12}};
  const auto sets = bench::curve_working_sets(int64_t{1} << 20, 4 * static_cast<int64_t>(50e6), capacity_bytes(levels));
  const auto points = synthetic_curve(levels, 3.3e12, sets);
  nlohmann::json b = nlohmann::json::array();
  b.push_back({{"name", "ceiling/cuda/dram_read/manual_time"}, {"run_name", "ceiling/cuda/dram_read/manual_time"},
               {"run_type", "iteration"}, {"iterations", 1}, {"real_time", 1.0}, {"cpu_time", 1.0}, {"time_unit", "ms"},
               {"ceiling_bytes", 3.3e9}});
  for (const auto& p : points) {
    const std::string name = fmt::format("curve/cuda/read/{:.0f}/manual_time", p.working_set_bytes);
    const double bytes = 1e9;
    for (double slower : {1.0, 1.1})
      b.push_back({{"name", name}, {"run_name", name}, {"run_type", "iteration"}, {"iterations", 1},
                   {"real_time", slower * bytes / p.read * 1e3}, {"cpu_time", 0.01}, {"time_unit", "ms"},
                   {"curve_read_bytes", bytes}, {"working_set_bytes", p.working_set_bytes},
                   {"ceiling_threads", 132 * 8 * 256}, {"curve_capacity_L2", 50e6}});
  }
  b.push_back({{"name", "curve/cuda/read"}, {"run_name", "curve/cuda/read"}, {"run_type", "iteration"},
               {"iterations", 0}, {"real_time", 0}, {"cpu_time", 0}, {"time_unit", "ms"}, {"error_occurred", true},
               {"error_message", "no CUDA device"}});
  const nlohmann::json doc = {{"context", {{"host_name", "test"}}}, {"benchmarks", b}};
  const model::Results results = build_results(parse_bench_json(test::as_measured(doc), "test"), {});
  ASSERT_TRUE(results.bandwidth_curve);
  const auto& curve = *results.bandwidth_curve;
  EXPECT_EQ(curve.backend, "cuda");
  EXPECT_EQ(curve.threads, 132 * 8 * 256);
  EXPECT_EQ(curve.points.size(), points.size());
  EXPECT_NEAR(curve.points.front().read, points.front().read, 1e-9 * points.front().read);  // the best repetition
  expect_levels(curve.levels, levels, 3.3e12, "HBM");
  ASSERT_EQ(results.skipped.size(), 1u);
  EXPECT_EQ(results.skipped[0].reason, "no CUDA device");
}

TEST(CeilingRepeats, SpreadIsRecordedAndASecondAttemptThatStillDisagreesIsUnstable) {
  {  // one attempt, 10 and 11 ms: spread 1/11, stable
    const auto r = build_results(parse_bench_json(test::as_measured(curve_bench({ceiling_entry(10, 0), ceiling_entry(11, 0)})), "t"), {});
    ASSERT_EQ(r.ceilings.size(), 1u);
    EXPECT_EQ(*r.ceilings[0].repeats, 2);
    EXPECT_NEAR(*r.ceilings[0].spread, 1 - 10.0 / 11, 1e-12);
    EXPECT_FALSE(r.ceilings[0].unstable);
  }
  {  // the first attempt spread 50%, the second agreed: stable, the best of all is the roof
    const auto r = build_results(parse_bench_json(test::as_measured(curve_bench(
        {ceiling_entry(10, 0), ceiling_entry(20, 0), ceiling_entry(12, 1), ceiling_entry(12.5, 1)})), "t"), {});
    EXPECT_EQ(*r.ceilings[0].repeats, 2);
    EXPECT_NEAR(*r.ceilings[0].spread, 1 - 12 / 12.5, 1e-12);
    EXPECT_FALSE(r.ceilings[0].unstable);
    EXPECT_DOUBLE_EQ(r.ceilings[0].value, 20e9);
    EXPECT_NE(r.ceilings[0].detail.find("measured again"), std::string::npos);
  }
  {  // both attempts spread: unstable, and results.json says so
    const auto r = build_results(parse_bench_json(test::as_measured(curve_bench(
        {ceiling_entry(10, 0), ceiling_entry(20, 0), ceiling_entry(10, 1), ceiling_entry(30, 1)})), "t"), {});
    EXPECT_TRUE(r.ceilings[0].unstable);
    const auto j = model::to_json(r);
    EXPECT_EQ(j["ceilings"][0]["unstable"], true);
    EXPECT_TRUE(model::results_from_json(j, "round.json").ceilings[0].unstable);
  }
}

// results.json's curve and ceiling fields: each hostile value is refused, naming its field.
TEST(BandwidthCurve, ReaderRefusesEveryBadField) {
  // The read ceiling's working set says where DRAM starts (no L3 capacity beside the points).
  const auto good = model::to_json(build_results(
      parse_bench_json(test::as_measured(curve_bench({ceiling_entry(10, 0), ceiling_entry(11, 0), read_ceiling_entry(8 * MiB, 10)})), "test"),
      {}));
  ASSERT_NO_THROW(model::results_from_json(good, "good.json"));
  struct Case {
    std::string pointer;
    nlohmann::json value;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {"/bandwidth_curve/backend", "cuda", "a cuda curve in a cpu results file"},
      {"/bandwidth_curve/threads", 0, "/bandwidth_curve/threads"},
      {"/bandwidth_curve/points", nlohmann::json::array({good["bandwidth_curve"]["points"][0]}), "at least two points"},
      {"/bandwidth_curve/points/1/working_set_bytes", 1, "ascend"},
      {"/bandwidth_curve/points/0/read", 1e-320, "/bandwidth_curve/points/0/read"},
      {"/bandwidth_curve/points/0/read", 1e30, "between"},
      {"/bandwidth_curve/points/0/copy", -1, "/bandwidth_curve/points/0/copy"},
      {"/bandwidth_curve/points/0/spread", 1.5, "/bandwidth_curve/points/0/spread"},
      {"/bandwidth_curve/points/0/repetitions", 0, "/bandwidth_curve/points/0/repetitions"},
      {"/bandwidth_curve/levels/0/name", "L9", "/bandwidth_curve/levels/0/name"},
      {"/bandwidth_curve/levels/0/capacity_bytes", nullptr, "needs its capacity_bytes"},
      {"/bandwidth_curve/levels/1/capacity_bytes", 1, "ascend by capacity"},
      {"/bandwidth_curve/levels/2/capacity_bytes", 1e12, "DRAM has no capacity"},
      {"/bandwidth_curve/levels/0/name", "DRAM", "DRAM has no capacity"},
      {"/bandwidth_curve/levels/1/name", "L1", "appears twice"},
      {"/bandwidth_curve/levels/0/bandwidth", "fast", "/bandwidth_curve/levels/0/bandwidth"},
      {"/ceilings/0/spread", 2, "/ceilings/0/spread"},
      {"/ceilings/0/repeats", 0, "/ceilings/0/repeats"},
      {"/ceilings/0/unstable", true, "unstable only when its spread is above"},
  };
  for (const auto& c : cases) {
    nlohmann::json doc = good;
    doc[nlohmann::json::json_pointer(c.pointer)] = c.value;
    try {
      model::results_from_json(doc, "bad.json");
      ADD_FAILURE() << c.pointer << " = " << c.value.dump() << " was accepted";
    } catch (const model::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << c.pointer << ": " << e.what();
    }
  }
  nlohmann::json no_spread = good;
  no_spread["ceilings"][0].erase("spread");
  EXPECT_THROW(model::results_from_json(no_spread, "bad.json"), model::InputError);
  nlohmann::json old_file = good;  // files from before the curve read as "not measured"
  old_file.erase("bandwidth_curve");
  old_file["ceilings"][0].erase("spread"), old_file["ceilings"][0].erase("repeats"), old_file["ceilings"][0].erase("unstable");
  const auto old = model::results_from_json(old_file, "old.json");
  EXPECT_FALSE(old.bandwidth_curve);
  EXPECT_FALSE(old.ceilings[0].repeats);
}

// ---- the curve against the level ceilings (analysis/roofs/curve_agreement.h) ------

struct MachineShape {
  const char* name;
  std::string backend;
  std::vector<Level> levels;  // the capacities the curve's threads use, ascending
  double far;                 // DRAM / HBM B/s
  std::string far_name;
};

// The machines lmroof is checked on, and a GPU: the 2-vCPU AMD EPYC (L1d 32 KiB, L2
// 1 MiB per core, a 32 MiB L3), the Intel Xeon VM of issue #34 (a 480 MiB L3), an EPYC
// with 3D V-Cache (1.1 GiB of L3), an H100-like GPU (a 50 MB L2 in front of HBM).
std::vector<MachineShape> shapes() {
  return {{"AMD EPYC, 32 MiB L3", "cpu", {{"L1", 64 * KiB, 400e9}, {"L2", 2 * MiB, 230e9}, {"L3", 32 * MiB, 180e9}}, 55e9, "DRAM"},
          {"Intel Xeon, 480 MiB L3", "cpu", {{"L1", 96 * KiB, 600e9}, {"L2", 4 * MiB, 330e9}, {"L3", 480 * MiB, 120e9}}, 40e9, "DRAM"},
          {"AMD EPYC 3D V-Cache, 1.1 GiB L3", "cpu", {{"L1", 64 * KiB, 500e9}, {"L2", 2 * MiB, 260e9}, {"L3", 1.1 * GiB, 150e9}}, 60e9, "DRAM"},
          {"GPU, 50 MB L2", "cuda", {{"L2", 50e6, 7e12}}, 3e12, "HBM"}};
}

// The curve of `shape` with every rate times `scale`, its levels found as analysis does.
model::BandwidthCurve curve_of(const MachineShape& shape, double scale) {
  model::BandwidthCurve curve;
  curve.backend = shape.backend;
  curve.threads = 2;
  const double outer = shape.levels.back().capacity;
  curve.points = synthetic_curve(shape.levels, shape.far,
                                 bench::curve_working_sets(16 * 1024, static_cast<int64_t>(3 * outer), capacity_bytes(shape.levels)));
  for (auto& p : curve.points) p.read *= scale;
  curve.levels = memory_levels(curve.points, capacities(shape.levels), shape.far_name);
  return curve;
}

// The level ceilings as the ceilings measure them: each level's read sweep at a quarter
// of its capacity, DRAM / HBM at 4x the outermost cache, the true (unscaled) rate
// there, the best of repeats that spread `spread`.
std::vector<model::Ceiling> ceilings_of(const MachineShape& shape, double spread) {
  const model::BandwidthCurve truth = curve_of(shape, 1.0);
  std::vector<model::Ceiling> out;
  auto add = [&](const std::string& level, double set) {
    model::Ceiling c;
    c.name = *level_ceiling_name(level, shape.backend);
    c.backend = shape.backend;
    c.working_set_bytes = set;
    c.value = truth.read_at(set);
    c.spread = spread;
    c.repeats = 5;
    out.push_back(c);
  };
  for (const auto& l : shape.levels) add(l.name, l.capacity / 4);
  add(shape.far_name, 4 * shape.levels.back().capacity);
  return out;
}

TEST(CurveAgreement, ACurveThatMatchesItsCeilingsIsStableOnEveryShape) {
  for (const auto& shape : shapes()) {
    model::BandwidthCurve curve = curve_of(shape, 1.0);
    check_curve_against_ceilings(curve, ceilings_of(shape, 0.02));
    ASSERT_EQ(curve.agreement.size(), shape.levels.size() + 1) << shape.name;
    for (const auto& a : curve.agreement) {
      EXPECT_TRUE(a.agrees) << shape.name << " " << a.level << " ratio " << a.ratio;
      EXPECT_NEAR(a.tolerance, rules::kCurveCeilingAgreement + 0.02, 0.011) << shape.name;
    }
    EXPECT_FALSE(curve.unstable) << shape.name;
    EXPECT_FALSE(curve.unstable_reason) << shape.name;
    EXPECT_EQ(curve_set_aside_line(curve), "");
  }
}

// Issue #34's run: every point's repeats agreed, the whole curve sat 41-54% below the
// ceilings. 40% low must make the curve unstable on every shape, and so must 40% high.
TEST(CurveAgreement, ACurveFortyPercentLowOrHighIsUnstableOnEveryShape) {
  for (const auto& shape : shapes())
    for (const double scale : {0.6, 1.4}) {
      model::BandwidthCurve curve = curve_of(shape, scale);
      check_curve_against_ceilings(curve, ceilings_of(shape, 0.02));
      EXPECT_TRUE(curve.unstable) << shape.name << " x" << scale;
      ASSERT_TRUE(curve.unstable_reason) << shape.name;
      EXPECT_NE(curve.unstable_reason->find(scale < 1 ? "below" : "above"), std::string::npos) << *curve.unstable_reason;
      for (const auto& a : curve.agreement) {
        EXPECT_FALSE(a.agrees) << shape.name << " " << a.level;
        EXPECT_NEAR(a.ratio, scale, 0.05) << shape.name << " " << a.level;
      }
      EXPECT_NE(curve_set_aside_line(curve).find("judged at the level ceilings"), std::string::npos);
    }
}

// The tolerance widens by the repeats' own spread: a ceiling whose repeats spread 12%
// is not held to agree within 15% alone; and nothing to check leaves the curve alone.
TEST(CurveAgreement, TheRepeatsSpreadWidensTheToleranceAndMissingCeilingsLeaveItAlone) {
  const MachineShape shape = shapes().front();
  model::BandwidthCurve curve = curve_of(shape, 0.78);
  check_curve_against_ceilings(curve, ceilings_of(shape, 0.0));
  EXPECT_TRUE(curve.unstable);  // 22% below, beyond 15%
  check_curve_against_ceilings(curve, ceilings_of(shape, 0.12));
  EXPECT_FALSE(curve.unstable);  // within 15% + 12%
  check_curve_against_ceilings(curve, {});
  EXPECT_TRUE(curve.agreement.empty());
  EXPECT_FALSE(curve.unstable);
  // A ceiling without its working set cannot be placed on the curve: not checked.
  auto ceilings = ceilings_of(shape, 0.0);
  for (auto& c : ceilings) c.working_set_bytes.reset();
  check_curve_against_ceilings(curve, ceilings);
  EXPECT_TRUE(curve.agreement.empty());
}

// An unstable curve judges no run: the memory rules take the level ceilings, and the
// rule says why; a stable one judges at the curve.
TEST(CurveAgreement, AnUnstableCurveIsSetAsideAndRunsAreJudgedAtTheCeilings) {
  const MachineShape shape = shapes().front();
  MachineRoofs roofs;
  roofs.threads = 2;
  roofs.fp32_fma = 200e9;
  roofs.read = 55e9;
  roofs.copy_nt = 70e9;
  for (const auto& c : ceilings_of(shape, 0.02))
    if (c.name != "read")
      roofs.caches.push_back({c.name, shape.levels[static_cast<size_t>(c.name[1] - '1')].capacity, c.value});
  Traffic t;  // a read of 8 MiB (in L3), no FLOPs
  t.bytes_read = 8 * MiB;
  t.working_set_bytes = 8 * MiB;
  roofs.curve = curve_of(shape, 0.6);
  const auto at_curve = choose_roof(t, roofs);
  ASSERT_TRUE(at_curve);
  EXPECT_EQ(at_curve->roof, "L3 curve");
  roofs.curve.reset();
  roofs.curve_set_aside = "the bandwidth curve disagrees with the level ceilings";
  const auto at_ceilings = choose_roof(t, roofs);
  ASSERT_TRUE(at_ceilings);
  EXPECT_EQ(at_ceilings->roof, "l3_read");
  EXPECT_NEAR(at_ceilings->value / at_curve->value, 1 / 0.6, 0.1);  // the low curve would have judged 1.67x too low
  EXPECT_NE(at_ceilings->rule.find("disagrees with the level ceilings"), std::string::npos) << at_ceilings->rule;
}

// A probed run's own roofs are the best probes, not their median (issue #34's follow-up):
// a run is not put above its roof only because the probes' median was low, and a run
// above the best probe is still above its roof.
TEST(ProbedRoofs, AreTheBestProbeNotTheMedian) {
  MachineRoofs roofs;
  roofs.read = 55e9;
  roofs.copy = 40e9;
  roofs.copy_nt = 70e9;
  model::DramProbe probe{30e9, 40e9, 5, std::nullopt, std::nullopt};
  EXPECT_DOUBLE_EQ(*with_probed_dram(roofs, probe).read, 30e9);  // older files: the medians
  probe.read_best = 50e9;
  probe.copy_nt_best = 60e9;
  const MachineRoofs probed = with_probed_dram(roofs, probe);
  EXPECT_DOUBLE_EQ(*probed.read, 50e9);
  EXPECT_DOUBLE_EQ(*probed.copy_nt, 60e9);
  EXPECT_FALSE(probed.copy);
  Traffic t;  // 1 GiB read once from DRAM
  t.bytes_read = 1 * GiB;
  t.working_set_bytes = 1 * GiB;
  const auto roof = choose_roof(t, probed);
  ASSERT_TRUE(roof);
  EXPECT_DOUBLE_EQ(roof->value, 50e9);
  // A run at 45 GB/s: 150% of the median probe, 90% of the best: no fault.
  EXPECT_LT(roof->seconds / (t.bytes_read / 45e9), model::kAboveRoofFault);
  // A run at 60 GB/s is above the best probe too: still a fault.
  EXPECT_GT(roof->seconds / (t.bytes_read / 60e9), model::kAboveRoofFault);
}

// bench.json -> results.json: points measured in sweeps before (phase 0) and after the
// suite (phase 1) and again (attempt 1); the best of all is the point, the spread is
// the last attempt's within a phase, and a point still spread after a re-measurement
// is unstable.
nlohmann::json point_entry(double set, double ms, int phase, int attempt) {
  nlohmann::json e = curve_entry(set, ms, 1e10);
  e["ceiling_phase"] = phase;
  if (attempt > 0) e["ceiling_attempt"] = attempt;
  return e;
}

model::Results results_of(const std::vector<nlohmann::json>& entries) {
  nlohmann::json b = nlohmann::json::array({ceiling_entry(10, 0)});  // a results file holds a ceiling or a run
  for (const auto& e : entries) b.push_back(e);
  return build_results(parse_bench_json(test::as_measured({{"context", {{"host_name", "test"}}}, {"benchmarks", b}}), "t"), {});
}

TEST(CurvePoints, AreTheBestOfRepeatsSpreadInTimeAndReMeasuredBeyondTheBound) {
  const double set = 16 * KiB, other = 16 * MiB;
  {  // phase 0 all 40% slow but in agreement (issue #34's run), phase 1 right: the best is phase 1's
    const auto r = results_of({point_entry(set, 1.0, 0, 0), point_entry(set, 1.02, 0, 0), point_entry(set, 0.6, 1, 0),
                               point_entry(set, 0.61, 1, 0), point_entry(other, 5, 0, 0), point_entry(other, 5, 1, 0)});
    const auto& p = r.bandwidth_curve->points.front();
    EXPECT_DOUBLE_EQ(p.read, 1e8 / 0.6e-3);
    EXPECT_EQ(p.repetitions, 4);
    EXPECT_NEAR(p.spread, 1 - 1.0 / 1.02, 1e-12);  // within a phase, the larger
    EXPECT_FALSE(p.unstable);
  }
  {  // the first attempt spread 50%, the re-measurement agreed: stable, its spread recorded
    const auto r = results_of({point_entry(set, 1.0, 0, 0), point_entry(set, 2.0, 0, 0), point_entry(set, 1.0, 0, 1),
                               point_entry(set, 1.05, 0, 1), point_entry(other, 5, 0, 0)});
    const auto& p = r.bandwidth_curve->points.front();
    EXPECT_NEAR(p.spread, 1 - 1.0 / 1.05, 1e-12);
    EXPECT_FALSE(p.unstable);
    EXPECT_DOUBLE_EQ(p.read, 1e8 / 1e-3);
  }
  {  // still spread after the re-measurement: unstable, and results.json keeps it
    const auto r = results_of({point_entry(set, 1.0, 0, 0), point_entry(set, 2.0, 0, 0), point_entry(set, 1.0, 0, 1),
                               point_entry(set, 1.6, 0, 1), point_entry(other, 5, 0, 0)});
    EXPECT_TRUE(r.bandwidth_curve->points.front().unstable);
    const auto j = model::to_json(r);
    EXPECT_EQ(j["bandwidth_curve"]["points"][0]["unstable"], true);
    EXPECT_TRUE(model::results_from_json(j, "round.json").bandwidth_curve->points.front().unstable);
  }
}

// The whole path: a curve 40% below the level ceilings in bench.json comes out of
// analysis unstable, with its agreement, and survives results.json's reader; the
// reader refuses an agreement that contradicts itself.
TEST(CurvePoints, ACurveFarBelowItsCeilingsIsMarkedUnstableInResults) {
  auto ceiling = [](const std::string& name, double set, double cache, double ms) {
    return nlohmann::json{{"name", "ceiling/cpu/" + name + "/real_time"}, {"run_name", "ceiling/cpu/" + name + "/real_time"},
                          {"run_type", "iteration"}, {"iterations", 10}, {"real_time", ms}, {"cpu_time", ms},
                          {"time_unit", "ms"}, {"ceiling_bytes", 1e8}, {"working_set_bytes", set},
                          {"cache_bytes", cache}, {"ceiling_threads", 2}};
  };
  // curve_bench's points read 200 GB/s in L1 and 100 GB/s in L2; ceilings at 333 and 167 GB/s.
  std::vector<nlohmann::json> entries = {ceiling("l1_read", 16 * KiB, 64 * KiB, 0.3), ceiling("l2_read", 256 * KiB, 2 * MiB, 0.6)};
  const nlohmann::json points = curve_bench({});
  for (const auto& e : points["benchmarks"]) entries.push_back(e);
  const auto r = results_of(entries);
  ASSERT_TRUE(r.bandwidth_curve);
  EXPECT_TRUE(r.bandwidth_curve->unstable);
  ASSERT_EQ(r.bandwidth_curve->agreement.size(), 2u);
  EXPECT_NEAR(r.bandwidth_curve->agreement[0].ratio, 0.6, 1e-9);
  EXPECT_NE(r.bandwidth_curve->unstable_reason->find("L1 reads 200 GB/s at l1_read's working set"), std::string::npos)
      << *r.bandwidth_curve->unstable_reason;
  const auto j = model::to_json(r);
  EXPECT_EQ(j["bandwidth_curve"]["unstable"], true);
  const auto back = model::results_from_json(j, "round.json");
  EXPECT_TRUE(back.bandwidth_curve->unstable);
  for (const auto& [pointer, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"/bandwidth_curve/unstable", false}, {"/bandwidth_curve/agreement/0/agrees", true},
           {"/bandwidth_curve/agreement/0/ratio", 0.9}, {"/bandwidth_curve/unstable_reason", nullptr}}) {
    nlohmann::json bad = j;
    bad[nlohmann::json::json_pointer(pointer)] = value;
    EXPECT_THROW(model::results_from_json(bad, "bad.json"), model::InputError) << pointer;
  }
}

// ---- the memory budget ------------------------------------------------------------

class CacheSizesEnv : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("LMROOF_CACHE_SIZES"); }
};

TEST_F(CacheSizesEnv, OverridesTheLevelsItNamesAndKeepsTheOthers) {
  const bench::CacheLevel l1 = bench::cache_level(1);
  setenv("LMROOF_CACHE_SIZES", "L3=1G,L2=3M", 1);
  EXPECT_EQ(bench::cache_level(3).bytes, int64_t{1} << 30);
  EXPECT_STREQ(bench::cache_level(3).source, "override");
  EXPECT_EQ(bench::cache_level(2).bytes, 3 << 20);
  EXPECT_EQ(bench::cache_level(1).bytes, l1.bytes);
  setenv("LMROOF_CACHE_SIZES", "L3=0", 1);
  EXPECT_EQ(bench::cache_level(3).bytes, 0);
  for (const char* bad : {"L3", "L4=1M", "L3=1T", "L3=-1", "L3=1MB", "L3=2048G", "X", "L3=1G,", "L3=99999999999999",
                          // the shift of G would overflow int64: read as no L3, or as 1 GiB (issue 47 #13)
                          "L3=8589934592G", "L3=17179869185G", "L3=1025G", "L2=1073741825M"}) {
    setenv("LMROOF_CACHE_SIZES", bad, 1);
    try {
      bench::cache_level(3);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("LMROOF_CACHE_SIZES="), std::string::npos) << e.what();
    }
  }
}

TEST(MemoryBudget, SizesReadAsAPersonWouldWriteThem) {
  EXPECT_EQ(bench::readable_bytes(1e5), "0.1 MB");
  EXPECT_EQ(bench::readable_bytes(40), "40 B");  // not "0.0 kB" (issue 47, also seen)
  EXPECT_EQ(bench::readable_bytes(512e6), "512.0 MB");
  EXPECT_EQ(bench::readable_bytes(17.9e9), "17.90 GB");
  EXPECT_EQ(bench::readable_bytes(2048), "2.0 kB");
}

class MemoryLimitEnv : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("LMROOF_MEMORY_LIMIT"); }
};

// issue 47, also seen: 999999999999999999 was "not a positive number", 1e-300 "0.0 kB".
TEST_F(MemoryLimitEnv, EachBadLimitSaysWhatIsWrongWithIt) {
  setenv("LMROOF_MEMORY_LIMIT", "2e8", 1);
  EXPECT_EQ(bench::available_memory_bytes(), 2e8);
  const std::pair<const char*, const char*> cases[] = {{"999999999999999999", "1e18 bytes or more"},
                                                       {"1e-300", "less than one byte"},
                                                       {"0", "less than one byte"},
                                                       {"-5", "less than one byte"},
                                                       {"lots", "not a number"},
                                                       {"nan", "not a number"},
                                                       {"1e400", "not a number"}};
  for (const auto& [value, words] : cases) {
    setenv("LMROOF_MEMORY_LIMIT", value, 1);
    try {
      bench::available_memory_bytes();
      ADD_FAILURE() << value << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << value << ": " << e.what();
    }
  }
}

// ---- issue 47 #17: the L3's size unknown ------------------------------------------

// An EPYC-like curve (L1 64 KiB, L2 2 MiB, a 32 MiB L3 at 60 GB/s, DRAM at 20 GB/s)
// whose L3 size the OS does not report: past 2x the L2 the points sit in the L3 up to
// 32 MiB. Told where DRAM starts, the DRAM level is DRAM's; left to 2x the last known
// capacity, it was the L3's (the defect's 167 GB/s against a 61.5 GB/s read ceiling).
TEST(MemoryLevels, AnUnknownL3IsNotReadAsDram) {
  const std::vector<Level> levels = {{"L1", 64 * KiB, 400e9}, {"L2", 2 * MiB, 230e9}, {"L3", 32 * MiB, 60e9}};
  const auto sets = bench::curve_working_sets(16 * 1024, static_cast<int64_t>(256 * MiB), capacity_bytes(levels));
  const auto points = synthetic_curve(levels, 20e9, sets);
  const std::vector<CacheCapacity> known = {{"L1", 64 * KiB}, {"L2", 2 * MiB}};
  const auto guessed = memory_levels(points, known, "DRAM");
  ASSERT_EQ(guessed.back().name, "DRAM");
  EXPECT_GT(guessed.back().bandwidth, 30e9);  // the old rule: L3 points in the DRAM level
  const auto found = memory_levels(points, known, "DRAM", 128 * MiB);
  ASSERT_EQ(found.back().name, "DRAM");
  EXPECT_NEAR(found.back().bandwidth / 20e9, 1.0, 0.05);
  EXPECT_EQ(memory_levels(points, known, "DRAM", std::numeric_limits<double>::infinity()).back().name, "L2");
}

// Through bench.json: no L3 capacity beside the points, so the DRAM level comes from the
// points at least as large as the read ceiling's working set; without a read ceiling,
// no DRAM level at all.
TEST(BandwidthCurve, WithTheL3UnknownTheDramLevelComesFromDramSizedPointsOnly) {
  nlohmann::json b = nlohmann::json::array({ceiling_entry(10, 0)});  // a copy ceiling: the file holds a ceiling
  // 1e8 bytes per repetition: 1 ms is 100 GB/s. L1 200, L2 100, "L3" 60, DRAM 20 GB/s.
  for (double set : {16 * KiB, 32 * KiB, 256 * KiB, 1 * MiB, 8 * MiB, 16 * MiB, 32 * MiB, 64 * MiB, 128 * MiB, 256 * MiB}) {
    const double ms = set <= 32 * KiB ? 0.5 : set <= 1 * MiB ? 1.0 : set <= 32 * MiB ? 100.0 / 60 : 5.0;
    b.push_back(curve_entry(set, ms, 1e10));
  }
  nlohmann::json with_read = b;
  with_read.push_back(read_ceiling_entry(128 * MiB, 10));  // 2e8 bytes in 10 ms: 20 GB/s
  const auto results = build_results(parse_bench_json(test::as_measured({{"context", {{"host_name", "t"}}}, {"benchmarks", with_read}}), "t"), {});
  ASSERT_TRUE(results.bandwidth_curve);
  const auto& levels = results.bandwidth_curve->levels;
  ASSERT_EQ(levels.back().name, "DRAM");
  EXPECT_NEAR(levels.back().bandwidth, 20e9, 1e6);  // not the median of 60 and 20 GB/s points
  EXPECT_FALSE(results.bandwidth_curve->unstable) << results.bandwidth_curve->unstable_reason.value_or("");
  const auto without = build_results(parse_bench_json(test::as_measured({{"context", {{"host_name", "t"}}}, {"benchmarks", b}}), "t"), {});
  EXPECT_EQ(without.bandwidth_curve->levels.back().name, "L2");
}

// A level whose own rate disagrees with its ceiling marks the curve unstable, even
// where the curve at the ceiling's working set agrees (the DRAM level read off the L3).
TEST(CurveAgreement, ALevelThatDisagreesWithItsCeilingMakesTheCurveUnstable) {
  const MachineShape shape = shapes().front();
  model::BandwidthCurve curve = curve_of(shape, 1.0);
  curve.levels.back().bandwidth *= 3;  // DRAM read at an L3 rate
  check_curve_against_ceilings(curve, ceilings_of(shape, 0.02));
  EXPECT_TRUE(curve.unstable);
  ASSERT_TRUE(curve.unstable_reason);
  EXPECT_NE(curve.unstable_reason->find("the DRAM level reads"), std::string::npos) << *curve.unstable_reason;
  const auto& dram = curve.agreement.back();
  EXPECT_EQ(dram.level, "DRAM");
  EXPECT_NEAR(dram.ratio, 1.0, 0.05);  // the curve at read's working set agrees
  EXPECT_FALSE(dram.agrees);
  ASSERT_TRUE(dram.level_value);
}

// ---- issue 47 #12: results.json's curve cross-checked on read ----------------------

nlohmann::json example_results() {
  return model::read_json_file(std::string(LMROOF_SOURCE_DIR) +
                               "/docs/examples/2026-12-05-cpu-amd-epyc-zen5-2core/results.json");
}

TEST(BandwidthCurve, TheReaderChecksLevelsAgainstPointsAgreementAgainstCeilingsAndRunsAgainstBoth) {
  const nlohmann::json good = example_results();
  ASSERT_NO_THROW(model::results_from_json(good, "good.json"));
  const auto& curve = good["bandwidth_curve"];
  using Mutation = std::function<void(nlohmann::json&)>;
  const std::vector<std::pair<Mutation, std::string>> cases = {
      // levels x100: the roofline drew "DRAM read: 7.18 TB/s"
      {[](nlohmann::json& d) { for (auto& l : d["bandwidth_curve"]["levels"]) l["bandwidth"] = l["bandwidth"].get<double>() * 100; },
       "/bandwidth_curve/levels/0/bandwidth: is"},
      // L1 and L3 swapped
      {[&](nlohmann::json& d) {
         d["bandwidth_curve"]["levels"][0]["bandwidth"] = curve["levels"][2]["bandwidth"];
         d["bandwidth_curve"]["levels"][2]["bandwidth"] = curve["levels"][0]["bandwidth"];
       },
       "outside the"},
      {[](nlohmann::json& d) { d["bandwidth_curve"]["agreement"][0]["ceiling"] = "l9_read"; }, "names no ceiling of this file ('l9_read')"},
      {[](nlohmann::json& d) { d["bandwidth_curve"]["agreement"][1]["level"] = "L3"; },
       "/bandwidth_curve/agreement/1/ceiling: level 'L3' is checked against 'l3_read', not 'l2_read'"},
      {[](nlohmann::json& d) {
         auto& a = d["bandwidth_curve"]["agreement"][0];
         a["ceiling_value"] = a["ceiling_value"].get<double>() * 2;
         a["ratio"] = a["curve_value"].get<double>() / a["ceiling_value"].get<double>();
         a["agrees"] = false;
         d["bandwidth_curve"]["unstable"] = true;
         d["bandwidth_curve"]["unstable_reason"] = "made up";
       },
       "the value of ceiling 'l1_read'"},
      // 2% off: ratio and agrees stay consistent, only the points say otherwise
      {[](nlohmann::json& d) { d["bandwidth_curve"]["agreement"][2]["curve_value"] = d["bandwidth_curve"]["agreement"][2]["curve_value"].get<double>() * 1.02;
                               d["bandwidth_curve"]["agreement"][2]["ratio"] = d["bandwidth_curve"]["agreement"][2]["ratio"].get<double>() * 1.02; },
       "the curve's points' rate there"},
      // also seen: a denormal roof value, an unknown roof or level
      {[](nlohmann::json& d) { d["runs"][0]["judged_against"]["value"] = 5e-324; }, "/runs/0/judged_against/value"},
      {[](nlohmann::json& d) { d["runs"][0]["judged_against"]["roof"] = "copy_nt+L9 curve"; }, "'L9 curve' names neither a ceiling"},
      {[](nlohmann::json& d) { d["runs"][0]["judged_against"]["roof"] = "warp_drive"; }, "'warp_drive' names neither"},
      {[](nlohmann::json& d) { d["runs"][0]["judged_against"]["level"] = "L9"; }, "/runs/0/judged_against/level"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    nlohmann::json doc = good;
    cases[i].first(doc);
    try {
      model::results_from_json(doc, "bad.json");
      ADD_FAILURE() << "case " << i << " (" << cases[i].second << ") was accepted";
    } catch (const model::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(cases[i].second), std::string::npos) << "case " << i << ": " << e.what();
    }
  }
}

// The DRAM arrays on this machine stay within the budget's rule whatever its caches.
TEST(MemoryBudget, DramArraysFollowTheRule) {
  const auto& b = bench::memory_budget();
  const int64_t outer = bench::outermost_cache_bytes();
  EXPECT_GE(b.dram_array_bytes, bench::kDramArrayFloorBytes);
  EXPECT_LE(b.dram_array_bytes, std::max({bench::kDramArrayFloorBytes, bench::kDramArrayCapBytes, 2 * outer}));
  EXPECT_LE(b.dram_array_bytes, std::max<double>(bench::kDramArrayFloorBytes,
                                                 bench::kAvailableShareForArrays * bench::available_memory_bytes() / 2));
  EXPECT_GE(b.ceilings_peak_bytes(), static_cast<double>(bench::kDramArrays * b.dram_array_bytes));
}

}  // namespace
}  // namespace lmroof
