#pragma once
// The report's "Not timed" section: every benchmark that did not produce a timed run
// (results.json skipped[]), with its one-line reason, e.g. a kernel that failed its
// check against the float64 reference before timing (bench/validate_before_timing.h).
// Empty string when every run was timed.
#include <string>

#include "analysis/model/results_model.h"

namespace lmroof::report {

std::string not_timed_section(const model::Results& results);

}  // namespace lmroof::report
