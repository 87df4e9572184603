#pragma once
// trace.html for `lmroof trace`: the first screen (device and where its roofs come
// from, the window, the class table after Ivanov et al., the top ops with their time
// at the roof and above it, the known-cost share, unattributed work, anomalies), the
// roofline of unique op shapes, launch-bound kernels, idle gaps, ranks and claims; in
// the report's template, self-contained (html_report.h's render_page_html).
#include <nlohmann/json.hpp>

#include <string>

namespace lmroof::report {

// From the trace.json document (analysis/trace/trace_output.h).
std::string trace_html(const nlohmann::json& doc);

}  // namespace lmroof::report
