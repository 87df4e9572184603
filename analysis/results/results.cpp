#include "analysis/results/results.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "analysis/io/atomic_write.h"
#include "analysis/results/findings.h"
#include "analysis/results/contention.h"
#include "analysis/results/machine_info.h"
#include "analysis/roofs/curve_agreement.h"
#include "analysis/roofs/memory_levels.h"
#include "analysis/model/json_input.h"
#include "analysis/results/paired_results.h"
#include "analysis/roofs/attention_intensity.h"
#include "analysis/roofs/roof_choice.h"
#include "analysis/roofs/roofline.h"
#include "analysis/stats/statistics.h"
#include "kernels/run_names/workload.h"

namespace lmroof {

namespace {

namespace counter = model::counter;
using model::InputError;

constexpr std::string_view kCeilingPrefix = "ceiling/";

[[noreturn]] void fail(const BenchDocument& bench, const std::string& pointer, std::string_view problem) {
  throw InputError(fmt::format("{}: {}: {}", bench.origin, pointer.empty() ? "/" : pointer, problem));
}

bool is_ceiling(const std::string& run_name) { return run_name.rfind(kCeilingPrefix, 0) == 0; }

// Iteration entries (one per repetition) grouped by benchmark, in first-seen order.
struct Group {
  std::string run_name;
  std::vector<const BenchEntry*> samples;
  std::string error;
  std::string pointer;  // of the first entry
};

std::vector<Group> group_repetitions(const BenchDocument& bench) {
  std::vector<Group> groups;
  std::map<std::string, size_t> index;
  for (const auto& e : bench.entries) {
    if (e.run_type == "aggregate") continue;
    auto [it, inserted] = index.emplace(e.run_name, groups.size());
    if (inserted) groups.push_back({e.run_name, {}, {}, e.pointer});
    Group& g = groups[it->second];
    if (e.error)
      g.error = e.error_message.empty() ? "error without a message" : e.error_message;
    else
      g.samples.push_back(&e);
  }
  return groups;
}

std::optional<double> counter_of(const BenchEntry& e, std::string_view key) {
  auto it = e.counters.find(std::string(key));
  return it == e.counters.end() ? std::nullopt : std::optional(it->second);
}

// The mean of a counter over the repetitions that carry it; nullopt when none does.
std::optional<double> mean_counter(const std::vector<const BenchEntry*>& samples, std::string_view key) {
  std::vector<double> values;
  for (const BenchEntry* e : samples)
    if (auto v = counter_of(*e, key)) values.push_back(*v);
  return values.empty() ? std::nullopt : std::optional(stats::mean(values));
}

// The median of a counter over the repetitions, when every repetition carries it.
std::optional<double> median_counter(const std::vector<const BenchEntry*>& samples, std::string_view key) {
  std::vector<double> values;
  for (const BenchEntry* e : samples)
    if (auto v = counter_of(*e, key)) values.push_back(*v);
  return values.empty() || values.size() != samples.size() ? std::nullopt : std::optional(stats::median(values));
}

// The largest value of a counter over the repetitions, when every repetition carries it.
std::optional<double> max_counter(const std::vector<const BenchEntry*>& samples, std::string_view key) {
  std::vector<double> values;
  for (const BenchEntry* e : samples)
    if (auto v = counter_of(*e, key)) values.push_back(*v);
  if (values.empty() || values.size() != samples.size()) return std::nullopt;
  return *std::max_element(values.begin(), values.end());
}

// Per-class counters named "<prefix><class>", averaged over repetitions.
std::map<std::string, double> class_counters(const std::vector<const BenchEntry*>& samples, std::string_view prefix) {
  std::map<std::string, double> out;
  for (const BenchEntry* e : samples)
    for (const auto& [key, value] : e->counters)
      if (key.rfind(prefix, 0) == 0) out[key.substr(prefix.size())] += value / samples.size();
  return out;
}

// class_counters() of an operator-class prefix, keyed by the class's name today
// (kernels/run_names/op_class.h: files written before 2026-12-07 say "matrix" for matmul);
// a name that is no class is bad input, named with its counter.
std::map<std::string, double> op_class_counters(const BenchDocument& bench, const std::vector<const BenchEntry*>& samples,
                                                std::string_view prefix) {
  std::map<std::string, double> out;
  for (const auto& [name, value] : class_counters(samples, prefix)) {
    const auto op_class = parse_op_class(name);
    if (!op_class)
      fail(bench, model::pointer_append(samples.front()->pointer, std::string(prefix) + name),
           fmt::format("\"{}\" is no operator class", name));
    out[std::string(to_string(*op_class))] += value;
  }
  return out;
}

// The kernel's validation before timing (bench/validate_before_timing.h), the same on
// every repetition; nullopt in files written before it existed.
std::optional<model::Validated> validated_of(const BenchEntry& first) {
  const auto error = counter_of(first, counter::kValidatedError);
  const auto tolerance = counter_of(first, counter::kValidatedTolerance);
  if (!error || !tolerance) return std::nullopt;
  model::Validated v{*error, *tolerance, static_cast<int64_t>(counter_of(first, counter::kValidatedShapes).value_or(1)), {}};
  for (const auto& [name, value] : first.counters)
    if (name.rfind(counter::kValidatedShapePrefix, 0) == 0)
      v.shape[name.substr(counter::kValidatedShapePrefix.size())] = static_cast<int64_t>(value);
  return v;
}

// repeats, spread and unstable of a ceiling (model::Ceiling) from its repetitions'
// rates by (attempt, phase): those of the last attempt count. The runner measures a
// ceiling whose first attempt spread beyond kCeilingSpreadBound again (attempt 1);
// if that one spreads beyond it too, the ceiling is unstable. (A bench.json from
// lmroof_bench alone has no second attempt: its spread is recorded, not judged.)
struct RepeatSpread {
  int64_t repeats = 0;     // of the last attempt
  double spread = 0;       // of the last attempt, the largest of its phases
  bool remeasured = false;
  double first_spread = 0;  // of the first attempt
  bool unstable = false;
};
using RatesByAttemptAndPhase = std::map<std::pair<int, int>, std::vector<double>>;

// The spread of a peak's repeats by (attempt, phase), shared by the ceilings and the
// bandwidth curve's points: (best - worst) / best within one phase (the phases are
// minutes apart), the largest over the phases of the last attempt.
RepeatSpread spread_of(const RatesByAttemptAndPhase& rates) {
  RepeatSpread out;
  if (rates.empty()) return out;
  const int last = rates.rbegin()->first.first;
  auto phase_spread = [](const std::vector<double>& values) {
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    return *hi > 0 ? (*hi - *lo) / *hi : 0.0;
  };
  for (const auto& [key, values] : rates) {
    if (key.first == 0) out.first_spread = std::max(out.first_spread, phase_spread(values));
    if (key.first != last) continue;
    out.repeats += static_cast<int64_t>(values.size());
    out.spread = std::max(out.spread, phase_spread(values));
  }
  out.remeasured = last > 0;
  out.unstable = out.remeasured && out.spread > model::kCeilingSpreadBound;
  return out;
}

void set_spread(model::Ceiling& c, const RatesByAttemptAndPhase& rates) {
  if (rates.empty()) return;
  const RepeatSpread s = spread_of(rates);
  c.repeats = s.repeats;
  c.spread = s.spread;
  c.unstable = s.unstable;
  if (s.remeasured)
    c.detail += fmt::format("; measured again: the first {} repetitions spread {:.0f}%", rates.begin()->second.size(),
                            100 * s.first_spread);
}

// (attempt, phase) of a ceiling's or curve point's repetition: a re-measurement
// (bench/runner.cpp) is attempt 1; phase 1 is after the suite.
std::pair<int, int> attempt_and_phase(const BenchEntry& e) {
  return {counter_of(e, counter::kCeilingAttempt).value_or(0) > 0 ? 1 : 0,
          counter_of(e, counter::kCeilingPhase).value_or(0) > 0 ? 1 : 0};
}

// Where a CPU curve's DRAM level starts when the L3's size is unknown (LMROOF_CACHE_SIZES
// L3=0, or an OS that reports none): past L2 the points may sit in the L3, so only those
// at least as large as the measured `read` ceiling's working set, which lmroof sized to
// stream from DRAM (docs/cost-model.md#memory-budget), count; without that ceiling, no
// DRAM level. nullopt: the caches are known, memory_levels' own rule.
std::optional<double> far_from(const model::BandwidthCurve& curve, const std::vector<CacheCapacity>& caches,
                               const std::vector<model::Ceiling>& ceilings) {
  if (curve.backend != "cpu" || std::any_of(caches.begin(), caches.end(), [](const auto& c) { return c.name == "L3"; }))
    return std::nullopt;
  for (const auto& c : ceilings)
    if (c.name == "read" && c.backend == "cpu" && c.source == "measured" && c.working_set_bytes && *c.working_set_bytes > 0)
      return *c.working_set_bytes;
  return std::numeric_limits<double>::infinity();
}

// The memory-bandwidth curve from its points' benchmarks (curve/<backend>/read/<bytes>,
// bench/bandwidth_curve.h), with the levels found on it (analysis/roofs/memory_levels.h);
// nullopt when fewer than two points were measured.
std::optional<model::BandwidthCurve> curve_from(const BenchDocument& bench, const std::vector<const Group*>& groups,
                                                const std::vector<model::Ceiling>& ceilings) {
  model::BandwidthCurve curve;
  std::vector<CacheCapacity> caches;
  for (const Group* g : groups) {
    const std::string rest = g->run_name.substr(model::kCurvePrefix.size());
    const std::string backend = rest.substr(0, rest.find('/'));
    if (backend != "cpu" && backend != "cuda")
      fail(bench, g->pointer + "/name", fmt::format("curve backend '{}' is neither cpu nor cuda", backend));
    if (!curve.backend.empty() && backend != curve.backend)
      fail(bench, g->pointer + "/name", "a curve's points are of one backend");
    curve.backend = backend;
    // Each point is a peak, as a ceiling is: the best of its repetitions, which are spread
    // over sweeps before and after the suite (bench/bandwidth_curve.h); its spread, and
    // whether it is unstable after a re-measurement, as for a ceiling (spread_of).
    model::BandwidthPoint p;
    RatesByAttemptAndPhase rates;
    for (const BenchEntry* e : g->samples) {
      const auto bytes = counter_of(*e, counter::kCurveReadBytes);
      if (!bytes || !(*bytes > 0))
        fail(bench, e->pointer + "/" + std::string(counter::kCurveReadBytes), "a curve point's repetitions each read a positive number of bytes");
      p.read = std::max(p.read, *bytes / e->real_time_s);
      rates[attempt_and_phase(*e)].push_back(*bytes / e->real_time_s);
      if (const auto copy = counter_of(*e, counter::kCurveCopyRate); copy && *copy > 0) p.copy = std::max(p.copy.value_or(0.0), *copy);
    }
    p.repetitions = static_cast<int64_t>(g->samples.size());
    const RepeatSpread spread = spread_of(rates);
    p.spread = spread.spread;
    p.unstable = spread.unstable;
    const BenchEntry& first = *g->samples.front();
    const auto set = counter_of(first, counter::kWorkingSetBytes);
    if (!set || !(*set >= 1)) fail(bench, first.pointer + "/" + std::string(counter::kWorkingSetBytes), "a curve point needs its working set (bytes, >= 1)");
    p.working_set_bytes = *set;
    const auto threads = counter_of(first, counter::kThreads);
    if (!threads || *threads != std::floor(*threads) || *threads < 1 || *threads > (1 << 20))
      fail(bench, first.pointer + "/" + std::string(counter::kThreads), "must be a whole number of threads, 1 to 1048576");
    curve.threads = static_cast<int64_t>(*threads);
    if (caches.empty())
      for (const auto& [key, value] : first.counters)
        if (key.rfind(counter::kCurveCapacityPrefix, 0) == 0 && value > 0)
          caches.push_back({key.substr(counter::kCurveCapacityPrefix.size()), value});
    curve.points.push_back(p);
  }
  std::sort(curve.points.begin(), curve.points.end(),
            [](const auto& a, const auto& b) { return a.working_set_bytes < b.working_set_bytes; });
  for (size_t i = 1; i < curve.points.size(); ++i)
    if (curve.points[i].working_set_bytes == curve.points[i - 1].working_set_bytes)
      throw InputError(fmt::format("{}: /benchmarks: two curve points at a working set of {:.0f} bytes", bench.origin,
                                   curve.points[i].working_set_bytes));
  if (curve.points.size() < 2) return std::nullopt;
  for (const auto& c : caches)
    if (c.name != "L1" && c.name != "L2" && c.name != "L3")
      throw InputError(fmt::format("{}: /benchmarks: curve capacity '{}{}' names no cache level (L1, L2, L3)",
                                   bench.origin, counter::kCurveCapacityPrefix, c.name));
  curve.levels = memory_levels(curve.points, caches, curve.backend == "cuda" ? "HBM" : "DRAM", far_from(curve, caches, ceilings));
  return curve;
}

// ceiling/<backend>/<name>: the best repetition is the roof (as STREAM reports).
model::Ceiling ceiling_from(const BenchDocument& bench, const Group& g) {
  const std::string rest = g.run_name.substr(kCeilingPrefix.size());
  const auto slash = rest.find('/');
  model::Ceiling c;
  c.backend = rest.substr(0, slash);
  if (c.backend != "cpu" && c.backend != "cuda")
    fail(bench, g.pointer + "/name", fmt::format("ceiling backend '{}' is neither cpu nor cuda", c.backend));
  c.name = slash == std::string::npos ? "" : rest.substr(slash + 1);
  if (auto extra = c.name.find('/'); extra != std::string::npos) c.name = c.name.substr(0, extra);  // "/real_time"
  if (c.name.empty()) fail(bench, g.pointer + "/name", "a ceiling benchmark is named ceiling/<backend>/<name>");
  // A launch ceiling: the median over the repetitions of each one's median launch, in
  // seconds (a fixed cost: the best call would be the luckiest, not what a kernel pays).
  if (counter_of(*g.samples.front(), counter::kCeilingLaunchSeconds)) {
    std::vector<double> medians;
    double launches = 0;
    for (const BenchEntry* e : g.samples) {
      const auto s = counter_of(*e, counter::kCeilingLaunchSeconds);
      if (!s || !(*s > 0) || !std::isfinite(*s))
        fail(bench, e->pointer + "/" + std::string(counter::kCeilingLaunchSeconds),
             "a launch ceiling's repetitions each carry a positive median launch time");
      medians.push_back(*s);
      launches += counter_of(*e, counter::kCeilingLaunches).value_or(1);
    }
    c.kind = model::CeilingKind::latency;
    c.statistic = "median";
    c.value = stats::median(medians);
    c.source = "measured";
    c.samples = static_cast<int64_t>(g.samples.size());
    c.detail = fmt::format("{}; median of {} repetitions' medians, {:.0f} launches timed one by one in all",
                           g.samples.front()->label, medians.size(), launches);
    return c;
  }
  bool bandwidth = false, compute = false;
  // The repetitions' rates by (attempt, phase): a re-measurement (attempt 1,
  // bench/runner.cpp) replaces the first one's spread; the two phases (before and
  // after the suite) are apart in time, so only the repetitions of one are compared.
  RatesByAttemptAndPhase rates;
  for (const BenchEntry* e : g.samples) {
    const auto bytes = counter_of(*e, counter::kCeilingBytes);
    const auto flops = counter_of(*e, counter::kCeilingFlops);
    if (!bytes && !flops)
      fail(bench, e->pointer, fmt::format("a ceiling without a {} or {} counter", counter::kCeilingBytes, counter::kCeilingFlops));
    const double work = bytes ? *bytes : *flops;
    if (!(work > 0))
      fail(bench, e->pointer + "/" + std::string(bytes ? counter::kCeilingBytes : counter::kCeilingFlops), "must be positive");
    (bytes ? bandwidth : compute) = true;
    c.value = std::max(c.value, work / e->real_time_s);
    rates[attempt_and_phase(*e)].push_back(work / e->real_time_s);
    if (const auto phase = counter_of(*e, counter::kCeilingPhase)) {
      auto& best = *phase == 0 ? c.best_before_suite : c.best_after_suite;
      best = std::max(best.value_or(0.0), work / e->real_time_s);
    }
  }
  if (c.best_before_suite.has_value() != c.best_after_suite.has_value())  // measured once after all
    c.best_before_suite.reset(), c.best_after_suite.reset();
  if (bandwidth && compute) fail(bench, g.pointer, "a ceiling with both a bytes and a FLOPs counter");
  c.kind = bandwidth ? model::CeilingKind::bandwidth : model::CeilingKind::compute;
  c.source = "measured";
  c.detail = g.samples.front()->label;
  set_spread(c, rates);
  c.samples = static_cast<int64_t>(g.samples.size());
  // For the roof choice (analysis/roofs/roof_choice.h): the working set, the capacity of the
  // cache level a cache ceiling measures and its thread count, when published.
  const BenchEntry& first = *g.samples.front();
  auto positive = [&](std::string_view key) -> std::optional<double> {
    const auto v = counter_of(first, key);
    if (v && !(*v > 0)) fail(bench, first.pointer + "/" + std::string(key), "must be positive");
    return v;
  };
  c.working_set_bytes = positive(counter::kWorkingSetBytes);
  c.cache_bytes = positive(counter::kCacheBytes);
  if (const auto threads = positive(counter::kThreads)) {
    if (*threads != std::floor(*threads) || *threads > (1 << 20))
      fail(bench, first.pointer + "/" + std::string(counter::kThreads), "must be a whole number of threads, at most 1048576");
    c.threads = static_cast<int64_t>(*threads);
  }
  return c;
}

std::optional<Roof> find_roof(const std::vector<model::Ceiling>& ceilings, const std::string& name) {
  for (const auto& c : ceilings)
    if (c.name == name && c.source == "measured" && c.value > 0) return Roof{name, c.value};
  return std::nullopt;
}

model::Shape shape_of(const Shape& s) {
  model::Shape out;
  for (const auto& [k, v] : s.dims()) out[k] = v;
  return out;
}

// The cost the benchmark recorded at measurement time: never recomputed from the
// cost model of the build that analyses the file (docs/architecture.md).
Cost recorded_cost(const BenchDocument& bench, const Group& g) {
  const BenchEntry& first = *g.samples.front();
  auto required = [&](std::string_view key) {
    const auto v = counter_of(first, key);
    if (!v) fail(bench, first.pointer, fmt::format("no {} counter: a pair run records its cost model's numbers", key));
    return *v;
  };
  const double total = required(counter::kFlops);
  const double matrix = required(counter::kFlopsMatrix);
  const double minimum = required(counter::kBytesMinimum);
  const double model_bytes = required(counter::kBytesModel);
  Cost cost;
  cost.flops.matrix = matrix;
  cost.flops.vector = counter_of(first, counter::kFlopsVector).value_or(0);
  cost.flops.special = counter_of(first, counter::kFlopsSpecial).value_or(0);
  if (std::abs(cost.flops.total() - total) > 1e-6 * std::max(1.0, total))
    fail(bench, first.pointer + "/" + std::string(counter::kFlops),
         fmt::format("{} is not the sum of matrix, vector and special FLOPs ({})", total, cost.flops.total()));
  cost.bytes_minimum = minimum;
  cost.bytes_model = model_bytes;
  if (!(cost.bytes_model > 0)) fail(bench, first.pointer + "/" + std::string(counter::kBytesModel), "must be positive");
  // The traffic split the roof choice needs; non-negative, absent when not split.
  auto split = [&](std::string_view key) {
    const double v = counter_of(first, key).value_or(0.0);
    if (v < 0) fail(bench, first.pointer + "/" + std::string(key), "must not be negative");
    return v;
  };
  cost.bytes_read = split(counter::kBytesRead);
  cost.bytes_written = split(counter::kBytesWritten);
  cost.working_set_bytes = split(counter::kWorkingSetBytes);
  cost.bytes_reread = split(counter::kBytesReread);
  cost.reread_set_bytes = split(counter::kRereadSetBytes);
  cost.reread_set_shared = split(counter::kRereadSetShared) > 0;
  cost.bytes_streamed_out = split(counter::kBytesStreamedOut);
  if (cost.bytes_streamed_out > cost.bytes_written)
    fail(bench, first.pointer + "/" + std::string(counter::kBytesStreamedOut),
         fmt::format("{} exceeds bytes_written ({})", cost.bytes_streamed_out, cost.bytes_written));
  const auto matrix_flops = op_class_counters(bench, {&first}, counter::kClassFlopsMatrixPrefix);
  for (const auto& [cls, flops] : op_class_counters(bench, {&first}, counter::kClassFlopsPrefix)) {
    const auto m = matrix_flops.find(cls);
    const double matrix = m == matrix_flops.end() ? 0.0 : m->second;
    cost.flops_by_class[cls] = FlopCount{matrix, flops - matrix, 0};
  }
  for (const auto& [cls, bytes] : op_class_counters(bench, {&first}, counter::kClassBytesModelPrefix))
    cost.bytes_by_class[cls] = bytes;
  // A composite run's steps (Cost::steps): each with its FLOPs and bytes, summing to the
  // run's, else the sum of their roof times would judge some other run. Only the FLOPs'
  // total is recorded: the composite roof takes every FLOP at the one FMA peak.
  const auto step_flops = class_counters({&first}, counter::kStepFlopsPrefix);
  const auto step_bytes = class_counters({&first}, counter::kStepBytesModelPrefix);
  double flops_sum = 0, bytes_sum = 0;
  for (const auto& [name, bytes] : step_bytes) {
    const auto f = step_flops.find(name);
    if (f == step_flops.end())
      fail(bench, model::pointer_append(first.pointer, std::string(counter::kStepBytesModelPrefix) + name),
           fmt::format("no {}{} beside it: a step records its FLOPs and its bytes", counter::kStepFlopsPrefix, name));
    cost.steps.push_back({name, FlopCount{0, f->second, 0}, bytes});
    flops_sum += f->second, bytes_sum += bytes;
  }
  for (const auto& [name, flops] : step_flops)
    if (!step_bytes.count(name))
      fail(bench, model::pointer_append(first.pointer, std::string(counter::kStepFlopsPrefix) + name),
           fmt::format("no {}{} beside it: a step records its FLOPs and its bytes", counter::kStepBytesModelPrefix, name));
  if (!cost.steps.empty()) {
    auto off = [](double sum, double whole) { return std::abs(sum - whole) > 1e-6 * std::max(1.0, whole); };
    if (off(flops_sum, total))
      fail(bench, model::pointer_append(first.pointer, std::string(counter::kStepFlopsPrefix) + cost.steps.front().name),
           fmt::format("the steps' FLOPs sum to {}, not the run's {} ({})", flops_sum, counter::kFlops, total));
    if (off(bytes_sum, model_bytes))
      fail(bench, model::pointer_append(first.pointer, std::string(counter::kStepBytesModelPrefix) + cost.steps.front().name),
           fmt::format("the steps' bytes sum to {}, not the run's {} ({})", bytes_sum, counter::kBytesModel, model_bytes));
  }
  return cost;
}

std::optional<model::Breakdown> breakdown_of(const BenchDocument& bench, const Cost& cost,
                                             const std::vector<const BenchEntry*>& samples) {
  if (cost.flops_by_class.empty()) return std::nullopt;
  // Kernel-level GPU times (CUPTI trace) beat phase timers when both exist.
  std::map<std::string, double> seconds = op_class_counters(bench, samples, counter::kCuptiClassTimePrefix);
  const bool traced = !seconds.empty();
  if (!traced) seconds = op_class_counters(bench, samples, counter::kClassTimePrefix);
  double total_time = 0;
  for (const auto& [cls, s] : seconds) total_time += s;
  const double total_flops = cost.flops.total();
  model::Breakdown b;
  b.time_source = traced ? "cupti" : seconds.empty() ? "none" : "phase_timers";
  for (const auto& [cls, flops] : cost.flops_by_class) {
    model::ClassShare c;
    c.op_class = *parse_op_class(cls);  // op_class_counters() named it
    c.flops = flops.total();
    c.flop_share = total_flops > 0 ? std::min(1.0, flops.total() / total_flops) : 0.0;
    c.bytes_model = cost.bytes_by_class.count(cls) ? cost.bytes_by_class.at(cls) : 0.0;
    if (seconds.count(cls) && total_time > 0) {
      c.time_s = seconds[cls];
      c.time_share = seconds[cls] / total_time;
    }
    b.classes.push_back(std::move(c));
  }
  return b;
}

// The run's kernels from its CUPTI trace, in launch order, with each one's share of
// the traced GPU time; nullopt when the run was not traced.
std::optional<model::Kernels> kernels_of(const KernelTraceRecord* trace) {
  if (!trace) return std::nullopt;
  model::Kernels out;
  out.available = trace->available;
  out.reason = trace->reason;
  out.dropped_records = trace->dropped_records;
  if (!out.available) return out;
  double total_ns = 0;
  for (const auto& k : trace->kernels) total_ns += k.duration_ns;
  for (const auto& k : trace->kernels)
    out.list.push_back({k.name, k.op_class, k.grid, k.block, k.duration_ns * 1e-9,
                        total_ns > 0 ? k.duration_ns / total_ns : 0.0});
  out.total_s = total_ns * 1e-9;
  return out;
}

model::Run run_of(const BenchDocument& bench, const RunSpec& spec, const Group& g, const Roofs& roofs,
                  const MachineRoofs& cpu_roofs) {
  const Cost cost = recorded_cost(bench, g);
  std::vector<double> times;
  for (const BenchEntry* e : g.samples) times.push_back(e->real_time_s);
  const stats::Summary t = stats::summarize(times);

  model::Run r;
  r.id = spec.bench_name();
  r.pair = spec.pair;
  r.variant = spec.variant;
  r.impl = spec.impl;
  r.backend = to_string(spec.backend);
  r.dtype = to_string(spec.dtype);
  r.shape = shape_of(spec.shape);
  r.time_s = {t.median, t.min, t.max, t.mean, t.cv, times};
  r.contention = contention_of(g.samples);
  r.flops = {cost.flops.total(), cost.flops.matrix, cost.flops.vector, cost.flops.special, "analytic", cost.flops.total()};
  r.bytes.minimum = cost.bytes_minimum;
  r.bytes.model = cost.bytes_model;
  r.bytes.measured_reason = "no profiler counters for this run";
  const std::string& label = g.samples.front()->label;
  if (label.rfind(counter::kCuptiLabelPrefix, 0) == 0) r.bytes.measured_reason = label;

  // Hardware counters (CUPTI), when the run was measured, replace the model's numbers
  // on the roofline; the analytic ones stay beside them.
  const auto measured_bytes = mean_counter(g.samples, counter::kCuptiDramBytes);
  const auto measured_flops = mean_counter(g.samples, counter::kCuptiFlops);
  const auto measured_l2 = mean_counter(g.samples, counter::kCuptiL2Bytes);
  // "This kernel moved 1.9x the bytes it must": by design (model) and, with counters, in fact.
  const auto over_minimum = [&](double bytes) {
    return cost.bytes_minimum > 0 ? std::optional(bytes / cost.bytes_minimum) : std::nullopt;
  };
  r.bytes.model_over_minimum = over_minimum(cost.bytes_model);
  if (measured_bytes) {
    r.bytes.measured = *measured_bytes;
    r.bytes.measured_source = "cupti";
    r.bytes.measured_reason.reset();
    r.bytes.measured_over_minimum = over_minimum(*measured_bytes);
    r.bytes.measured_l2 = measured_l2;
  }
  if (measured_flops) {
    r.flops.total = *measured_flops;
    r.flops.matrix = mean_counter(g.samples, counter::kCuptiFlopsTensor).value_or(0.0);
    r.flops.vector = mean_counter(g.samples, counter::kCuptiFlopsCudaCore).value_or(0.0);
    r.flops.special = 0.0;  // MUFU instructions are not counted (docs/metrics.md)
    r.flops.source = "cupti";
  }
  const double flops = r.flops.total;
  const bool use_measured = measured_bytes && *measured_bytes > 0;
  const double bytes = use_measured ? *measured_bytes : cost.bytes_model;
  r.intensity.value = flops / bytes;
  r.intensity.bytes = use_measured ? model::BytesBasis::measured : model::BytesBasis::model;
  if (cost.bytes_minimum > 0) r.intensity.minimum = flops / cost.bytes_minimum;
  r.intensity.model = flops / cost.bytes_model;
  if (use_measured) r.intensity.measured = flops / *measured_bytes;
  // The L2 level of a hierarchical roofline: the same FLOPs over the bytes L2 served.
  if (use_measured && measured_l2 && *measured_l2 > 0) r.intensity.measured_l2 = flops / *measured_l2;
  r.achieved = {flops / t.median, bytes / t.median, cost.bytes_minimum / t.median};
  place_on_roofline(r, roofs);
  // Speed of light: the roof this run is judged against by its traffic and working
  // set (analysis/roofs/roof_choice.h, docs/cost-model.md), CPU runs only for now.
  if (spec.backend == Backend::cpu) {
    r.judged_against = judged_against(cost, t.median, cpu_roofs);
    // Judged again against the DRAM roofs probed next to each repetition, where the
    // run streams from DRAM (bench/dram_probe.h).
    const auto probe_read = median_counter(g.samples, counter::kProbeReadRate);
    const auto probe_copy_nt = median_counter(g.samples, counter::kProbeCopyNtRate);
    if (probe_read && probe_copy_nt && *probe_read > 0 && *probe_copy_nt > 0) {
      r.dram_probe = model::DramProbe{*probe_read, *probe_copy_nt, static_cast<int64_t>(g.samples.size())};
      r.dram_probe->read_best = max_counter(g.samples, counter::kProbeReadRate);
      r.dram_probe->copy_nt_best = max_counter(g.samples, counter::kProbeCopyNtRate);
      r.judged_against_probe = judged_against(cost, t.median, with_probed_dram(cpu_roofs, *r.dram_probe));
    }
  } else {
    r.judged_against = model::JudgedAgainst{};
    r.judged_against->reason = "roof choice covers CPU runs only";
  }
  r.breakdown = breakdown_of(bench, cost, g.samples);
  const auto trace = bench.kernel_traces.find(r.id);
  r.kernels = kernels_of(trace == bench.kernel_traces.end() ? nullptr : &trace->second);
  r.validated = validated_of(*g.samples.front());
  return r;
}

// The comparison of two runs: the speedup of their medians with its interval and U
// test from their repetitions, the bytes and FLOPs ratios. `shape`: what both share.
model::Comparison comparison_of(const std::string& pair, const std::string& question, const model::Run& base,
                                const model::Run& cand, model::Shape shape) {
  const bool measured = base.bytes.measured && cand.bytes.measured && *base.bytes.measured > 0;
  const double base_bytes = measured ? *base.bytes.measured : base.bytes.model;
  const double cand_bytes = measured ? *cand.bytes.measured : cand.bytes.model;
  model::Comparison c;
  c.pair = pair;
  c.question = question;
  c.baseline = {base.variant, base.impl, base.id};
  c.candidate = {cand.variant, cand.impl, cand.id};
  c.shape = std::move(shape);
  c.backend = base.backend;
  c.dtype = base.dtype;
  c.speedup = base.time_s.median / cand.time_s.median;
  c.bytes_ratio = cand_bytes / base_bytes;
  c.bytes_basis = measured ? model::BytesBasis::measured : model::BytesBasis::model;
  c.flops_ratio = base.flops.total > 0 ? cand.flops.total / base.flops.total : 0.0;
  if (!base.time_s.samples.empty() && !cand.time_s.samples.empty()) {
    const stats::SpeedupEstimate e = stats::estimate_speedup(base.time_s.samples, cand.time_s.samples);
    c.speedup = e.speedup;
    c.noise = e.noise;
    if (e.has_interval()) c.speedup_low = e.low, c.speedup_high = e.high;
    c.p_value = e.p_value;
    c.hodges_lehmann = e.hodges_lehmann;
    c.repetitions = std::min(e.baseline_samples, e.candidate_samples);
    c.machine_drift = model::probed_drift(base, cand);
  } else {
    c.noise = std::numeric_limits<double>::infinity();  // no repetitions, no interval
  }
  return c;
}

// Runs compared by each pair's comparisons: a baseline and a candidate of the same
// backend, dtype and shape (apart from the variant's own dimensions), matched
// through an index on that key, so the pairing is O(n log n).
std::vector<model::Comparison> comparisons_of(const model::Catalogue& catalogue, const std::vector<model::Run>& runs) {
  std::vector<model::Comparison> out;
  using Key = std::tuple<std::string, std::string, std::string, std::string, model::Shape>;
  for (const auto& pair : catalogue.pairs) {
    auto key_of = [&](const model::Run& r) {
      model::Shape s = r.shape;
      for (const auto& d : pair.variant_dims) s.erase(d);
      return Key{r.variant, r.impl, r.backend, r.dtype, s};
    };
    std::multimap<Key, const model::Run*> index;
    for (const auto& r : runs)
      if (r.pair == pair.name) index.emplace(key_of(r), &r);
    for (const auto& cmp : pair.comparisons) {
      for (const auto& base : runs) {
        if (base.pair != pair.name || base.variant != cmp.baseline.variant || base.impl != cmp.baseline.impl) continue;
        Key want = key_of(base);
        std::get<0>(want) = cmp.candidate.variant;
        std::get<1>(want) = cmp.candidate.impl;
        const auto [lo, hi] = index.equal_range(want);
        for (auto it = lo; it != hi; ++it)
          out.push_back(comparison_of(pair.name, cmp.question, base, *it->second, std::get<4>(want)));
      }
    }
  }
  return out;
}

// The claims' own comparisons recorded with the rounds (model::context::kClaimedComparisons),
// after the catalogue's: each pair of runs the catalogue does not already compare
// either way, its shape what both runs share, its question naming the claims. A pair
// whose run is missing (skipped, or left out by a recorded filter) is left out; one
// naming no run of the file, or runs of two pairs, is refused.
void add_claimed_comparisons(const BenchDocument& bench, model::Results& results) {
  const auto doc = claimed_comparisons_from_context(bench);
  if (!doc) return;
  const std::string field = fmt::format("{}: /context/{}", bench.origin, model::context::kClaimedComparisons);
  const bool filtered = bench.context.contains(std::string(model::context::kBenchmarkFilter));
  for (size_t i = 0; i < doc->size(); ++i) {
    const model::ClaimedComparison& claimed = (*doc)[i];
    const model::Run* base = results.run(claimed.baseline);
    const model::Run* cand = results.run(claimed.candidate);
    if (!base || !cand) {
      const std::string& id = !base ? claimed.baseline : claimed.candidate;
      const bool skipped = std::any_of(results.skipped.begin(), results.skipped.end(),
                                       [&](const model::Skipped& s) { return s.id.starts_with(id); });
      if (skipped || filtered) continue;
      throw InputError(fmt::format("{}/{}: names run '{}', which is not a run of this file", field, i, id));
    }
    if (base->pair != cand->pair)
      throw InputError(fmt::format("{}/{}: compares runs of two pairs ('{}' and '{}')", field, i, base->pair, cand->pair));
    if (results.comparison(base->id, cand->id) || results.comparison(cand->id, base->id)) continue;
    model::Shape shared;
    for (const auto& [dim, v] : base->shape)
      if (const auto it = cand->shape.find(dim); it != cand->shape.end() && it->second == v) shared.emplace(dim, v);
    model::Comparison c = comparison_of(base->pair, fmt::format("asked by claim {}", fmt::join(claimed.claims, ", ")), *base,
                                        *cand, std::move(shared));
    c.claimed_by = claimed.claims;
    results.comparisons.push_back(std::move(c));
  }
}

}  // namespace

// The DRAM probes run the read and copy_nt ceilings' loops after each repetition of
// a DRAM-resident CPU run (bench/dram_probe.h). On a machine whose bandwidth changes
// state during the suite they can see more than either end of it; the roof is what
// the machine sustained at its best in this run, so the best run's probe (the median
// of its repetitions: a single one of some 650 picks an outlier) raises the ceiling
// it repeats (best_probed_during_suite). Otherwise a run made while the machine was
// fast sits above a roof measured while it was slow.
void raise_to_probes(std::vector<model::Ceiling>& ceilings,
                     const std::vector<std::pair<RunSpec, const Group*>>& pair_groups) {
  for (auto [name, key] : {std::pair{"read", counter::kProbeReadRate}, std::pair{"copy_nt", counter::kProbeCopyNtRate}}) {
    auto c = std::find_if(ceilings.begin(), ceilings.end(), [&](const model::Ceiling& x) {
      return x.name == name && x.backend == "cpu" && x.kind == model::CeilingKind::bandwidth;
    });
    if (c == ceilings.end()) continue;
    double best = 0;
    for (const auto& [spec, g] : pair_groups)
      if (spec.backend == Backend::cpu)
        if (const auto v = median_counter(g->samples, key); v && std::isfinite(*v)) best = std::max(best, *v);
    if (best > c->value) {
      c->best_probed_during_suite = best;
      c->value = best;
    }
  }
}

std::string missing_catalogue_message(const std::string& bench_file) {
  return fmt::format(
      "{}: /context/{}: missing: written before lmroof recorded the pair catalogue with the runs; "
      "`lmroof migrate {} -o NEW.json` adds this build's, then analyze NEW.json",
      bench_file, model::context::kCatalogue, bench_file);
}

model::Results planned_results(const model::Catalogue& catalogue, const std::vector<RunSpec>& plan) {
  model::Results planned;
  planned.catalogue = catalogue;
  for (const RunSpec& spec : plan) {
    model::Run r;
    r.id = spec.bench_name();
    r.pair = spec.pair, r.variant = spec.variant, r.impl = spec.impl;
    r.backend = to_string(spec.backend), r.dtype = to_string(spec.dtype);
    for (const auto& [dim, value] : spec.shape.dims()) r.shape[dim] = value;
    planned.runs.push_back(std::move(r));
  }
  planned.index();
  planned.comparisons = comparisons_of(planned.catalogue, planned.runs);
  return planned;
}

model::Results build_results(const BenchDocument& bench, const AnalysisOptions& options) {
  const auto groups = group_repetitions(bench);

  model::Results results;
  const std::optional<model::Catalogue> recorded_catalogue = catalogue_from_context(bench);
  results.catalogue = recorded_catalogue.value_or(model::catalogue_without_pairs());
  std::vector<std::pair<RunSpec, const Group*>> pair_groups;
  std::optional<std::string> backend;
  auto same_backend = [&](const std::string& b, const Group& g) {
    if (!backend) backend = b;
    else if (*backend != b)
      fail(bench, g.pointer + "/name", fmt::format("a {} benchmark among {} ones: one backend per file", b, *backend));
  };
  std::vector<const Group*> curve_groups;
  for (const Group& g : groups) {
    if (!g.error.empty() || g.samples.empty()) {
      results.skipped.push_back({g.run_name.substr(0, model::kMaxNameLength), g.error.empty() ? "no samples" : g.error});
      continue;
    }
    if (is_paired_benchmark(g.run_name)) continue;  // attach_paired_rounds, after the comparisons
    if (g.run_name.rfind(model::kCurvePrefix, 0) == 0) {
      curve_groups.push_back(&g);
      continue;
    }
    if (is_ceiling(g.run_name)) {
      results.ceilings.push_back(ceiling_from(bench, g));
      same_backend(results.ceilings.back().backend, g);
      continue;
    }
    RunSpec spec;
    try {
      spec = RunSpec::parse_bench_name(g.run_name);
    } catch (const std::exception& e) {
      fail(bench, g.pointer + "/name", e.what());
    }
    if (!recorded_catalogue) throw InputError(missing_catalogue_message(bench.origin));
    if (!results.catalogue.find(spec.pair))
      fail(bench, g.pointer + "/name", fmt::format("pair '{}' is not in the catalogue recorded with the runs", spec.pair));
    same_backend(to_string(spec.backend), g);
    pair_groups.emplace_back(std::move(spec), &g);
  }
  if (results.ceilings.empty() && pair_groups.empty())
    throw InputError(fmt::format("{}: /benchmarks: holds no lmroof ceilings or runs", bench.origin));

  raise_to_probes(results.ceilings, pair_groups);
  results.bandwidth_curve = curve_from(bench, curve_groups, results.ceilings);
  if (results.bandwidth_curve) {
    for (const Group* g : curve_groups) same_backend(results.bandwidth_curve->backend, *g);
    // After raise_to_probes: the ceilings are final (analysis/roofs/curve_agreement.h).
    check_curve_against_ceilings(*results.bandwidth_curve, results.ceilings);
  }

  const bool cuda = backend == "cuda";
  // The bandwidth roof is the best copy the machine sustained: on the CPU, with
  // streaming stores when they beat ordinary ones (they skip the write-allocate read).
  std::optional<Roof> bandwidth = find_roof(results.ceilings, cuda ? "dram_copy" : "copy");
  if (!cuda)
    if (auto nt = find_roof(results.ceilings, "copy_nt"); nt && (!bandwidth || nt->value > bandwidth->value)) bandwidth = nt;
  Roofs roofs{bandwidth, find_roof(results.ceilings, "fp32_fma"),
              find_roof(results.ceilings, cuda ? "bf16_tensor_gemm" : "sgemm"),
              cuda ? find_roof(results.ceilings, "l2_read") : std::nullopt, find_roof(results.ceilings, "launch")};
  Roofs fp32_on_cuda = roofs;  // fp32 GEMMs on the GPU run on CUDA cores: the FMA roof applies
  fp32_on_cuda.matrix = roofs.vector;

  results.machine = machine_from_context(bench, backend.value_or("cpu"), options.date.empty() ? utc_now() : options.date);
  results.contention = machine_contention(bench);
  if (options.suite) results.machine.suite = *options.suite;

  MachineRoofs cpu_roofs = cpu_roofs_from_ceilings(results.ceilings);  // for each run's judged_against
  // Files from before the ceilings carried their thread count under a name of their
  // own (it was "threads", which Google Benchmark's own field shadows): the threads
  // the kernels ran, from the context, decide how many re-read sets share a cache.
  if (std::none_of(results.ceilings.begin(), results.ceilings.end(), [](const model::Ceiling& c) { return c.threads; }))
    cpu_roofs.threads = static_cast<int>(std::clamp<int64_t>(results.machine.threads, 1, 1 << 20));
  // Issue #34: with a measured bandwidth curve, each run is judged at the curve's rate at
  // its own working set (analysis/roof_choice.h). It must be in results by this point.
  // An unstable curve (one that disagrees with the level ceilings) is not used: the runs
  // are judged at the level ceilings, and their rule says why.
  if (results.bandwidth_curve && results.bandwidth_curve->backend == "cpu" && results.bandwidth_curve->points.size() >= 2) {
    if (results.bandwidth_curve->unstable)
      cpu_roofs.curve_set_aside = "the bandwidth curve disagrees with the level ceilings (results.json: bandwidth_curve.unstable)";
    else
      cpu_roofs.curve = results.bandwidth_curve;
  }
  for (const auto& [spec, g] : pair_groups)
    results.runs.push_back(run_of(bench, spec, *g,
                                  spec.backend == Backend::cuda && spec.dtype == DType::fp32 ? fp32_on_cuda : roofs,
                                  cpu_roofs));
  for (auto& r : results.runs) r.predicted_intensity = predicted_intensity(r, results.catalogue);
  if (!results.index()) {
    std::set<std::string> seen;
    for (const auto& [spec, g] : pair_groups)
      if (!seen.insert(spec.bench_name()).second) fail(bench, g->pointer + "/name", "the same run twice, under two names");
  }

  if (options.metrics)
    results.metrics = *options.metrics;
  else if (auto m = metrics_from_context(bench))
    results.metrics = *m;
  else
    results.metrics.reason = cuda ? "CUPTI counters were not collected for this run"
                                  : "the CPU backend reads no hardware counters; FLOPs and bytes come from the cost model";
  auto roof_name = [](const std::optional<Roof>& r) { return r ? std::optional(r->name) : std::nullopt; };
  results.roofs = {roof_name(roofs.bandwidth), roof_name(roofs.vector), roof_name(roofs.matrix), roof_name(roofs.l2),
                   roof_name(roofs.launch), std::nullopt};
  if (!roofs.launch) {
    const auto skipped = std::find_if(results.skipped.begin(), results.skipped.end(), [](const model::Skipped& s) {
      return s.id.ends_with("/launch") || s.id.find("/launch/") != std::string::npos;
    });
    results.roofs.launch_reason =
        skipped != results.skipped.end()
            ? fmt::format("not measured: the launch ceiling could not run ({})", skipped->reason)
            : std::string("not measured: bench.json has no launch ceiling (measured before lmroof had one, or without ceilings)");
  }
  results.comparisons = comparisons_of(results.catalogue, results.runs);
  add_claimed_comparisons(bench, results);
  attach_paired_rounds(bench, results);
  // After the paired rounds: their speedup is the comparison's evidence.
  for (auto& c : results.comparisons)
    if (const model::Run *base = results.run(c.baseline.run), *cand = results.run(c.candidate.run); base && cand)
      c.level_change = level_change(c, *base, *cand);
  results.bench_json = options.bench_json_name;
  decide(results);  // the findings, once: everything below reads them
  return results;
}

model::Results results_from_document(nlohmann::json doc, const std::string& file,
                                     const model::Catalogue& catalogue_if_absent) {
  if (doc.is_object() && !doc.contains("catalogue")) doc["catalogue"] = model::to_json(catalogue_if_absent);
  model::Results results = model::results_from_json(doc, file);
  decide(results);  // not in results.json: decided again from what is
  return results;
}

model::Results load_results(const std::filesystem::path& path, const model::Catalogue& catalogue_if_absent) {
  return results_from_document(model::read_json_file(path), path.string(), catalogue_if_absent);
}

void require_runs(const model::Results& results, const std::string& file, std::string_view purpose) {
  if (results.runs.empty()) throw InputError(fmt::format("{}: /runs: holds no runs: nothing to {}", file, purpose));
}

void write_results(const model::Results& results, const std::filesystem::path& path) {
  const nlohmann::json doc = model::to_json(results);
  // What `check` and `report` would refuse is never written: the document goes
  // through the reader's validation first (a bench.json value of 1e308 gives a
  // spread that overflows to null, a run name with tokens:0 a shape no run has).
  try {
    (void)model::results_from_json(doc, path.filename().string());
  } catch (const model::InputError& e) {
    throw model::InputError(fmt::format("{} (results the readers would refuse; nothing written)", e.what()));
  }
  write_file_atomically(path, doc.dump(2) + "\n");
}

}  // namespace lmroof
