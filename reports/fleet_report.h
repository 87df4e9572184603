#pragma once
// The fleet report (`lmroof merge`): one self-contained page across machines:
// each machine's roofline side by side, every run normalized to its machine's
// ridge on one chart, each pair's roof fractions per machine, and the claims x
// machines matrix (#claims-matrix), beside a machines table and all runs.
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/compare/fleet.h"
#include "analysis/io/atomic_write.h"
#include "reports/charts.h"

namespace lmroof::report {

// The charts of the page, in page order (a chart without data is left out).
std::vector<Chart> fleet_charts(const fleet::Fleet& fleet);
std::string fleet_html(const fleet::Fleet& fleet);
// The files of the fleet report, rendered but not written: each chart's spec beside
// the page as <stem>.<id>.vl.json, and the page last.
std::vector<OutputContents> fleet_report_files(const fleet::Fleet& fleet, const std::filesystem::path& html_path);
// Writes fleet_report_files as one set (write_files_as_set).
void write_fleet_report(const fleet::Fleet& fleet, const std::filesystem::path& html_path);

}  // namespace lmroof::report
