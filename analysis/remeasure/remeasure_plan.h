#pragma once
// Which paired comparisons to time again before concluding (issue #25 item 6,
// docs/claims.md#re-measurement), and which of them fit a time budget.
//
// A claim whose verdict is fails or inconclusive for cause `machine` (the probes moved
// during the comparison) or `noise` (the effect within the floor or the interval) may
// be decided by more rounds. So may one for cause `implementation`, after those: a
// side far below its roof may be slow for the whole comparison and not the next time
// (window interleave_1_1 at n = 16384 ran at 31% of its roof through all ten rounds of
// one default run, 20.4 ms, and at 10.4 ms in the next, which flipped
// interleave-1-1-follows-mix between fails and holds); more rounds tell a kernel that
// is slow from one that was slowed. One whose cause is `architecture` was decided by
// sides near their roofs, which more rounds only confirm. Chromium's Pinpoint collects
// more runs in the same way when its verdict is unknown. `lmroof run` times the chosen
// comparisons again, interleaved as before (bench/paired_rounds.h), and judges the
// claims again on all rounds. This file decides what; the timing stays in bench/.
#include <map>
#include <string>
#include <vector>

#include "analysis/claims/claims.h"
#include "analysis/results/bench_json.h"
#include "analysis/model/results_model.h"

namespace lmroof {

struct RemeasureItem {
  std::string baseline, candidate;  // run ids; equal for a pair's A/A control
  double estimated_s = 0;           // the extra rounds' time, preparation included (estimate_remeasure_seconds)
};

// Which comparisons to time again.
enum class RemeasureChoice {
  claims,           // those behind the claims that ask for more rounds (remeasure_candidates)
  every_comparison  // every paired comparison and A/A control (every_paired_comparison): for tests
};

// How the extra rounds are timed (bench/paired_rounds.h), for the estimates.
struct RemeasureScheme {
  int rounds = 0;
  double min_side_time_s = 0;
  double prepare_s = 0;  // allocation and first touch of one side's workload
};

// What to time again, on the rounds measured so far (bench's measurement in memory, read
// as bench_json.h reads bench.json), in order, each with its estimate; those without a
// round time are left out. every_comparison (a default run): every paired comparison and
// A/A control the plan timed (every_planned_comparison), with no look at results or
// verdicts. claims (--quick): the results built from the rounds, `claims` checked on
// them, and the comparisons their verdicts ask to time again; throws what check_claims
// throws (ClaimsFileError).
std::vector<RemeasureItem> plan_remeasure(const BenchDocument& rounds, const std::vector<Claim>& claims,
                                          RemeasureChoice choice, const RemeasureScheme& scheme);

// The comparisons to time again, in the order of the claims that ask for them: every
// comparison with paired rounds whose two runs both appear in the evidence of a
// measured claim that fails or is inconclusive with cause machine or noise, then those
// of such claims with cause implementation; then, for
// each pair among them, its A/A control (its floor decides `noise` as much as the
// comparison's own interval does). Each once.
std::vector<RemeasureItem> remeasure_candidates(const model::Results& results);

// Every comparison with paired rounds, then each of their pairs' A/A control, each
// once, whatever the claims say: what a test that needs a re-measurement for sure asks
// for (`lmroof run`'s hidden --remeasure-every-comparison).
std::vector<RemeasureItem> every_paired_comparison(const model::Results& results);

// Every paired comparison the plan timed, in the order it timed them, then the A/A
// controls (a pair timed against itself), each once: read from the rounds alone.
std::vector<RemeasureItem> every_planned_comparison(const BenchDocument& rounds);

// Each paired benchmark's median seconds per round, by "baseline|candidate" run ids:
// the sum of both sides' per-iteration times the round published.
std::map<std::string, double> paired_round_seconds(const BenchDocument& bench);

// What `rounds` more rounds of one comparison cost: per round each side runs at
// least `min_side_time_s` (one untimed iteration first when it loops, as
// bench/paired_rounds.cpp does), plus preparing both workloads again: a warm-up and up
// to three calibration iterations each, and `prepare_s` of allocation per side.
double estimate_remeasure_seconds(double round_s, int rounds, double min_side_time_s, double prepare_s);

// The candidates that fit `budget_s`, in order, skipping any whose estimate no longer
// fits what is left (a cheaper one after it may); those without a round time in
// `round_seconds` are left out.
std::vector<RemeasureItem> fit_remeasure_budget(const std::vector<RemeasureItem>& candidates,
                                                const std::map<std::string, double>& round_seconds, int rounds,
                                                double min_side_time_s, double prepare_s, double budget_s);

}  // namespace lmroof
