#pragma once
// `lmroof run --remeasure-budget`: before concluding, the paired comparisons behind a
// claim that fails or is inconclusive for cause machine or noise (then implementation) get more
// interleaved rounds within a time budget; they join the measurement, from which the run
// then builds its results once, on all rounds (docs/claims.md#re-measurement). What to
// time again is analysis's choice (analysis/remeasure/remeasure_plan.h), from a look at the
// rounds measured so far, in memory; the timing is bench's (bench/paired_rounds.h).
#include <string>
#include <vector>

#include "analysis/claims/claims.h"
#include "analysis/remeasure/remeasure_plan.h"
#include "analysis/rules/rules.h"
#include "bench/measurement.h"
#include "bench/runner.h"

namespace lmroof::cli {

// Seconds: the default budget, --quick's, and the most --remeasure-budget accepts.
inline constexpr double kDefaultRemeasureBudget = rules::kDefaultRemeasureBudget;
inline constexpr double kQuickRemeasureBudget = rules::kQuickRemeasureBudget;
inline constexpr double kMaxRemeasureBudget = rules::kMaxRemeasureBudget;

struct RemeasureOutcome {
  int comparisons = 0;  // comparisons and A/A controls timed again
  int rounds = 0;       // extra rounds in all
  int left_out = 0;     // planned but not started: the budget's time was spent
  double seconds = 0;   // what it took
  int failed = 0;       // benchmarks that reported an error
  RemeasureChoice choice = RemeasureChoice::claims;
  std::vector<std::string> errors;
};

// Looks at `measured` (the suite and its paired rounds, in memory: plan_remeasure),
// times again what the claims ask for (every comparison: the hidden
// --remeasure-every-comparison, for tests) within `budget_s`, and joins the extra
// rounds to `measured`. Nothing to time again: `measured` stays as it was.
RemeasureOutcome remeasure(const bench::RunnerOptions& options, const std::vector<Claim>& claims, double budget_s,
                           RemeasureChoice choice, bench::Measurement& measured);

// "re-measured 3 comparisons: 30 more paired rounds in 12.4 s (budget 20 s)", or "" when none.
std::string format_remeasure(const RemeasureOutcome& outcome, double budget_s);

}  // namespace lmroof::cli
