#pragma once
// results.json (docs/results-schema.md, schema lmroof.results/1) -> one
// self-contained HTML page: Vega, Vega-Lite and vega-embed, the page's CSS and
// script, and all data are inlined, so the report opens offline and loads nothing
// from the network.
#include <filesystem>
#include <string>

#include "analysis/model/results_model.h"

namespace lmroof {

// The whole page.
std::string render_report_html(const model::Results& results);

// Writes the page to html_path and each chart's Vega-Lite spec beside it as
// <stem>.<chart-id>.vl.json (report.html -> report.roofline.vl.json), all
// atomically. Chart ids are [a-z0-9-] (never a pair name as given), so the files
// stay beside the page. Throws std::runtime_error naming the path when a write fails.
void write_report(const model::Results& results, const std::filesystem::path& html_path);

}  // namespace lmroof
