#pragma once
// trace.html for `lmroof trace`: the first screen (device and where its roofs come
// from, the window, the class table after Ivanov et al., the top ops with their time
// at the roof and above it, the known-cost share, unattributed work, anomalies), the
// roofline of unique op shapes, launch-bound kernels, idle gaps, ranks and claims; in
// the report's template, self-contained (html_report.h's render_page_html).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/model/trace_result.h"

namespace lmroof::report {

// A table of plain-text cells, each escaped: the trace pages' tables (this page's and
// trace_compare_report.h's).
std::string html_table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows);
// From trace.json's model (analysis/model/trace_result.h).
std::string trace_html(const model::TraceResult& trace);

}  // namespace lmroof::report
