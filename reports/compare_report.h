#pragma once
// `lmroof compare` output: a plain-text table for terminals, a markdown table for a
// pull-request comment, and a self-contained HTML page (a speedup chart with its
// confidence intervals, and the table). The JSON form is compare::to_json.
#include <filesystem>
#include <string>

#include "analysis/compare/compare.h"

namespace lmroof::report {

std::string compare_text(const compare::Report& report);
std::string compare_markdown(const compare::Report& report);
std::string compare_html(const compare::Report& report);
// Writes compare_html atomically.
void write_compare_html(const compare::Report& report, const std::filesystem::path& path);

}  // namespace lmroof::report
