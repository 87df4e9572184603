#pragma once
// What the measurement is worth (issue 45): the runs and comparisons the machine's
// contention or a disturbance decided, the reason verdicts on them give, and the one
// list of warnings the report's first screen and `check --format json` show, each with
// its figure (model::Findings::warnings). decide() fills them; the claims' line is
// refreshed once the claims are checked (refresh_warnings).
#include <string>
#include <vector>

#include "analysis/model/results_model.h"

namespace lmroof {

// Runs whose repetitions stayed contended (model::RunContention::is_contended), results order.
std::vector<std::string> contended_runs(const model::Results& results);
// Indexes into results.comparisons whose paired rounds stayed contended.
std::vector<size_t> contended_comparisons(const model::Results& results);
// Runs whose slowest repetition took more than rules::kDisturbedSpread x their fastest.
std::vector<std::string> disturbed_runs(const model::Results& results);

// "48%": a share as a whole percent, as the contention figures are said (their
// measurement is good to a percent or so: schedstat and tick counts over 10-100 ms).
std::string whole_percent(double fraction);

// "busy: 48% of a core taken by `chromium`; lmroof's workers waited for a core up to 52%
// of a repetition": who took the cores, from the measurement's contention; empty when no
// repetition was contended.
std::string busy_text(const model::Results& results);

// The warnings of `findings` (everything but the warnings, decided) and of the claims'
// verdicts, in the first screen's order: contention, disturbed runs, roof faults,
// unstable ceilings, a curve set aside, roofs that moved, unmeasurable pairs,
// untrustworthy claims.
std::vector<model::Warning> measurement_warnings(const model::Results& results, const model::Findings& findings,
                                                 const std::vector<model::ClaimVerdict>& claims);

// After results.claims changed: results.findings->warnings again (decide() must have run).
void refresh_warnings(model::Results& results);

}  // namespace lmroof
