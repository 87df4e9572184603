#include "bench/paired_rounds.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "analysis/model/schema.h"
#include "bench/contention.h"
#include "registry.h"

namespace lmroof::bench {

namespace {

double seconds_per_iteration(Workload& w, int64_t iterations) {
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < iterations; ++i) w.run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / static_cast<double>(iterations);
}

// Enough iterations for one side to run min_time, from the fastest of three timed
// iterations (a descheduled one would make it one iteration for good); one suffices
// for a side that takes min_time alone. The warm-up's time `warm_up_s` counts as the
// first. A warm-up over 4x min_time decides alone: it can only be slower than a warm
// run, but not by 4x once the workload's memory is touched (its constructor writes
// every buffer), so the side is long; this saves a run of every long side (the
// block, MLP and stability sides take ~100 ms each on two cores).
int64_t iterations_for(Workload& w, double min_time_s, double warm_up_s) {
  if (warm_up_s >= 4 * min_time_s) return 1;
  double once = seconds_per_iteration(w, 1);
  if (once < min_time_s) once = std::min({once, seconds_per_iteration(w, 1), seconds_per_iteration(w, 1)});
  return std::clamp<int64_t>(static_cast<int64_t>(std::ceil(min_time_s / std::max(once, 1e-9))), 1, 100000);
}

// One side's workload, prepared, warmed up and calibrated once, and its iteration count.
struct PreparedSide {
  std::unique_ptr<Workload> workload;
  int64_t iterations = 1;
  uint64_t id = 0;  // unique in the process (a workload's address may come back for another)
};

// The workloads of the comparison being timed, kept across its rounds (Google
// Benchmark calls the function once per repetition) and into the next comparison
// when it shares a side (plan_paired_rounds orders them so): preparing a workload
// (allocating and randomizing up to hundreds of MB, a warm-up, the calibration) cost
// more than half of the rounds' time when every comparison built both of its own.
// A side no longer needed is released before a new one is built, so at most two are
// in memory. Keyed by the run's name; the A/A control's second workload by its own key.
class PairedWorkloads {
 public:
  PreparedSide& side(const std::string& key, const RunSpec& spec, double min_side_time_s) {
    auto it = sides_.find(key);
    if (it != sides_.end()) return it->second;
    PreparedSide prepared;
    prepared.id = ++prepared_;
    prepared.workload = make_workload(spec);
    const double warm_up_s = seconds_per_iteration(*prepared.workload, 1);  // page faults, thread pools
    prepared.iterations = iterations_for(*prepared.workload, min_side_time_s, warm_up_s);
    last_run_ = prepared.id;
    return sides_.emplace(key, std::move(prepared)).first->second;
  }
  // Keeps only the sides named in `keep`.
  void keep_only(const std::string& a, const std::string& b) {
    std::erase_if(sides_, [&](const auto& entry) { return entry.first != a && entry.first != b; });
  }
  int next_round(const std::string& comparison) { return rounds_[comparison]++; }
  // The side that ran last (0: none yet): see time_side.
  uint64_t& last_run() { return last_run_; }

