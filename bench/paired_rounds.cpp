#include "bench/paired_rounds.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>

#include "analysis/model/schema.h"
#include "registry.h"

namespace lmroof::bench {

namespace {

// The shape two runs of a comparison must share: all but the dimensions the variant decides.
std::map<std::string, int64_t> shape_without(const Shape& shape, const std::vector<std::string>& variant_dims) {
  std::map<std::string, int64_t> s(shape.dims().begin(), shape.dims().end());
  for (const auto& d : variant_dims) s.erase(d);
  return s;
}

// Both sides' workloads, prepared once and kept across the rounds of one comparison
// (Google Benchmark calls the function once per repetition); released when the next
// comparison starts, so at most one comparison's pair is in memory.
struct PairedWorkloads {
  std::string name;
  std::unique_ptr<Workload> baseline, candidate;
  int64_t baseline_iterations = 1, candidate_iterations = 1;
  int round = 0;
};

double seconds_per_iteration(Workload& w, int64_t iterations) {
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < iterations; ++i) w.run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / static_cast<double>(iterations);
}

// Enough iterations for one side to run min_time, from the fastest of three timed
// iterations (a descheduled one would make it one iteration for good); one suffices
// for a side that takes min_time alone.
int64_t iterations_for(Workload& w, double min_time_s) {
  double once = seconds_per_iteration(w, 1);
  if (once < min_time_s) once = std::min({once, seconds_per_iteration(w, 1), seconds_per_iteration(w, 1)});
  return std::clamp<int64_t>(static_cast<int64_t>(std::ceil(min_time_s / std::max(once, 1e-9))), 1, 100000);
}

PairedWorkloads& workloads_for(const PairedPlan& plan, double min_side_time_s) {
  static PairedWorkloads current;
  const std::string name = plan.bench_name();
  if (current.name != name || !current.baseline || !current.candidate) {
    current = PairedWorkloads{};
    release_cached_workload();  // the suite's last single workload: two large ones may not fit beside it
    current.baseline = make_workload(plan.baseline);
    current.candidate = make_workload(plan.candidate);  // a separate one even for the A/A control
    current.baseline->run();  // warm-up: page faults, thread pools
    current.candidate->run();
    current.baseline_iterations = iterations_for(*current.baseline, min_side_time_s);
    current.candidate_iterations = iterations_for(*current.candidate, min_side_time_s);
    current.name = name;
  }
  return current;
}

// A side's time in one round. One untimed run first when the side loops over several
// short iterations: the first run after the other side's (caches, a sleeping thread
// pool) pays a switching cost the suite's back-to-back iterations never see, which on
// a loaded 2-core VM made a single short timed iteration 10x slower than a loop. A
// side of one long iteration (>= min_time) is not warmed: that cost is small beside
// it, and a second run would double the rounds' time for the slowest kernels.
double time_side(Workload& w, int64_t iterations) {
  if (iterations > 1) w.run();
  return seconds_per_iteration(w, iterations);
}

void run_paired_round(benchmark::State& state, const PairedPlan& plan, double min_side_time_s) {
  PairedWorkloads* w = nullptr;
  try {
    w = &workloads_for(plan, min_side_time_s);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const int round = w->round++;
  const bool candidate_first = round % 2 == 1;
  double baseline_s = 0, candidate_s = 0;
  for (auto _ : state) {
    if (candidate_first) candidate_s = time_side(*w->candidate, w->candidate_iterations);
    baseline_s = time_side(*w->baseline, w->baseline_iterations);
    if (!candidate_first) candidate_s = time_side(*w->candidate, w->candidate_iterations);
    state.SetIterationTime(baseline_s + candidate_s);
  }
  namespace c = model::counter;
  state.counters[std::string(c::kPairedBaselineTime)] = benchmark::Counter(baseline_s);
  state.counters[std::string(c::kPairedCandidateTime)] = benchmark::Counter(candidate_s);
  state.counters[std::string(c::kPairedRound)] = benchmark::Counter(round);
  state.counters[std::string(c::kPairedOrder)] = benchmark::Counter(candidate_first ? 1 : 0);
}

}  // namespace

std::string PairedPlan::bench_name() const {
  return std::string(model::kPairedPrefix) + baseline.bench_name() + std::string(model::kPairedSeparator) +
         candidate.bench_name();
}

std::vector<PairedPlan> plan_paired_rounds(const std::vector<RunSpec>& runs) {
  std::vector<PairedPlan> comparisons, floors;
  for (const PairDef& pair : all_pairs()) {
    const PairedPlan* first = nullptr;
    const size_t before = comparisons.size();
    for (const ComparisonDef& cmp : pair.comparisons)
      for (const RunSpec& base : runs) {
        if (base.pair != pair.name || base.backend != Backend::cpu || base.variant != cmp.baseline.variant ||
            base.impl != cmp.baseline.impl)
          continue;
        const auto want = shape_without(base.shape, pair.variant_dims);
        for (const RunSpec& cand : runs)
          if (cand.pair == pair.name && cand.variant == cmp.candidate.variant && cand.impl == cmp.candidate.impl &&
              cand.backend == base.backend && cand.dtype == base.dtype &&
              shape_without(cand.shape, pair.variant_dims) == want)
            comparisons.push_back({base, cand, false});
      }
    // The A/A control: the baseline of the pair's middle comparison (neither its
    // smallest nor its largest shape, where the suite has several).
    if (comparisons.size() > before) first = &comparisons[before + (comparisons.size() - before) / 2];
    if (first) floors.push_back({first->baseline, first->baseline, true});
  }
  comparisons.insert(comparisons.end(), floors.begin(), floors.end());
  return comparisons;
}

int register_paired_benchmarks(const SuiteOptions& options, const std::vector<RunSpec>& runs) {
  if (options.backend != Backend::cpu) return 0;
  const PairedScheme scheme = options.quick ? kQuickPairedRounds : kDefaultPairedRounds;
  const auto plans = plan_paired_rounds(runs);
  for (const PairedPlan& plan : plans) {
    auto* b = benchmark::RegisterBenchmark(plan.bench_name().c_str(), [plan, scheme](benchmark::State& state) {
      run_paired_round(state, plan, scheme.min_side_time_s);
    });
    b->Repetitions(scheme.rounds)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
  }
  return static_cast<int>(plans.size());
}

}  // namespace lmroof::bench
