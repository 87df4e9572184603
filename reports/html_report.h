#pragma once
// results.json (docs/results-schema.md, schema lmroof.results/1) -> one
// self-contained HTML page: Vega, Vega-Lite and vega-embed, the page's CSS and
// script, and all data are inlined, so the report opens offline and loads nothing
// from the network.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/io/atomic_write.h"
#include "analysis/model/results_model.h"

#include "reports/charts.h"

namespace lmroof {

// The whole page.
std::string render_report_html(const model::Results& results);

// The files of a report, rendered but not written: each chart's Vega-Lite spec
// beside the page as <stem>.<chart-id>.vl.json (report.html ->
// report.roofline.vl.json), the tables as <stem>.runs.csv and <stem>.comparisons.csv,
// and the page last. Chart ids are [a-z0-9-] (never a pair name as given), so the
// files stay beside the page. Their paths are what a command checks against its
// inputs before writing (check_outputs).
std::vector<OutputContents> report_files(const model::Results& results, const std::filesystem::path& html_path);
// Writes report_files as one set (write_files_as_set). Throws std::runtime_error
// naming the path when a write fails.
void write_report(const model::Results& results, const std::filesystem::path& html_path);

// Another page in the report's template, styles and script (lmroof compare --html,
// lmroof merge): `content` is trusted HTML holding, for each chart, an element
// #chart-<id> with a child .chart (report::chart_section_html writes one). The body
// carries the same data-charts-* / data-report-* attributes the tests read.
std::string render_page_html(std::string_view title, std::string_view content, const std::vector<report::Chart>& charts);
// A chart's section: heading, caption and the container the page script fills.
std::string chart_section_html(const report::Chart& chart);

}  // namespace lmroof
