#include "analysis/predict/prediction_errors.h"

#include <cmath>
#include <vector>

#include "analysis/stats/statistics.h"

namespace lmroof::model {

PredictionErrors prediction_errors(const Results& results, double min_time_s) {
  PredictionErrors e;
  std::vector<double> errors;
  for (const auto& r : results.runs) {
    if (!r.predicted) continue;
    ++e.predicted;
    if (r.time_s.median < min_time_s) continue;
    ++e.long_runs;
    const double abs_error = std::abs(r.predicted->error);
    errors.push_back(abs_error);
    if (abs_error <= 0.25) ++e.within_25pct;
    if (abs_error >= std::abs(e.worst_error)) e.worst_error = r.predicted->error, e.worst_run = r.id;
  }
  if (!errors.empty()) e.median_abs_error = stats::median(errors);
  return e;
}

}  // namespace lmroof::model
