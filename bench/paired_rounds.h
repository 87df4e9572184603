#pragma once
// Paired, interleaved timing of each catalogue comparison (issue #25, docs/claims.md#paired).
//
// A comparison's two runs are timed by the suite minutes apart, so a shared machine's
// drift between them (its DRAM rate moved by up to 2.7x within one default run on the
// development VM) lands in their ratio and no per-run interval shows it. Here the two
// sides' workloads are prepared once, kept, and timed in alternating rounds (baseline
// first in even rounds, candidate first in odd ones: A B, B A, ...), each side right
// after a run of itself (paired_rounds.cpp: time_side says why); analysis
// (analysis/stats/paired_statistics.h) estimates the speedup from the per-round ratios, in
// which drift common to both sides cancels.
//
// Each pair also gets one A/A control: its first compared baseline run timed against a
// second, separately prepared workload of itself. Its interval is the pair's noise
// floor on this machine at that moment.
//
// One benchmark per comparison (named model::kPairedPrefix + baseline run id +
// model::kPairedSeparator + candidate run id), one repetition per round, each
// repetition publishing both sides' times (model::counter::kPaired*). CPU only: a CUDA
// workload's run() only enqueues, and its repetitions already sample adaptively.
#include <string>
#include <vector>

#include "bench/suite.h"

namespace lmroof::bench {

// Rounds per comparison and the time each side runs per round. The rounds replace the
// suite's repetitions of the compared runs in the verdicts' statistics: 10 rounds give
// a signed-rank interval whose ends are the 9th Walsh averages from either end, so no
// single round sets an edge; at 95% fewer than 6 give none.
struct PairedScheme {
  int rounds = 0;
  double min_side_time_s = 0;
};
inline constexpr PairedScheme kDefaultPairedRounds{10, 0.006};
inline constexpr PairedScheme kQuickPairedRounds{6, 0.002};

struct PairedPlan {
  RunSpec baseline, candidate;
  bool noise_floor = false;  // the A/A control: candidate is a second workload of baseline
  std::string bench_name() const;
};

// The comparisons among `runs` (the catalogue's ComparisonDefs of each pair, runs whose
// shapes agree apart from the pair's variant_dims), and those of `claimed` whose two
// runs are both among `runs`, of one pair, and not already compared either way (the
// claims' own pairs of runs, model::ClaimedComparison), each pair's in one chain; then
// one A/A control per pair that has any. Empty on CUDA.
std::vector<PairedPlan> plan_paired_rounds(const std::vector<RunSpec>& runs,
                                           const std::vector<model::ClaimedComparison>& claimed = {});

// Registers one benchmark per planned comparison among `runs` (the suite's plan);
// returns how many.
// `options.claimed_comparisons` too.
int register_paired_benchmarks(const SuiteOptions& options, const std::vector<RunSpec>& runs);

// The same number of rounds again for `plans` (the re-measurement, analysis/remeasure/remeasure_plan.h),
// each round marked model::counter::kPairedExtra and numbered on from the first ones;
// returns how many benchmarks it registered (none on CUDA).
int register_extra_paired_rounds(const SuiteOptions& options, const std::vector<PairedPlan>& plans);

}  // namespace lmroof::bench
