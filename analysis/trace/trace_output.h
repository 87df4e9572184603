#pragma once
// What `lmroof trace` prints and writes: trace.json's model (schema lmroof.trace/2,
// docs/trace.schema.json; written by model::to_json) and trace.csv (one row per op shape); the terminal summary
// is reports/text/trace_text.h. Several ranks are summed into one table with a per-rank list.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/model/trace_result.h"
#include "analysis/trace/trace_analysis.h"

namespace lmroof::trace {

// Sums several ranks' analyses: ops by (name, shapes, dtypes), classes, window times.
TraceAnalysis merge_ranks(const std::vector<TraceAnalysis>& ranks);

// What a reader must know before trusting a folder's sums: its ranks ran on different
// devices (kind mixed_devices) or report different world sizes (mixed_world_sizes).
struct RankWarning {
  std::string kind, message;
};
std::vector<RankWarning> rank_warnings(const std::vector<TraceAnalysis>& ranks);

// trace.json's model (analysis/model/trace_result.h) of the merged analysis and its
// ranks, without what the options add (what_if, fix_first_check, claims).
model::TraceResult to_trace_result(const TraceAnalysis& merged, const std::vector<TraceAnalysis>& ranks);
// `extra_columns`: more columns by header, one value per row of merged.ops (--what-if).
std::string to_csv(const TraceAnalysis& merged,
                   const std::vector<std::pair<std::string, std::vector<std::string>>>& extra_columns = {});

}  // namespace lmroof::trace
