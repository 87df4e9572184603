#pragma once
// `lmroof compare A/trace.json B/trace.json`: each side's step time and busy time
// (summed over ops), and the time change per class and per op shape (name, input
// shapes, dtypes) with the fraction of the roof it reaches on each side, between two
// traces: a change to a model, or the same model on two GPUs. A shape found on one side
// only is listed as added or gone. Schema lmroof.trace-compare/2 (docs/trace.md). The
// text is reports/text/trace_text.h, the page reports/trace_compare_report.h.
#include <nlohmann/json.hpp>

#include <string>

#include "analysis/model/trace_result.h"

namespace lmroof::trace {

// The two sides as model::read_trace_result read them; each side is named by its file.
nlohmann::json compare_traces(const model::TraceResult& base, const model::TraceResult& next);

}  // namespace lmroof::trace
