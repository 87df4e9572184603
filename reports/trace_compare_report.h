#pragma once
// `lmroof compare A/trace.json B/trace.json --html FILE`: one self-contained page (the
// report's template, html_report.h's render_page_html) with each side's step time and
// busy time, the time per class on both sides (a chart and a table), the fraction of
// the roof each matched op shape reaches on each side (a chart), the op shapes with
// the largest changes, and the --what-if prediction set beside the new side where the
// base has one. What the terminal shows (reports/text/trace_text.h: compare_text), as a page.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace lmroof::report {

// From the lmroof.trace-compare/2 document (analysis/trace/trace_compare.h).
std::string trace_compare_html(const nlohmann::json& report);
// Writes trace_compare_html atomically.
void write_trace_compare_html(const nlohmann::json& report, const std::filesystem::path& path);

}  // namespace lmroof::report
