#pragma once
// Terminal tables printed after a run.
#include <string>

#include <vector>

#include "analysis/model/results_model.h"

namespace lmroof::cli {

std::string format_runs_table(const model::Results& results);
std::string format_ceilings_table(const std::vector<model::Ceiling>& ceilings);
// Predicted against measured, run by run, and the error over runs of 1 ms or more;
// empty when no run has a prediction (runs[].predicted).
std::string format_predictions_table(const model::Results& results);
// The pairs' A/A noise floors and the identity controls beside the claims (`run`,
// `check`), each followed by a newline; markdown puts a blank line before each.
// Empty when there are neither.
std::string format_floors_and_controls(const model::Results& results, bool markdown = false);

}  // namespace lmroof::cli
