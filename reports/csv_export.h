#pragma once
// The report's tables as CSV (RFC 4180), written beside the page: <stem>.runs.csv and
// <stem>.comparisons.csv. Numbers are in base units (seconds, bytes, FLOP/s) with full
// precision; a missing number is an empty field.
#include <string>

#include "analysis/model/results_model.h"

namespace lmroof::report {

// One row per run: id, pair, variant, impl, backend, dtype, shape, median/min/max time,
// repetitions, FLOPs, bytes (minimum, model, measured), intensity, achieved rates, bound,
// efficiency.
std::string runs_csv(const model::Results& results);
// One row per comparison: pair, shape, baseline and candidate, speedup with its 95%
// interval, noise, p-value, Hodges-Lehmann, bytes and FLOPs ratios.
std::string comparisons_csv(const model::Results& results);

// A field quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& text);

}  // namespace lmroof::report
