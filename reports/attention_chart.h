#pragma once
// The attention pair's decode intensity against batch size, one panel per context:
// each run's arithmetic intensity (on measured bytes where counters exist, else on
// the cost model's) as solid lines and points, and Shazeer's Θ(1/(n/d + 1/b))
// prediction with the cost model's constants (analysis/attention_intensity.h) as
// dashed lines. Null when the results have no attention decode run.
#include <nlohmann/json.hpp>

namespace lmroof::report {

nlohmann::json attention_intensity_chart(const nlohmann::json& results);

}  // namespace lmroof::report
