#pragma once
// `lmroof trace --what-if` for a person: the terminal lines of trace.json's what_if[]
// (analysis/trace/what_if.h), and of a prediction set beside a measured trace in
// `lmroof compare`.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/model/trace_result.h"

namespace lmroof::report {

// One block per target: step and busy time with the interval, the naive answers, the
// class table source beside predicted, the ops that change most and why, the widest ranges.
std::string what_if_text(const std::vector<model::TraceWhatIf>& what_if);
// compare's "prediction" block: predicted against measured, with both naive answers' errors.
std::string prediction_text(const nlohmann::json& prediction);

}  // namespace lmroof::report
