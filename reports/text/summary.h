#pragma once
// Terminal tables printed after a run (`run`, `analyze`, `check`) and by `ceilings`.
#include <string>

#include <vector>

#include "analysis/model/results_model.h"

namespace lmroof::cli {

std::string format_runs_table(const model::Results& results);
std::string format_ceilings_table(const model::Results& results);
// Predicted against measured, run by run, and the error over runs of 1 ms or more;
// empty when no run has a prediction (runs[].predicted).
std::string format_predictions_table(const model::Results& results);
// The pairs' A/A noise floors and the identity controls beside the claims (`run`,
// `check`), each followed by a newline; markdown puts a blank line before each.
// Empty when there are neither.
std::string format_floors_and_controls(const model::Results& results, bool markdown = false);
// What `lmroof ceilings` prints under the table: the ceilings whose repetitions still
// disagreed after a re-measurement (model::Ceiling::unstable), and the bandwidth curve's
// levels (model::BandwidthCurve) with its range; "" when there is neither.
std::string format_stability_and_levels(const model::Results& results);

}  // namespace lmroof::cli
