#pragma once
// results.json (docs/results-schema.md, schema lmroof.results/1) -> one
// self-contained HTML page: Vega, Vega-Lite and vega-embed, the page's CSS and
// script, and all data are inlined, so the report opens offline and loads nothing
// from the network.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace lmroof {

// The whole page. Throws std::invalid_argument with a one-line message when
// `results` is not a lmroof.results/1 document.
std::string render_report_html(const nlohmann::json& results);

// Writes the page to html_path and each chart's Vega-Lite spec beside it as
// <stem>.<chart-id>.vl.json (report.html -> report.roofline.vl.json), all
// atomically. Throws std::invalid_argument for a bad document and
// std::runtime_error naming the path when a write fails.
void write_report(const nlohmann::json& results, const std::filesystem::path& html_path);

}  // namespace lmroof
