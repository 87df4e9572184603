#pragma once
// Intensity against batch size, one panel per context, for the runs that carry an
// analytic intensity prediction (Run::predicted_intensity; today the attention pair's
// decode level, Shazeer's Θ(1/(n/d + 1/b)) with the cost model's constants,
// analysis/roofs/attention_intensity.h): each run's intensity (on measured bytes where
// counters exist, else on the cost model's) solid, the prediction dashed. Null when no
// run has a prediction.
#include <nlohmann/json.hpp>

#include "analysis/model/results_model.h"

namespace lmroof::report {

nlohmann::json attention_intensity_chart(const model::Results& results);

}  // namespace lmroof::report
