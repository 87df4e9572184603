// Text, markdown and HTML forms of a comparison; see reports/compare_report.h.
#include "reports/compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "analysis/io/atomic_write.h"
#include "analysis/numbers/markdown.h"
#include "reports/charts.h"
#include "analysis/numbers/numbers.h"
#include "reports/text/compare_text.h"
#include "reports/text/format.h"
#include "reports/html_report.h"

namespace lmroof::report {

namespace {

using compare::RunChange;
using compare::Verdict;

// One table row, in words: every output form shows the same cells.
struct Row {
  std::string run, base, next, speedup, p, roof, verdict;
  const RunChange* change;
};

std::string time_cell(const std::optional<compare::SideNumbers>& side) {
  if (!side) return std::string(numbers::kDash);
  return fmt::format("{} (n={})", numbers::si(side->median, "s"), side->samples);
}

// The repetitions an undecided run has: the smaller side's.
size_t repetitions(const RunChange& c) { return std::min(c.base ? c.base->samples : 0, c.next ? c.next->samples : 0); }

std::string verdict_cell(const RunChange& c, double threshold) {
  std::string out = compare::to_string(c.verdict);
  if (c.verdict == Verdict::undecided) return out + fmt::format(" (n={})", repetitions(c));
  if (c.speedup && c.verdict == Verdict::slower) {
    const double slowdown = 1 / *c.speedup - 1;
    out += c.regression ? fmt::format(" (regression: +{} > {})", numbers::percent(slowdown), numbers::percent(threshold))
                        : fmt::format(" (+{}, within {})", numbers::percent(slowdown), numbers::percent(threshold));
  }
  return out;
}

std::vector<Row> rows(const compare::Report& report) {
  std::vector<Row> out;
  for (const auto& c : report.runs) {
    Row r;
    r.change = &c;
    r.run = c.label;
    r.base = time_cell(c.base);
    r.next = time_cell(c.next);
    r.speedup = c.speedup ? fmt::format("{} [{}, {}]", numbers::ratio(*c.speedup), numbers::sig(*c.speedup_low), numbers::sig(*c.speedup_high))
                          : std::string(numbers::kDash);
    r.p = c.p_value ? numbers::sig(*c.p_value, 2) : std::string(numbers::kDash);
    r.roof = c.roof_fraction_change ? fmt::format("{:+.1f} pt", *c.roof_fraction_change * 100) : std::string(numbers::kDash);
    r.verdict = verdict_cell(c, report.options.threshold);
    if (c.level_change) r.verdict += "; " + *c.level_change;  // part of the speedup is the level's
    out.push_back(std::move(r));
  }
  return out;
}

// "2 undecided (n=3; about 6 repetitions per side would decide them)": counted apart
// from "same", since their intervals exclude 1.
std::string undecided_summary(const compare::Report& report, size_t count) {
  size_t fewest = SIZE_MAX, most = 0;
  int64_t needed = 0;
  bool unknown = false;
  for (const auto& c : report.runs)
    if (c.verdict == Verdict::undecided) {
      fewest = std::min(fewest, repetitions(c)), most = std::max(most, repetitions(c));
      if (c.repetitions_to_decide) needed = std::max(needed, *c.repetitions_to_decide);
      else unknown = true;
    }
  const std::string n = fewest == most ? fmt::format("n={}", fewest) : fmt::format("n={}-{}", fewest, most);
  const std::string would = unknown || needed == 0
                                ? "more repetitions would decide"
                                : fmt::format("about {} repetitions per side would decide", needed);
  return fmt::format("{} undecided ({}; {} {})", count, n, would, count == 1 ? "it" : "them");
}

std::string headline(const compare::Report& report) {
  const auto regressions = report.regressions();
  std::string out = regressions.empty()
                        ? fmt::format("no significant regression beyond {}", numbers::percent(report.options.threshold))
                        : fmt::format("{} regression{} beyond {}", regressions.size(), regressions.size() == 1 ? "" : "s",
                                      numbers::percent(report.options.threshold));
  out += fmt::format(": {} faster, {} slower, ", report.count(Verdict::faster), report.count(Verdict::slower));
  if (const size_t undecided = report.count(Verdict::undecided)) out += undecided_summary(report, undecided) + ", ";
  out += fmt::format("{} same within noise", report.count(Verdict::same));
  if (size_t n = report.count(Verdict::only_base)) out += fmt::format(", {} only in base", n);
  if (size_t n = report.count(Verdict::only_new)) out += fmt::format(", {} only in new", n);
  return out;
}

std::string side_line(const compare::Side& side) {
  return fmt::format("{} ({}{})", side.file, side.machine, side.date.empty() ? "" : ", " + side.date);
}

constexpr std::string_view kHeaders[] = {"run", "base median", "new median", "speedup [CI]", "p (U test)", "roof \u0394", "verdict"};

std::string speedup_note(const compare::Report& report) {
  std::optional<double> drift;
  size_t drifted = 0;
  for (const auto& c : report.runs)
    if (c.machine_drift) {
      drift = std::max(drift.value_or(0.0), *c.machine_drift);
      ++drifted;
    }
  const std::string drift_note =
      drift ? fmt::format(" {} run{} probed next to both sides (DRAM-resident CPU runs) {} the interval widened by "
                          "the machine's drift between the two runs, on the side it can explain (the change in their "
                          "probed DRAM read bandwidth: up to {} here).",
                          drifted, drifted == 1 ? "" : "s", drifted == 1 ? "has" : "have", numbers::percent(*drift))
            : std::string();
  return fmt::format("speedup = base median / new median (> 1: new is faster; {}: two files' runs are never timed "
                     "in paired rounds), {:.0f}% bootstrap interval of the ratio of medians; p: two-sided Mann-Whitney U test on the repetitions (significant below {}); roof \u0394: "
                     "change in the fraction of the roof achieved, in percentage points.{}",
                     compare::kUnpairedMedians, report.options.confidence * 100, report.options.alpha, drift_note);
}

// Display width of UTF-8 text (for the text table's columns).
size_t width(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, size_t w, bool right) {
  const std::string fill(w > width(s) ? w - width(s) : 0, ' ');
  return right ? fill + s : s + fill;
}

std::string md_cell(const std::string& s) { return model::markdown_text(s); }

nlohmann::json speedup_chart(const compare::Report& report) {
  nlohmann::json values = nlohmann::json::array();
  for (const auto& c : report.runs)
    if (c.speedup)
      values.push_back({{"run", c.label}, {"speedup", *c.speedup}, {"low", *c.speedup_low},
                        {"high", *c.speedup_high}, {"verdict", compare::to_string(c.verdict)}});
  const nlohmann::json y = {{"field", "run"}, {"type", "nominal"}, {"sort", nullptr}, {"title", nullptr},
                            {"axis", {{"labelLimit", 420}}}};
  return {{"$schema", kVegaLiteSchema},
          {"width", 520},
          {"data", {{"values", values}}},
          {"layer",
           nlohmann::json::array(
               {{{"mark", {{"type", "rule"}, {"color", "#59636e"}, {"strokeDash", {4, 3}}}}, {"encoding", {{"x", {{"datum", 1}}}}}},
                {{"mark", "rule"},
                 {"encoding", {{"y", y}, {"x", {{"field", "low"}, {"type", "quantitative"}, {"title", "speedup (base / new time)"}, {"scale", {{"zero", false}}}}},
                               {"x2", {{"field", "high"}}}}}},
                {{"mark", {{"type", "point"}, {"filled", true}, {"size", 60}}},
                 {"encoding",
                  {{"y", y},
                   {"x", {{"field", "speedup"}, {"type", "quantitative"}}},
                   {"color", {{"field", "verdict"}, {"type", "nominal"},
                              {"scale", {{"domain", {"faster", "slower", "same", "undecided"}}, {"range", {"#1a7f37", "#cf222e", "#59636e", "#9a6700"}}}}}},
                   {"tooltip", nlohmann::json::array({{{"field", "run"}}, {{"field", "speedup"}, {"format", ".3f"}},
                                                      {{"field", "low"}, {"format", ".3f"}}, {{"field", "high"}, {"format", ".3f"}},
                                                      {{"field", "verdict"}}})}}}}})}};
}

}  // namespace

std::string compare_text(const compare::Report& report) {
  const auto table = rows(report);
  std::vector<size_t> w;
  for (auto h : kHeaders) w.push_back(width(h));
  for (const auto& r : table) {
    const std::string* cells[] = {&r.run, &r.base, &r.next, &r.speedup, &r.p, &r.roof, &r.verdict};
    for (size_t i = 0; i < 7; ++i) w[i] = std::max(w[i], width(*cells[i]));
  }
  std::string out = fmt::format("base: {}\nnew:  {}\n", side_line(report.base), side_line(report.next));
  for (const auto& warning : report.warnings) out += "warning: " + warning + "\n";
  if (const std::string floors = compare::noise_floors_line(report); !floors.empty()) out += floors + "\n";
  out += "\n";
  std::string header;
  for (size_t i = 0; i < 7; ++i) header += pad(std::string(kHeaders[i]), w[i], i > 0 && i < 6) + (i < 6 ? "  " : "");
  header.erase(header.find_last_not_of(' ') + 1);
  out += header + "\n";
  for (const auto& r : table) {
    const std::string* cells[] = {&r.run, &r.base, &r.next, &r.speedup, &r.p, &r.roof, &r.verdict};
    std::string line;
    for (size_t i = 0; i < 7; ++i) line += pad(*cells[i], w[i], i > 0 && i < 6) + (i < 6 ? "  " : "");
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
    if (!r.change->note.empty()) out += "    note: " + r.change->note + "\n";
  }
  out += fmt::format("\n{}\n{}\n", speedup_note(report), headline(report));
  return out;
}

std::string compare_markdown(const compare::Report& report) {
  std::string out = fmt::format("### lmroof compare: {}\n\nbase: `{}` ({}) \u00b7 new: `{}` ({})\n\n", md_cell(headline(report)),
                                md_cell(report.base.file), md_cell(report.base.machine), md_cell(report.next.file),
                                md_cell(report.next.machine));
  for (const auto& warning : report.warnings) out += "> **Warning:** " + md_cell(warning) + "\n\n";
  out += "| run | base median | new median | speedup [CI] | p (U test) | roof \u0394 | verdict |\n";
  out += "|---|---:|---:|---:|---:|---:|---|\n";
  for (const auto& r : rows(report)) {
    const bool bold = r.change->verdict == Verdict::faster || r.change->verdict == Verdict::slower;
    std::string verdict = md_cell(r.verdict);
    if (bold) verdict = "**" + verdict + "**";
    if (!r.change->note.empty()) verdict += " \u2014 " + md_cell(r.change->note);
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", md_cell(r.run), r.base, r.next, r.speedup, r.p, r.roof, verdict);
  }
  out += fmt::format("\n{}\n", speedup_note(report));
  return out;
}

std::string compare_html(const compare::Report& report) {
  std::vector<Chart> charts;
  if (std::any_of(report.runs.begin(), report.runs.end(), [](const RunChange& c) { return c.speedup.has_value(); }))
    charts.push_back({"speedup", "Speedup per run",
                      "Each point is base median time / new median time with its bootstrap interval; right of the dashed "
                      "line the new file is faster.",
                      speedup_chart(report)});
  std::string content = fmt::format(
      "<header class=\"page-header\">\n<h1>lmroof compare</h1>\n<p class=\"subtitle\">base {} \u00b7 new {}</p>\n</header>\n<main>\n",
      html_escape(side_line(report.base)), html_escape(side_line(report.next)));
  content += fmt::format("<div class=\"banner\"><strong>{}</strong></div>\n", html_escape(headline(report)));
  for (const auto& warning : report.warnings)
    content += fmt::format("<div class=\"banner\"><span class=\"tag\">warning</span> {}</div>\n", html_escape(warning));
  for (const auto& c : charts) content += chart_section_html(c);
  content += "<section class=\"block\" id=\"compare-runs\">\n<h2>Runs</h2>\n<p class=\"caption\">" + html_escape(speedup_note(report)) +
             "</p>\n<div class=\"table-wrap\"><table class=\"sortable\" id=\"compare-table\">\n<thead><tr>";
  for (auto h : kHeaders) content += fmt::format("<th>{}</th>", html_escape(h));
  content += "</tr></thead>\n<tbody>\n";
  for (const auto& r : rows(report)) {
    const char* cls = r.change->verdict == Verdict::faster ? " class=\"gain\"" : r.change->verdict == Verdict::slower ? " class=\"loss\"" : "";
    std::string verdict = html_escape(r.verdict);
    if (!r.change->note.empty()) verdict += "<br><span class=\"reason\">" + html_escape(r.change->note) + "</span>";
    content += fmt::format("<tr><td class=\"shape\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                           "<td class=\"num\">{}</td><td class=\"num\">{}</td><td{}>{}</td></tr>\n",
                           html_escape(r.run), html_escape(r.base), html_escape(r.next), html_escape(r.speedup),
                           html_escape(r.p), html_escape(r.roof), cls, verdict);
  }
  content += "</tbody></table></div>\n</section>\n</main>\n<footer>Written by lmroof compare (schema " +
             std::string(compare::kCompareSchema) + " for --format json). Self-contained: nothing is fetched.</footer>\n";
  return render_page_html("lmroof compare", content, charts);
}

void write_compare_html(const compare::Report& report, const std::filesystem::path& path) {
  write_file_atomically(path, compare_html(report));
}

}  // namespace lmroof::report