 private:
  std::map<std::string, PreparedSide> sides_;
  std::map<std::string, int> rounds_;
  uint64_t prepared_ = 0, last_run_ = 0;
};

PairedWorkloads& paired_workloads() {
  static PairedWorkloads workloads;
  return workloads;
}

// A side's time in one round, always timed right after a run of itself, so that both
// sides of a comparison, and of its A/A control, meet the same cache and memory state:
// their own data as warm as their working set allows. One untimed run first whenever
// another side ran last.
//
// Why (issue #34 item 11): the rounds alternate A B | B A | A B ..., so the first side
// of every round but the first follows a run of itself and the second follows the
// other side. A side of one long iteration used to be timed without a warm-up, so
// where both working sets fit the outermost cache but do not fit it together, or one
// evicts the other's lines from L2, the first side of each round ran hot and the
// second cold, and the per-round ratio swung with the order: the window pair's A/A
// control (96 MiB a side, in a 480 MiB L3) gave 0.40 to 1.21 in ten rounds. A short
// side was warmed already (the first run after the other side's also pays a sleeping
// thread pool: a single short timed iteration ran 10x slower than a loop on a loaded
// 2-core VM). Only a side that follows the other is warmed, which is every round's
// second side and round 0's first: one extra run per round, not two.
double time_side(PairedWorkloads& workloads, PreparedSide& side) {
  if (workloads.last_run() != side.id) side.workload->run();
  workloads.last_run() = side.id;
  return seconds_per_iteration(*side.workload, side.iterations);
}

void run_paired_round(benchmark::State& state, const PairedPlan& plan, double min_side_time_s, bool extra) {
  const std::string baseline_key = plan.baseline.bench_name();
  const std::string candidate_key = plan.candidate.bench_name() + (plan.noise_floor ? "#second" : "");
  PairedWorkloads& workloads = paired_workloads();
  PreparedSide* baseline = nullptr;
  PreparedSide* candidate = nullptr;
  try {
    workloads.keep_only(baseline_key, candidate_key);
    release_cached_workload();  // the suite's last single workload: two large ones may not fit beside it
    baseline = &workloads.side(baseline_key, plan.baseline, min_side_time_s);
    candidate = &workloads.side(candidate_key, plan.candidate, min_side_time_s);  // a separate one for the A/A control
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const int round = workloads.next_round(plan.bench_name());
  const bool candidate_first = round % 2 == 1;
  double baseline_s = 0, candidate_s = 0;
  for (auto _ : state) {
    // A round whose workers lost their cores is timed again (bench/contention.h).
    std::vector<std::pair<double, double>> attempts;  // {baseline, candidate} seconds
    const TimedRepetition timed = time_uncontended([&](int) {
      auto& [base_s, cand_s] = attempts.emplace_back();
      if (candidate_first) cand_s = time_side(workloads, *candidate);
      base_s = time_side(workloads, *baseline);
      if (!candidate_first) cand_s = time_side(workloads, *candidate);
      return base_s + cand_s;
    });
    std::tie(baseline_s, candidate_s) = attempts[static_cast<size_t>(timed.kept_attempt)];
    state.SetIterationTime(baseline_s + candidate_s);
    publish_share(state, timed.share, timed.retimes);
  }
  namespace c = model::counter;
  state.counters[std::string(c::kPairedBaselineTime)] = benchmark::Counter(baseline_s);
  state.counters[std::string(c::kPairedCandidateTime)] = benchmark::Counter(candidate_s);
  state.counters[std::string(c::kPairedRound)] = benchmark::Counter(round);
  state.counters[std::string(c::kPairedOrder)] = benchmark::Counter(candidate_first ? 1 : 0);
  if (extra) state.counters[std::string(c::kPairedExtra)] = benchmark::Counter(1);
}

PairedScheme scheme_of(const SuiteOptions& options) { return options.quick ? kQuickPairedRounds : kDefaultPairedRounds; }

void register_plan(const PairedPlan& plan, const PairedScheme& scheme, bool extra) {
  auto* b = benchmark::RegisterBenchmark(plan.bench_name().c_str(), [plan, scheme, extra](benchmark::State& state) {
    run_paired_round(state, plan, scheme.min_side_time_s, extra);
  });
  b->Repetitions(scheme.rounds)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

std::string PairedPlan::bench_name() const {
  return std::string(model::kPairedPrefix) + baseline.bench_name() + std::string(model::kPairedSeparator) +
         candidate.bench_name();
}

namespace {

bool shares_a_side(const PairedPlan& a, const PairedPlan& b) {
  const std::string names[] = {b.baseline.bench_name(), b.candidate.bench_name()};
  for (const RunSpec* side : {&a.baseline, &a.candidate})
    if (std::find(std::begin(names), std::end(names), side->bench_name()) != std::end(names)) return true;
  return false;
}

// The order in which one pair's comparisons run: each next one shares a side with the
// one before where any does (greedy), so PairedWorkloads keeps that side's workload
// instead of preparing it again; the A/A control right after a comparison that
// times its run.
std::vector<PairedPlan> chained(std::vector<PairedPlan> rest, const std::optional<PairedPlan>& control) {
  std::vector<PairedPlan> order;
  while (!rest.empty()) {
    auto next = rest.begin();
    if (!order.empty())
      if (auto it = std::find_if(rest.begin(), rest.end(), [&](const PairedPlan& p) { return shares_a_side(order.back(), p); });
          it != rest.end())
        next = it;
    order.push_back(*next);
    rest.erase(next);
    if (control && shares_a_side(order.back(), *control) &&
        std::none_of(order.begin(), order.end(), [](const PairedPlan& p) { return p.noise_floor; }))
      order.push_back(*control);
  }
  return order;
}

}  // namespace

namespace {

// The claims' own pairs of runs in `pair` that `comparisons` do not hold either way.
void add_claimed(const std::string& pair, const std::vector<RunSpec>& runs,
                 const std::vector<model::ClaimedComparison>& claimed, std::vector<PairedPlan>& comparisons) {
  auto find = [&](const std::string& id) -> const RunSpec* {
    for (const RunSpec& r : runs)
      if (r.bench_name() == id) return &r;
    return nullptr;
  };
  for (const model::ClaimedComparison& c : claimed) {
    const RunSpec* base = find(c.baseline);
    const RunSpec* cand = find(c.candidate);
    if (!base || !cand || base->pair != pair || cand->pair != pair || base->backend != Backend::cpu ||
        cand->backend != Backend::cpu)
      continue;
    const bool planned = std::any_of(comparisons.begin(), comparisons.end(), [&](const PairedPlan& p) {
      const std::string b = p.baseline.bench_name(), k = p.candidate.bench_name();
      return (b == c.baseline && k == c.candidate) || (b == c.candidate && k == c.baseline);
    });
    if (!planned) comparisons.push_back({*base, *cand, false});
  }
}

}  // namespace

std::vector<PairedPlan> plan_paired_rounds(const std::vector<RunSpec>& runs,
                                           const std::vector<model::ClaimedComparison>& claimed) {
  std::vector<PairedPlan> plans;
  for (const PairDef& pair : all_pairs()) {
    std::vector<PairedPlan> comparisons;
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
    // The A/A control: the baseline of the pair's middle catalogue comparison (neither
    // its smallest nor its largest shape, where the suite has several), chosen before
    // the claims' own join, so that they do not move it.
    const size_t declared = comparisons.size();
    add_claimed(pair.name, runs, claimed, comparisons);
    if (comparisons.empty()) continue;
    const RunSpec floor_run = comparisons[declared > 0 ? declared / 2 : comparisons.size() / 2].baseline;
    const auto order = chained(std::move(comparisons), PairedPlan{floor_run, floor_run, true});
    plans.insert(plans.end(), order.begin(), order.end());
  }
  return plans;
}

int register_paired_benchmarks(const SuiteOptions& options, const std::vector<RunSpec>& runs) {
  if (options.backend != Backend::cpu) return 0;
  const auto plans = plan_paired_rounds(runs, options.claimed_comparisons);
  for (const PairedPlan& plan : plans) register_plan(plan, scheme_of(options), false);
  return static_cast<int>(plans.size());
}

int register_extra_paired_rounds(const SuiteOptions& options, const std::vector<PairedPlan>& plans) {
  if (options.backend != Backend::cpu) return 0;
  for (const PairedPlan& plan : plans) register_plan(plan, scheme_of(options), true);
  return static_cast<int>(plans.size());
}

}  // namespace lmroof::bench
