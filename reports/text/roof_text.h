#pragma once
// The roofs' warnings as people read them (issue #34): the runs above their judged roof
// (measurement faults, decided once in Results::findings) and the bandwidth curve set
// aside for disagreeing with the level ceilings (analysis/roofs/curve_agreement.h).
#include <optional>
#include <string>

#include "analysis/model/results_model.h"

namespace lmroof {

// "bandwidth curve UNSTABLE, not used: runs are judged at the level ceilings instead
// (...)"; "" for a curve that judged the runs, or none. For `check`, `run`'s summary,
// `ceilings` and the report's first screen.
std::string curve_set_aside_line(const std::optional<model::BandwidthCurve>& curve);
std::string curve_set_aside_line(const model::Results& results);
// The faults one per line under a heading, for the CLI; "" without faults.
std::string format_roof_faults(const std::vector<model::RoofFault>& faults);
// One line for the end of `lmroof run`'s summary: how many runs are above their judged
// roof and the worst ("roof faults: 2 runs above 105% of their judged roof, the worst
// decode/... at 148% of L2 curve"), or that none is.
std::string roof_faults_summary(const model::Results& results);

}  // namespace lmroof
