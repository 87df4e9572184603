#pragma once
// The report's "Kernels" section: for every run a CUPTI trace covered, the kernels it
// launched in order, with class, launch shape, GPU time and share. Composite runs (the
// block, unfused norms, split-K decode) are open by default, single-kernel runs
// folded. Empty string when no run has a trace (the CPU backend, or no CUDA run).
#include <string>

#include "analysis/model/results_model.h"

namespace lmroof::report {

std::string kernels_section(const model::Results& results);
// Whether kernels_section() has anything to show (for the page's table of contents).
bool has_traced_runs(const model::Results& results);

}  // namespace lmroof::report
