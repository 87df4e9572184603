// `lmroof compare BASE.json NEW.json`: per-run speedups, their intervals and U
// tests, as text, JSON or markdown; exit 1 on a regression beyond the threshold.
#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

#include "analysis/compare.h"
#include "analysis/compare_input.h"
#include "analysis/io/output_file.h"
#include "cli/commands.h"
#include "reports/compare_report.h"

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

}  // namespace

int compare(const CompareArgs& args) {
  if (is_trace_json(args.base) && is_trace_json(args.next)) return compare_traces(args);  // docs/trace.md
  compare::Options options;
  options.threshold = parse_threshold(args.threshold);
  if (!args.html.empty()) check_outputs({args.html}, {args.base, args.next});
  const compare::Side base = compare::read_side(args.base);
  const compare::Side next = compare::read_side(args.next);
  const compare::Report report = compare::compare(base, next, options);

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
    std::fprintf(stderr, "lmroof compare: regression: %s is %.1f%% slower (beyond %.1f%%, p = %.2g)\n", r->id.c_str(),
                 (1 / *r->speedup - 1) * 100, options.threshold * 100, *r->p_value);
  return regressions.empty() ? 0 : 1;
}

}  // namespace lmroof::cli
