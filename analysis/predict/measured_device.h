#pragma once
// A device made of a results file's measured ceilings, for `lmroof predict --device
// this|RESULTS.json` and for the predictions `lmroof run --model` checks against its
// own runs (run_prediction.h): one reading of the ceilings for both.
#include <optional>
#include <string>

#include "analysis/model/results_model.h"
#include "analysis/predict/devices.h"

namespace lmroof::predict {

// Its DRAM read ceiling (else the bandwidth roof; a step mostly reads weights and KV
// cache), its matrix and vector roofs each as the peak of the dtype it measured (an
// fp32 sgemm is an fp32 peak only; peak_sources names them), and its launch ceiling as t0 (absent: 0, and launch_source says why). Throws
// model::InputError "--device ORIGIN: has no ... ceiling" when a roof is missing.
Device device_from_results(const model::Results& results, const std::string& origin, std::optional<double> memory_bytes);

}  // namespace lmroof::predict
