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

}  // namespace lmroof::cli
