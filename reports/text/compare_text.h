#pragma once
// `lmroof compare`'s wording that reports/compare_report.cpp's tables print.
#include <string>

#include "analysis/compare/compare.h"

namespace lmroof::compare {

// "noise floors (A/A): base norm ±1.2%, bias ±0.8%; new norm ±1.5%": empty unless both
// files carry floors.
std::string noise_floors_line(const Report& report);

// "regression: norm/... is 34.1% slower (beyond 5.0%, p = 0.00018)": one of
// Report::regressions(), `threshold` as compare::Options has it (a fraction).
std::string regression_line(const RunChange& regression, double threshold);

}  // namespace lmroof::compare
