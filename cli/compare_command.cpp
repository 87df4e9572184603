// `lmroof compare BASE.json NEW.json`: per-run speedups, their intervals and U
// tests, as text, JSON or markdown; exit 1 on a regression beyond the threshold.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "analysis/compare/compare.h"
#include "analysis/compare/compare_input.h"
#include "analysis/io/output_file.h"
#include "analysis/io/output_set.h"
#include "cli/commands.h"
#include "reports/compare_report.h"
#include "reports/text/compare_text.h"

namespace lmroof::cli {

namespace {

double parse_threshold(const std::string& text) {
  // "5%" or "0.05"
  std::string number = text;
  const bool percent = !number.empty() && number.back() == '%';
  if (percent) number.pop_back();
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != number.size() || !(value >= 0) || value > (percent ? 1000 : 10))
    throw std::invalid_argument(fmt::format("--threshold: '{}' is not a non-negative percentage (5%) or fraction (0.05)", text));
  return percent ? value / 100 : value;
}

// issue 38: `compare R R`, or two copies of one measurement, compares a run with
// itself: every verdict would read "same" for a reason that is no finding. Said first.
std::optional<std::string> same_measurements(const CompareArgs& args, const compare::Side& base, const compare::Side& next) {
  std::error_code ec;
  if (std::filesystem::equivalent(args.base, args.next, ec))
    return fmt::format("both sides are the same file ({}): every run is compared with itself", args.base.string());
  if (base.date != next.date || base.machine != next.machine || base.runs.size() != next.runs.size()) return std::nullopt;
  for (size_t i = 0; i < base.runs.size(); ++i)
    if (base.runs[i].id != next.runs[i].id || base.runs[i].samples != next.runs[i].samples) return std::nullopt;
  return fmt::format("{} and {} hold the same measurements (same machine, date {} and every sample): every run is "
                     "compared with itself",
                     args.base.string(), args.next.string(), base.date);
}

}  // namespace

int compare(const CompareArgs& args) {
  if (is_trace_json(args.base) && is_trace_json(args.next)) return compare_traces(args);  // docs/trace.md
  compare::Options options;
  options.threshold = parse_threshold(args.threshold);
  if (!args.html.empty()) check_outputs({args.html}, {args.base, args.next});
  // As report and check: never the old results.json of a folder a killed run left half published.
  for (const auto& input : {args.base, args.next}) require_complete_set(input.parent_path());
  const compare::Side base = compare::read_side(args.base);
  const compare::Side next = compare::read_side(args.next);
  compare::Report report = compare::compare(base, next, options);
  if (auto same = same_measurements(args, base, next)) report.warnings.insert(report.warnings.begin(), *same);

  for (const auto& warning : report.warnings) std::fprintf(stderr, "lmroof compare: warning: %s\n", warning.c_str());
  if (args.format == "json") std::printf("%s\n", compare::to_json(report).dump(2).c_str());
  else if (args.format == "markdown") std::printf("%s", report::compare_markdown(report).c_str());
  else std::printf("%s", report::compare_text(report).c_str());
  if (!args.html.empty()) {
    report::write_compare_html(report, args.html);
    std::fprintf(stderr, "lmroof compare: wrote %s\n", args.html.c_str());
  }

  const auto regressions = report.regressions();
  for (const auto* r : regressions)
    std::fprintf(stderr, "lmroof compare: %s\n", compare::regression_line(*r, options.threshold).c_str());
  return regressions.empty() ? 0 : 1;
}

}  // namespace lmroof::cli
