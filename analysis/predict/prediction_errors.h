#pragma once
// How far `lmroof predict`'s model is from this file's measurements (runs[].predicted,
// analysis/predict/run_prediction.h), summarised once for every surface (the run's
// text, the report): over the runs that took at least `min_time_s`, where the launch
// term and timer resolution no longer dominate.
#include <cstdint>
#include <string>

#include "analysis/model/results_model.h"
#include "analysis/rules/rules.h"

namespace lmroof::model {

inline constexpr double kPredictionCheckMinTime = rules::kPredictionCheckMinTime;  // why: analysis/rules/rules.h

struct PredictionErrors {
  int64_t predicted = 0;       // runs with a prediction
  int64_t long_runs = 0;       // of them, at least min_time_s measured
  int64_t within_25pct = 0;    // long runs with |error| <= 25%
  double median_abs_error = 0;  // over the long runs
  double worst_error = 0;       // the long run with the largest |error| (signed)
  std::string worst_run;
};

PredictionErrors prediction_errors(const Results& results, double min_time_s = kPredictionCheckMinTime);

}  // namespace lmroof::model
