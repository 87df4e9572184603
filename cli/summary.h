#pragma once
// Terminal tables printed after a run.
#include <string>

#include <vector>

#include "analysis/model/results_model.h"

namespace lmroof::cli {

std::string format_runs_table(const model::Results& results);
std::string format_ceilings_table(const std::vector<model::Ceiling>& ceilings);

}  // namespace lmroof::cli
