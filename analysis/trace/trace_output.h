#pragma once
// What `lmroof trace` prints and writes: trace.json (schema lmroof.trace/1,
// docs/trace.schema.json) and trace.csv (one row per op shape); the terminal summary
// is reports/text/trace_text.h. Several ranks are summed into one table with a per-rank list.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/trace/trace_analysis.h"

namespace lmroof::trace {

// Sums several ranks' analyses: ops by (name, shapes, dtypes), classes, window times.
TraceAnalysis merge_ranks(const std::vector<TraceAnalysis>& ranks);

nlohmann::json to_json(const TraceAnalysis& merged, const std::vector<TraceAnalysis>& ranks);
std::string to_csv(const TraceAnalysis& merged);

}  // namespace lmroof::trace
