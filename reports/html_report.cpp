// results.json -> self-contained report.html (+ the charts' Vega-Lite specs); see reports/html_report.h.
#include "reports/html_report.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/io/atomic_write.h"
#include "analysis/io/page_side_files.h"
#include "reports/text/roof_text.h"
#include "reports/text/verdict_text.h"
#include "reports/charts.h"
#include "reports/text/claims_text.h"
#include "reports/csv_export.h"
#include "reports/embedded_assets.h"
#include "reports/text/format.h"
#include "reports/kernels_section.h"
#include "reports/not_timed_section.h"

namespace lmroof {

using nlohmann::json;
using namespace lmroof::report;

namespace {

using model::Results;
using model::Run;

// Makes text safe inside <script>: no "</script" can end the element early, and the
// source-map comments go (nothing should be looked up beside the page).
std::string script_safe(std::string_view js) {
  std::string out;
  out.reserve(js.size() + 64);
  size_t line_start = 0;
  while (line_start < js.size()) {
    size_t end = js.find('\n', line_start);
    if (end == std::string_view::npos) end = js.size();
    std::string_view line = js.substr(line_start, end - line_start);
    if (!line.starts_with("//# sourceMappingURL=")) {
      for (size_t i = 0; i < line.size(); ++i) {
        constexpr std::string_view tag = "</script";
        if (line[i] == '<' && i + tag.size() <= line.size() &&
            std::equal(tag.begin(), tag.end(), line.begin() + i,
                       [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); })) {
          out += "<\\/";
          ++i;  // skip '<' and '/'; the loop's ++i skips the '/'
          continue;
        }
        out += line[i];
      }
    }
    if (end < js.size()) out += '\n';
    line_start = end + 1;
  }
  return out;
}

// JSON inside <script type="application/json">: '<', '>' and '&' only occur inside
// strings, where \u escapes mean the same, so the text can never close the element.
std::string json_in_script(const json& value) {
  const std::string dumped = value.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(dumped.size());
  for (char c : dumped) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string esc(std::string_view s) { return html_escape(s); }

std::string verdict_slug(std::string verdict) {
  for (auto& c : verdict)
    c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '-';
  static const std::set<std::string> known = {"holds", "fails", "inconclusive", "not-measured"};
  return known.count(verdict) ? verdict : "unknown";
}

std::string num_cell(std::optional<double> sort_value, const std::string& shown) {
  if (!sort_value) return fmt::format("<td class=\"num\" data-sort=\"\">{}</td>", kDash);
  return fmt::format("<td class=\"num\" data-sort=\"{:.17g}\">{}</td>", *sort_value, esc(shown));
}

// --- sections ---------------------------------------------------------------

std::vector<std::string> unique_dtypes(const Results& results) {
  std::vector<std::string> out;
  for (const auto& r : results.runs)
    if (std::find(out.begin(), out.end(), r.dtype) == out.end()) out.push_back(r.dtype);
  return out;
}

// First line of the page: what ran where and when.
std::string header_section(const Results& results, const std::vector<Chart>& charts) {
  const model::Machine& m = results.machine;
  const std::string device = m.gpu ? m.gpu->name : m.cpu_model;
  const std::vector<std::string> dtypes = unique_dtypes(results);
  const std::string date = m.bench_date.value_or(m.date);
  std::string facts = fmt::format(
      "<span class=\"fact\"><b>machine</b> {}</span><span class=\"fact\"><b>backend</b> {}</span>"
      "<span class=\"fact\"><b>dtype</b> {}</span><span class=\"fact\"><b>date</b> {}</span>",
      esc(device.empty() ? std::string(kDash) : device), esc(m.backend),
      esc(dtypes.empty() ? std::string(kDash) : fmt::format("{}", fmt::join(dtypes, ", "))),
      esc(date.empty() ? std::string(kDash) : date.substr(0, 16)));
  std::string nav = "<a href=\"#key-results\">Key results</a> <a href=\"#claims\">Claims</a>";
  for (const auto& c : charts) nav += fmt::format(" <a href=\"#chart-{}\">{}</a>", esc(c.id), esc(c.id));
  nav += " <a href=\"#comparisons\">Comparisons</a>";
  if (has_traced_runs(results)) nav += " <a href=\"#kernels\">Kernels</a>";
  nav += " <a href=\"#chart-runs-table\">Runs</a> <a href=\"#machine\">Machine</a>";
  return fmt::format(
      "<header class=\"page-header\">\n<h1>lmroof report</h1>\n<p class=\"facts\">{}</p>\n"
      "<p class=\"subtitle\">{} \u00b7 lmroof {} ({})</p>\n<nav class=\"toc\">{}</nav>\n</header>\n",
      facts, esc(m.hostname), esc(m.lmroof_version), esc(m.git_commit), nav);
}

std::string verdict_badge(model::Verdict v) {
  const std::string verdict(model::to_string(v));
  return fmt::format("<span class=\"badge verdict-{}\">{}</span>", verdict_slug(verdict), esc(verdict));
}

// A claim's badge: an untrustworthy "holds" is not shown green (issue 45): a control or a
// fault says its measurement cannot be trusted.
std::string claim_badge(const model::ClaimVerdict& c) {
  if (c.untrustworthy && c.verdict == model::Verdict::holds)
    return "<span class=\"badge verdict-untrustworthy\" title=\"holds, on a measurement that cannot be trusted\">holds, untrustworthy</span>";
  return verdict_badge(c.verdict);
}

// What the measurement is worth, before the claims (issue 45): every warning the
// analysis decided (Findings::warnings), each with its figure; rendered, never decided, here.
std::string warnings_section(const Results& results) {
  const auto& warnings = results.decided().warnings;
  std::string out = "<section id=\"warnings\" class=\"block warnings\">\n";
  if (warnings.empty())
    return out + "<p class=\"warnings-none\">No warnings: no repetition was contended, no run was disturbed or above its "
                 "roof, and every ceiling and pair could be measured.</p>\n</section>\n";
  out += fmt::format("<h2>What this measurement is worth: {} warning{}</h2>\n<ul>\n", warnings.size(),
                     warnings.size() == 1 ? "" : "s");
  for (const auto& w : warnings)
    out += fmt::format("<li class=\"warning warning-{}\" tabindex=\"0\" title=\"{}\">{}</li>\n", esc(model::to_string(w.kind)),
                       esc(w.text), esc(w.text));
  return out + "</ul>\n</section>\n";
}

// The verdict summary: both kinds of evidence counted apart, then the failing and the
// unsure claims, one line each (at most six lines: the first screen has room for the
// key results too).
std::string summary_section(const Results& results) {
  std::string out = "<section id=\"verdict-summary\" class=\"block\">\n";
  const auto& claims = results.claims;
  if (claims.empty()) {
    return out + "<p class=\"empty\">No claims were checked for this run. <code>lmroof run</code> and "
                 "<code>lmroof analyze</code> check the built-in ones (or <code>--claims FILE</code>); "
                 "<code>lmroof check RESULTS.json</code> prints verdicts for any results file.</p>\n</section>\n";
  }
  auto tally = [&](model::EvidenceKind kind) {
    int counts[4] = {0, 0, 0, 0};
    int total = 0, untrustworthy_holds = 0;
    for (const auto& c : claims)
      if (c.evidence_kind == kind) {
        ++total;
        // An untrustworthy "holds" is counted apart, never among the holds.
        if (c.untrustworthy && c.verdict == model::Verdict::holds)
          ++untrustworthy_holds;
        else
          ++counts[static_cast<int>(c.verdict)];
      }
    std::string line;
    for (auto v : {model::Verdict::fails, model::Verdict::inconclusive, model::Verdict::holds, model::Verdict::not_measured})
      if (const int n = counts[static_cast<int>(v)])
        line += fmt::format("<span class=\"count\">{} {}</span>", n, verdict_badge(v));
    if (untrustworthy_holds)
      line += fmt::format("<span class=\"count\">{} <span class=\"badge verdict-untrustworthy\">holds, untrustworthy</span></span>",
                          untrustworthy_holds);
    return std::pair{total, line};
  };
  const auto [n_measured, measured] = tally(model::EvidenceKind::measured);
  const auto [n_model, model_line] = tally(model::EvidenceKind::model);
  out += "<div class=\"tallies\">";
  if (n_measured)
    out += fmt::format("<div class=\"tally\"><span class=\"tally-label\">Measured on this machine</span>{}</div>", measured);
  if (n_model)
    out += fmt::format("<div class=\"tally\"><span class=\"tally-label\" title=\"These follow from the cost model's FLOPs "
                       "and bytes; no timing on this machine can contradict them.\">From the cost model</span>{}</div>",
                       model_line);
  out += "</div>\n";
  std::vector<const model::ClaimVerdict*> shown;
  for (const auto* c : verdicts_in_report_order(claims))
    if (c->verdict == model::Verdict::fails || c->verdict == model::Verdict::inconclusive) shown.push_back(c);
  const size_t kMax = 6;
  if (!shown.empty()) {
    out += "<ul class=\"attention\">\n";
    for (size_t i = 0; i < shown.size() && i < kMax; ++i)
      out += fmt::format("<li>{} <a href=\"#claim-{}\">{}</a> <span class=\"muted\">{}</span></li>\n",
                         verdict_badge(shown[i]->verdict), esc(shown[i]->id), esc(shown[i]->statement),
                         shown[i]->evidence_kind == model::EvidenceKind::model ? "(cost model)" : "");
    if (shown.size() > kMax)
      out += fmt::format("<li class=\"muted\">and {} more in <a href=\"#claims\">Claims</a></li>\n", shown.size() - kMax);
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

// Coloured by what the comparison shows by the claims' rule (model::ComparisonEvidence,
// decided by analysis/results/findings.h): the paired rounds where taken, beyond the pair's floor.
std::string speedup_class(const model::Results& results, const model::Comparison& c) {
  switch (results.evidence(c).shown) {
    case model::Shown::faster: return "gain";
    case model::Shown::slower: return "loss";
    default: return "even";
  }
}

// "1.64x [1.58–1.70] 10 paired rounds": the evidence that decides, with its count.
// `count`: the rounds (or repetitions) under it; the key results keep one line a row
// and say it in the cell's title.
std::string speedup_text(const model::Results& results, const model::Comparison& c, bool count = true) {
  const model::ComparisonEvidence& e = results.evidence(c);
  // Without paired rounds the value is the runs' medians': said on the value itself.
  const std::string unpaired = e.paired ? "" : " <span class=\"muted\">unpaired</span>";
  if (!e.low || !e.high) return esc(ratio(e.speedup)) + unpaired;
  std::string evidence = fmt::format("{} {}", e.rounds, e.paired ? "paired rounds" : "reps, unpaired: medians");
  // Two sittings: each one's speedup, which the interval covers (docs/claims.md#sittings).
  if (e.sittings.size() == 2)
    evidence += fmt::format(" in two sittings, {} then {}", ratio(e.sittings[0]), ratio(e.sittings[1]));
  if (!count)
    return fmt::format("<span title=\"{}\">{} <span class=\"ci\">[{}\u2013{}]</span>{}</span>", esc(evidence),
                       esc(ratio(e.speedup)), esc(sig(*e.low)), esc(sig(*e.high)), unpaired);
  return fmt::format("{} <span class=\"ci\">[{}\u2013{}]<br>{}</span>", esc(ratio(e.speedup)), esc(sig(*e.low)),
                     esc(sig(*e.high)), esc(evidence));
}

// "of which ~2x is a change of level: ..." under a comparison whose sides are judged at
// different memory levels (Comparison::level_change, computed by analysis).
std::string level_change_note(const model::Comparison& c) {
  return c.level_change ? fmt::format("<br><span class=\"level-change\">{}</span>", esc(*c.level_change)) : "";
}

// "1.52–1.77x (3 shapes)", with "unpaired" where some shape's speedup comes from the
// runs' medians, not paired rounds: the column uses the headline's estimator.
std::string over_shapes_text(double lo, double hi, int shapes, int unpaired) {
  const std::string mark = unpaired == 0        ? ""
                           : unpaired == shapes ? ", unpaired: medians"
                                                : fmt::format(", {} unpaired: medians", unpaired);
  return fmt::format("{}\u2013{} ({} shapes{})", sig(lo), ratio(hi), shapes, mark);
}

// Key results: one row per pair, for its headline comparison (the first the catalogue
// lists for it), the speedup at its largest shape (the longest baseline: least timer
// overhead) with the 95% interval, the range over all shapes and the bytes ratio. The
// pair's other comparisons are counted and listed under Comparisons, so the table
// stays one screen-line per pair however many comparisons a pair defines.
std::string key_results_section(const Results& results) {
  std::string out = "<section id=\"key-results\" class=\"block\">\n<h2>Key results</h2>\n";
  struct Row {
    const model::Comparison* headline = nullptr;
    double lo = 1e300, hi = 0;
    int shapes = 0;
    int unpaired = 0;  // shapes whose speedup comes from the runs' medians (no paired rounds)
  };
  std::vector<std::pair<std::string, Row>> rows;
  std::map<std::string, size_t> at;
  for (const auto& c : results.comparisons) {
    if (!c.claimed_by.empty()) continue;  // a claim's own pair of runs: under Comparisons, not a pair's headline
    const std::string key = fmt::format("{}|{}|{}|{}|{}|{}", c.pair, c.baseline.variant, c.baseline.impl,
                                        c.candidate.variant, c.candidate.impl, c.dtype);
    auto [it, fresh] = at.emplace(key, rows.size());
    if (fresh) rows.push_back({key, {}});
    Row& row = rows[it->second].second;
    const model::Run* base = results.run(c.baseline.run);
    const model::Run* best = row.headline ? results.run(row.headline->baseline.run) : nullptr;
    if (!row.headline || (base && best && base->time_s.median > best->time_s.median)) row.headline = &c;
    // The estimator that decides, as in the headline column: paired rounds where taken.
    const model::ComparisonEvidence& e = results.evidence(c);
    row.lo = std::min(row.lo, e.speedup), row.hi = std::max(row.hi, e.speedup);
    ++row.shapes;
    if (!e.paired) ++row.unpaired;
  }
  if (rows.empty()) return out + "<p class=\"empty\">No pair comparisons in this run.</p>\n</section>\n";
  std::map<std::string, int> more;  // a pair's comparisons beyond its headline
  {
    std::vector<std::pair<std::string, Row>> headline;
    for (auto& entry : rows) {
      const std::string& pair = entry.second.headline->pair;
      if (more.emplace(pair, 0).second) headline.push_back(std::move(entry));
      else ++more[pair];
    }
    rows = std::move(headline);
  }
  out += "<div class=\"table-wrap\"><table class=\"key-results\">\n<thead><tr><th>pair</th><th>baseline \u2192 candidate</th>"
         "<th>speedup [95% interval]</th><th>shape</th><th>over shapes</th><th>bytes ratio</th></tr></thead>\n<tbody>\n";
  for (const auto& [key, row] : rows) {
    const model::Comparison& c = *row.headline;
    const std::string impl = c.baseline.impl == c.candidate.impl
                                 ? c.baseline.impl
                                 : fmt::format("{} \u2192 {}", c.baseline.impl, c.candidate.impl);
    out += fmt::format(
        "<tr><td>{}</td><td>{} \u2192 <b>{}</b> <span class=\"muted\">{}</span></td><td class=\"num {}\">{}</td>"
        "<td class=\"shape\">{}</td><td class=\"num\">{}</td><td class=\"num\">{} <span class=\"muted\">{}</span></td></tr>\n",
        esc(c.pair) + (more[c.pair] ? fmt::format(" <span class=\"muted\">+{}</span>", more[c.pair]) : ""),
        esc(c.baseline.variant), esc(c.candidate.variant), esc(impl), speedup_class(results, c), speedup_text(results, c, false),
        esc(shape_label(results.catalogue, c.shape)),
        row.shapes > 1 ? esc(over_shapes_text(row.lo, row.hi, row.shapes, row.unpaired)) : "",
        esc(ratio(c.bytes_ratio)), esc(model::to_string(c.bytes_basis)));
    // Its own row, under the comparison: a sentence in a number column would widen the table.
    if (c.level_change)
      out += fmt::format("<tr class=\"level-change-row\"><td></td><td colspan=\"5\"><span class=\"level-change\">{}</span>"
                         "</td></tr>\n", esc(*c.level_change));
  }
  out += "</tbody></table></div>\n<p class=\"caption\">Speedup = baseline time / candidate time (above 1: the candidate "
         "is faster), from the paired rounds where taken (the Hodges\u2013Lehmann estimate of the rounds' ratios), else "
         "from the two runs' medians, marked unpaired; at the shape with the longest baseline, with the interval and "
         "count of that evidence, and over shapes by the same estimator; green or red only where the claims' rule shows a difference (the "
         "interval excludes 1 and lies beyond the pair's noise floor). Bytes ratio: candidate / baseline. One row per pair, its first comparison; +N counts its others. "
         "Every comparison and shape is under <a href=\"#comparisons\">Comparisons</a>.</p>\n";
  return out + "</section>\n";
}

std::string claims_section(const Results& results, const std::set<std::string>& anchors) {
  const auto& claims = results.claims;
  std::string out = "<section id=\"claims\" class=\"block\">\n<h2>Claims</h2>\n";
  if (claims.empty()) {
    out += "<p class=\"empty\">No claims were checked for this run (<code>claims</code> is empty). "
           "<code>lmroof analyze BENCH.json -o RESULTS.json</code> checks the built-in claims (or "
           "<code>--claims FILE</code>) and <code>lmroof check RESULTS.json</code> prints them.</p>\n</section>\n";
    return out;
  }
  std::set<std::string> files;
  for (const auto& c : claims)
    if (!c.claims_file.empty()) files.insert(c.claims_file);
  std::string file_list;
  for (const auto& f : files) file_list += (file_list.empty() ? "" : ", ") + fmt::format("<code>{}</code>", esc(f));
  // With --model the claims judge runs whose shapes came from that model: say so.
  const auto& model = results.machine.suite.model;
  const std::string on_model =
      model ? fmt::format(" Checked on runs whose shapes come from the model <b>{}</b> (<code>{}</code>).", esc(model->name),
                          esc(model->source))
            : "";
  out += fmt::format("<p class=\"caption\">{}. Failing claims first; open a claim for what was expected, why it is "
                     "inconclusive, its source and numbers.{}{}</p>\n",
                     esc(verdict_summary(claims)), file_list.empty() ? "" : " From " + file_list + ".", on_model);
  // Each pair's A/A noise floor: the smallest difference this machine could tell from none.
  // A floor beyond the bound (Findings::unmeasurable_pairs) says the pair cannot be measured here as set up: said first.
  const model::Findings& found = results.decided();
  if (const std::string floors = format_noise_floors(results); !floors.empty()) {
    const auto& unmeasurable = found.unmeasurable_pairs;
    out += fmt::format("<p class=\"caption\">{}{}. A comparison whose interval lies within its pair's floor is "
                       "inconclusive.</p>\n",
                       unmeasurable.empty() ? ""
                                            : fmt::format("<b class=\"fault\">Not measurable here as set up: {} (the "
                                                          "A/A floor beyond \u00b1{:.0f}%).</b> ",
                                                          esc(fmt::format("{}", fmt::join(unmeasurable, ", "))),
                                                          found.bounds.measurable_floor * 100),
                       esc(floors));
  }
  // The identity controls (same work on both sides): a control beyond its floor is a
  // measurement fault, said first, and its pair's verdicts are marked untrustworthy.
  // Less-work controls (the baseline does strictly less work) are listed with them.
  if (const auto& controls = found.controls; !controls.empty()) {
    std::vector<std::string> parts;
    for (const auto& c : controls)
      parts.push_back(fmt::format("{}{}{} {}: {:.3f}\u00d7 ({:.3f}\u2013{:.3f}){}{}", c.beyond_floor ? "<b class=\"fault\">" : "",
                                  c.kind == model::ControlKind::less_work ? "less work: " : "", esc(c.pair), esc(c.label), c.paired.speedup, *c.paired.low, *c.paired.high,
                                  c.floor ? fmt::format(", floor \u00b1{:.1f}%", *c.floor * 100) : "",
                                  c.beyond_floor ? ": MEASUREMENT FAULT, beyond the floor</b>" : ""));
    const auto& bad = found.untrustworthy_pairs;
    out += fmt::format("<p class=\"caption\">{}Identity controls (the same work on both sides by the cost model; their "
                       "speedup should be 1; \u201cless work\u201d: the baseline does strictly less work and should not be "
                       "slower): {}.</p>\n",
                       bad.empty() ? "" : fmt::format("<b class=\"fault\">Measurement fault: the verdicts of {} are "
                                                      "untrustworthy.</b> ", esc(fmt::format("{}", fmt::join(bad, ", ")))),
                       fmt::format("{}", fmt::join(parts, "; ")));
  }
  // Runs above their judged roof (Findings::roof_faults): measurement faults, said
  // first, like a control beyond its floor; and runs judged against an unstable roof.
  if (const auto& faults = found.roof_faults; !faults.empty()) {
    std::vector<std::string> parts;
    for (const auto& f : faults)
      parts.push_back(fmt::format("{} at {:.0f}% of {}{}", esc(f.run), f.fraction * 100, esc(f.roof),
                                  f.probed ? " (as probed next to it)" : ""));
    out += fmt::format("<p class=\"caption roof-faults\"><b class=\"fault\">Measurement fault: {} run{} above {:.0f}% of the roof "
                       "{} judged against</b> (a roof is the fastest the machine allows: the roof or the time is wrong, "
                       "and the verdicts resting on {} are untrustworthy): {}.</p>\n",
                       faults.size(), faults.size() == 1 ? "" : "s", found.bounds.roof_fault * 100,
                       faults.size() == 1 ? "it is" : "they are", faults.size() == 1 ? "it" : "them",
                       fmt::format("{}", fmt::join(parts, "; ")));
  }
  {
    std::vector<std::string> unstable;
    for (const auto& c : results.ceilings)
      if (c.unstable)
        unstable.push_back(fmt::format("{}{}", esc(c.name),
                                       c.spread ? fmt::format(" (repeats {:.0f}% apart)", *c.spread * 100) : ""));
    if (!unstable.empty())
      out += fmt::format("<p class=\"caption roof-faults\"><b class=\"fault\">Unstable roof{}: {}</b>: its repeats still disagreed "
                         "after a re-measurement; {} runs judged against it say so in the runs table.</p>\n",
                         unstable.size() == 1 ? "" : "s", fmt::format("{}", fmt::join(unstable, ", ")),
                         found.unstable_judgements.size());
  }
  // The bandwidth curve set aside (analysis/roofs/curve_agreement.h): the runs are judged
  // at the level ceilings, and the page says so before any verdict.
  if (const std::string curve = curve_set_aside_line(results); !curve.empty())
    out += fmt::format("<p class=\"caption roof-faults\"><b class=\"fault\">Bandwidth curve unstable</b>: {}.</p>\n",
                       esc(curve));
  out += "<div class=\"claims\">\n";
  auto or_dash = [](const std::string& s) { return s.empty() ? std::string(kDash) : s; };
  for (const auto* c : verdicts_in_report_order(claims)) {
    std::string link;
    if (!c->chart.empty())
      link = anchors.count(c->chart) ? fmt::format(" <a class=\"chart-link\" href=\"#chart-{0}\">{0}&nbsp;\u2193</a>", esc(c->chart))
                                     : fmt::format(" <span class=\"muted\">{} (not in this report)</span>", esc(c->chart));
    std::string details = fmt::format("<dl><dt>expected</dt><dd>{}</dd><dt>measured</dt><dd>{}</dd>", esc(or_dash(c->expected)),
                                      esc(or_dash(c->measured)));
    if (c->reason && !c->reason->empty())
      details += fmt::format("<dt>{}</dt><dd>{}</dd>", c->verdict == model::Verdict::inconclusive ? "why" : "reason",
                             esc(*c->reason));
    if (c->cause)
      details += fmt::format("<dt>cause</dt><dd><b>{}</b>{}</dd>", esc(model::to_string(*c->cause)),
                             c->cause_detail ? ": " + esc(*c->cause_detail) : std::string());
    if (c->untrustworthy) details += fmt::format("<dt>untrustworthy</dt><dd><b>{}</b></dd>", esc(*c->untrustworthy));
    details += fmt::format("<dt>source</dt><dd>{}</dd><dt>check</dt><dd><code>{}</code> ({}){}</dd></dl>",
                           esc(or_dash(c->source)), esc(c->id), esc(c->kind), link);
    // Failing and inconclusive claims: what was measured against what was expected, and
    // the cause, on the first screen (issue #34 item 10); the reason opens below.
    const bool open_question = c->verdict == model::Verdict::fails || c->verdict == model::Verdict::inconclusive;
    std::string headline = open_question ? fmt::format("measured {}; expected {}", c->measured, or_dash(c->expected))
                           : c->reason && c->verdict != model::Verdict::holds ? *c->reason
                                                                               : c->measured;
    if (headline.size() > 240) {
      size_t cut = headline.rfind(' ', 230);
      headline = headline.substr(0, cut == std::string::npos ? 230 : cut) + " \u2026";
    }
    if (open_question && c->cause)
      headline += fmt::format(" \u2014 cause: {}{}", model::to_string(*c->cause), c->cause_detail ? " (" + *c->cause_detail + ")" : "");
    if (c->untrustworthy) headline += " \u2014 untrustworthy: " + *c->untrustworthy;
    out += fmt::format(
        "<details class=\"claim\" id=\"claim-{}\"><summary>{} <span class=\"evidence-kind kind-{}\">{}</span> "
        "<span class=\"statement\">{}</span> <span class=\"headline\">{}</span></summary>{}</details>\n",
        esc(c->id), claim_badge(*c), esc(model::to_string(c->evidence_kind)),
        model::to_string(c->evidence_kind), esc(or_dash(c->statement)), esc(headline), details);
  }
  out += "</div>\n</section>\n";
  return out;
}

std::string metrics_banner(const Results& results) {
  const model::Machine& m = results.machine;
  std::string backend = esc(m.backend);
  backend += fmt::format(", {} thread{}", m.threads, m.threads == 1 ? "" : "s");
  backend += fmt::format(" on {} logical CPU{}", m.cores, m.cores == 1 ? "" : "s");
  const std::string& source = results.metrics.source;
  std::string metrics = source == "cupti" ? "<span class=\"tag\">cupti</span> measured with hardware counters"
                                          : "<span class=\"tag\">analytic</span> from the cost model";
  if (results.metrics.reason && !results.metrics.reason->empty())
    metrics += fmt::format(" \u2014 {}", esc(*results.metrics.reason));
  return fmt::format(
      "<div class=\"banner\" id=\"metrics\"><div><strong>Backend:</strong> {}</div><div><strong>FLOPs and bytes:</strong> "
      "{}</div></div>\n",
      backend, metrics);
}

std::string chart_section(const Chart& c) {
  return fmt::format(
      "<section class=\"block chart-section\" id=\"chart-{0}\">\n<h2>{1}</h2>\n<p class=\"caption\">{2}</p>\n"
      "<div class=\"chart\" data-chart=\"{0}\"></div>\n</section>\n",
      esc(c.id), esc(c.title), esc(c.caption));
}

std::string comparisons_section(const Results& results, const std::string& csv_name) {
  const auto& comparisons = results.comparisons;
  std::string out = "<section id=\"comparisons\" class=\"block\">\n<h2>Comparisons</h2>\n";
  if (comparisons.empty()) return out + "<p class=\"empty\">No pair comparisons in this run.</p>\n</section>\n";
  out += fmt::format(
      "<p class=\"caption\">speedup = baseline time / candidate time (above 1: the candidate is faster) with the 95% "
      "interval and count of the evidence that decides, as the claims judge it: the paired, interleaved rounds where "
      "they were taken (drift common to both sides cancels in them), else the two runs' repetitions (bootstrap). Green "
      "or red only where that interval excludes 1 and lies beyond the pair's A/A noise floor (shown: the difference "
      "this machine can tell from none). Ratios are candidate / baseline; a note under the bytes ratio says when the "
      "two sides are judged at different memory levels. <a href=\"{}\" download>CSV</a></p>\n",
      esc(csv_name));
  out += "<div class=\"table-wrap\"><table class=\"comparisons\">\n<thead><tr><th>pair</th><th>shape</th>"
         "<th>baseline \u2192 candidate</th><th>speedup [95%] evidence</th><th>shows</th><th>floor</th>"
         "<th>bytes ratio</th><th>FLOPs ratio</th><th title=\"how far the machine's DRAM read bandwidth moved between "
         "the two runs (their probes; runs that stream from DRAM): the claims widen an unpaired interval by it\">machine "
         "drift</th></tr></thead>\n<tbody>\n";
  for (const auto& c : comparisons) {
    const model::ComparisonEvidence& e = results.evidence(c);
    out += fmt::format(
        "<tr><td>{}</td><td class=\"shape\">{}</td><td>{} / {} \u2192 {} / {}</td><td class=\"num {}\">{}</td>"
        "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        esc(c.pair), esc(shape_label(results.catalogue, c.shape)), esc(c.baseline.variant), esc(c.baseline.impl),
        esc(c.candidate.variant), esc(c.candidate.impl), speedup_class(results, c), speedup_text(results, c),
        esc(model::to_string(e.shown)), esc(e.floor ? "\u00b1" + percent(*e.floor) : std::string(kDash)),
        esc(ratio(c.bytes_ratio)), level_change_note(c), esc(ratio(c.flops_ratio)),
        esc(c.machine_drift ? percent(*c.machine_drift) : std::string(kDash)));
  }
  return out + "</tbody></table></div>\n</section>\n";
}

std::string runs_section(const Results& results, const std::string& csv_name) {
  const auto& runs = results.runs;
  std::string out = "<section id=\"chart-runs-table\" class=\"block\">\n<h2>All runs</h2>\n";
  if (runs.empty()) return out + "<p class=\"empty\">This results file has no runs.</p>\n</section>\n";
  out += fmt::format("<p class=\"caption\">{} runs. Click a column header to sort; hover a row for the run id. "
                     "<a href=\"{}\" download>CSV</a></p>\n", runs.size(), esc(csv_name));
  out += "<div class=\"table-wrap\"><table id=\"runs-table\" class=\"sortable\">\n<thead><tr>"
         "<th data-type=\"text\">pair</th><th data-type=\"text\">variant</th><th data-type=\"text\">impl</th>"
         "<th data-type=\"text\">shape</th><th data-type=\"num\">median time</th><th data-type=\"num\">GFLOP/s</th>"
         "<th data-type=\"num\">GB/s</th><th data-type=\"num\">intensity (FLOP/B)</th><th data-type=\"text\">bound</th>"
         "<th data-type=\"num\" title=\"speed of light: the fraction of the roof this run is judged against (its "
         "traffic and working set decide which; docs/cost-model.md). The one fraction of a roof this table shows: above "
         + fmt::format("{:.0f}", results.decided().bounds.roof_fault * 100) + "% is a measurement fault\">SoL (of judged roof)</th><th data-type=\"text\">judged against</th>"
         "<th data-type=\"text\" title=\"where its bytes are judged to come from: the memory level holding its "
         "working set on the bandwidth curve (or the cache roof chosen, in files without a curve)\">level</th>"
         "<th data-type=\"num\" title=\"the same, against the DRAM read and copy_nt roofs probed right after each "
         "repetition of this run (runs that stream from DRAM)\">SoL at probe</th>"
         "<th data-type=\"num\">bytes measured</th>"
         "<th data-type=\"num\" title=\"bytes moved over the minimum (each input read once, each output written "
         "once): measured when counters ran, else the cost model's\">bytes vs minimum</th></tr></thead>\n<tbody>\n";
  for (const Run& r : runs) {
    std::string row = fmt::format("<tr title=\"{}\">", esc(r.id));
    for (const auto* field : {&r.pair, &r.variant, &r.impl}) row += fmt::format("<td>{}</td>", esc(*field));
    row += fmt::format("<td class=\"shape\">{}</td>", esc(shape_label(results.catalogue, r.shape)));
    row += num_cell(r.time_s.median, si(r.time_s.median, "s"));
    row += num_cell(r.achieved.flop_per_s, sig(r.achieved.flop_per_s / 1e9));
    row += num_cell(r.achieved.byte_per_s, sig(r.achieved.byte_per_s / 1e9));
    row += num_cell(r.intensity.value, sig(r.intensity.value));
    const std::string bound = r.bound ? std::string(model::to_string(*r.bound)) : std::string(kDash);
    row += fmt::format("<td><span class=\"bound bound-{}\">{}</span></td>", r.bound ? bound : "other", esc(bound));
    const auto sol = model::sol_fraction(r.judged_against), sol_probe = model::sol_fraction(r.judged_against_probe);
    std::string sol_text = sol ? esc(percent(*sol)) : "";
    if (results.roof_fault(r)) sol_text = "<b class=\"fault\">" + sol_text + " (measurement fault)</b>";
    row += sol ? fmt::format("<td class=\"num\" data-sort=\"{:.17g}\">{}</td>", *sol, sol_text)
               : fmt::format("<td class=\"num\" data-sort=\"\">{}</td>", kDash);
    std::string judged = sol ? esc(*r.judged_against->roof) : "";
    if (sol && r.judged_against->composite) judged += " <span class=\"muted\">(sum of its steps)</span>";
    if (sol && !r.judged_against->unstable_ceilings.empty())
      judged += fmt::format(" <b class=\"fault\">unstable: {}</b>", esc(fmt::format("{}", fmt::join(r.judged_against->unstable_ceilings, ", "))));
    row += fmt::format("<td>{}</td>", judged);
    row += fmt::format("<td>{}</td>", esc(sol ? results.judged_level(r).value_or("") : std::string()));
    row += num_cell(sol_probe, sol_probe ? percent(*sol_probe) : "");
    const auto& measured = r.bytes.measured;
    row += num_cell(measured, measured ? si(*measured, "B") : "");
    // "This kernel moved 1.9x the bytes it must."
    const auto& over = measured ? r.bytes.measured_over_minimum : r.bytes.model_over_minimum;
    row += num_cell(over, over ? sig(*over) + "\u00d7" + (measured ? "" : " (model)") : "");
    out += row + "</tr>\n";
  }
  return out + "</tbody></table></div>\n</section>\n";
}

// "attn_norm+qkv+...": a break opportunity after each '+', so a block's eleven ops wrap
// inside their cell instead of widening the table.
std::string wrappable_ops(const std::string& ops) {
  std::string out;
  for (char c : esc(ops)) out += c == '+' ? std::string("+\u200b") : std::string(1, c);
  return out;
}

// `lmroof run --model`: each predicted run beside its measurement (runs[].predicted).
std::string predictions_section(const Results& results) {
  const model::PredictionErrors& e = results.decided().prediction_errors;
  if (e.predicted == 0) return "";
  std::string out = "<section id=\"predictions\" class=\"block\">\n<h2>Predicted against measured</h2>\n";
  out += "<p class=\"caption\">Each attention-layer, MLP and block run predicted by <code>lmroof predict</code>'s per-op "
         "model (per launch max(F/P, B/W) + t0, the ops as <code>predict</code> counts them) from this run's own "
         "ceilings; error = (predicted \u2212 measured) / measured, negative where the prediction is optimistic. The "
         "roofline marks each prediction with a hollow circle.";
  if (e.long_runs > 0)
    out += fmt::format(" Runs of 1 ms or more: {} of {} within 25%, median |error| {}, worst {} ({}).", e.within_25pct,
                       e.long_runs, esc(percent(e.median_abs_error)), esc(percent(e.worst_error)), esc(e.worst_run));
  out += "</p>\n<div class=\"table-wrap\"><table class=\"predictions sortable\">\n<thead><tr><th data-type=\"text\">pair</th>"
         "<th data-type=\"text\">variant</th><th data-type=\"text\">impl</th><th data-type=\"text\">shape</th>"
         "<th data-type=\"num\">measured</th><th data-type=\"num\">predicted</th><th data-type=\"num\">error</th>"
         "<th data-type=\"text\">measured bound</th><th data-type=\"text\">predicted bound</th><th data-type=\"text\">ops</th>"
         "</tr></thead>\n<tbody>\n";
  for (const Run& r : results.runs) {
    if (!r.predicted) continue;
    const std::string bound = r.bound ? std::string(model::to_string(*r.bound)) : std::string(kDash);
    out += fmt::format("<tr title=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"shape\">{}</td>", esc(r.id), esc(r.pair),
                       esc(r.variant), esc(r.impl), esc(shape_label(results.catalogue, r.shape)));
    out += num_cell(r.time_s.median, si(r.time_s.median, "s")) + num_cell(r.predicted->time_s, si(r.predicted->time_s, "s"));
    out += num_cell(r.predicted->error, percent(r.predicted->error));
    out += fmt::format("<td><span class=\"bound bound-{0}\">{0}</span></td><td><span class=\"bound bound-{1}\">{1}</span></td>"
                       "<td class=\"detail\">{2}</td></tr>\n", esc(bound), esc(r.predicted->bound), wrappable_ops(r.predicted->ops));
  }
  const auto basis = std::find_if(results.runs.begin(), results.runs.end(), [](const Run& r) { return r.predicted.has_value(); });
  return out + fmt::format("</tbody></table></div>\n<p class=\"note\">{}</p>\n</section>\n", esc(basis->predicted->basis));
}

std::string machine_section(const Results& results) {
  const model::Machine& m = results.machine;
  std::string out = "<section id=\"machine\" class=\"block\">\n<h2>Machine</h2>\n<dl class=\"machine\">\n";
  std::vector<std::pair<std::string, std::string>> facts = {
      {"backend", m.backend}, {"cpu_model", m.cpu_model}, {"cores", std::to_string(m.cores)},
      {"threads", std::to_string(m.threads)}, {"host_pages", m.host_pages}, {"blas", m.blas}};
  if (m.cpu_mhz) facts.emplace_back("cpu_mhz", integer_or_sig(*m.cpu_mhz));
  facts.emplace_back("gpu", m.gpu ? fmt::format("{}; compute capability {}; {} SMs; memory {}; L2 {}; driver {}", m.gpu->name,
                                                m.gpu->compute_capability, m.gpu->sm_count, si(m.gpu->memory_bytes, "B"),
                                                si(m.gpu->l2_bytes, "B"), m.gpu->driver)
                                  : std::string(kDash));
  for (const auto& [k, v] : {std::pair<std::string, std::string>{"compiler", m.compiler}, {"build_type", m.build_type},
                             {"build_flags", m.build_flags}, {"cuda_compiler", m.cuda_compiler.value_or(std::string(kDash))},
                             {"lmroof_version", m.lmroof_version}, {"git_commit", m.git_commit},
                             {"bench_date", m.bench_date.value_or(std::string(kDash))}, {"date", m.date},
                             {"hostname", m.hostname}}) {
    if (k == "cuda_compiler" && m.backend != "cuda") continue;  // the toolkit did not run on a CPU run
    facts.emplace_back(k, v);
  }
  std::string suite = m.suite.pairs ? fmt::format("pairs: {}", fmt::join(*m.suite.pairs, ", ")) : "pairs: all";
  suite += m.suite.quick ? "; quick" : "";
  if (m.suite.model) {
    suite += fmt::format("; model: {} ({})", m.suite.model->name, m.suite.model->source);
    for (const auto& [d, v] : m.suite.model->dims) suite += fmt::format(" {}={}", d, v);
  }
  facts.emplace_back("suite", suite);
  for (const auto& [k, v] : facts) out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", esc(k), esc(v.empty() ? std::string(kDash) : v));
  out += "</dl>\n<h3>Ceilings</h3>\n";
  if (results.ceilings.empty()) return out + "<p class=\"empty\">No ceilings were measured.</p>\n</section>\n";
  std::map<std::string, std::string> roles;
  for (const auto& [role, name] : {std::pair{"bandwidth", &results.roofs.bandwidth}, std::pair{"vector", &results.roofs.vector},
                                   std::pair{"matrix", &results.roofs.matrix}, std::pair{"l2_bandwidth", &results.roofs.l2_bandwidth},
                                   std::pair{"launch (t0)", &results.roofs.launch}})
    if (*name) roles[**name] += (roles[**name].empty() ? "" : ", ") + std::string(role);
  out += "<div class=\"table-wrap\"><table class=\"ceilings\">\n<thead><tr><th>name</th><th>kind</th><th>value</th><th>unit</th>"
         "<th>source</th><th>roof</th><th>detail</th></tr></thead>\n<tbody>\n";
  for (const auto& c : results.ceilings) {
    std::string detail = c.detail.empty() ? std::string(kDash) : c.detail;
    // The drift is over all three figures (model::Ceiling::drift): they are printed
    // together, so the percentage reads against the figures beside it.
    if (const auto drift = c.drift())
      detail += fmt::format("; best before the suite {}{}, after it {}: the lowest {:.0f}% below the highest",
                            si(*c.best_before_suite, c.unit()),
                            c.best_probed_during_suite
                                ? fmt::format(", during it {} (the best run's probe, the roof)",
                                              si(*c.best_probed_during_suite, c.unit()))
                                : std::string(),
                            si(*c.best_after_suite, c.unit()), 100 * *drift);
    else if (c.best_probed_during_suite)
      detail += fmt::format("; the best run's probe during the suite {} (the roof)", si(*c.best_probed_during_suite, c.unit()));
    out += fmt::format(
        "<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"detail\">{}</td></tr>\n",
        esc(c.name), esc(model::to_string(c.kind)), esc(si(c.value, c.unit())), esc(c.unit()), esc(c.source),
        esc(roles.count(c.name) ? roles[c.name] : std::string(kDash)), esc(detail));
  }
  out += "</tbody></table></div>\n";
  if (results.roofs.launch)
    out += fmt::format("<p class=\"note\">A run whose median time is within {}\u00d7 of the launch ceiling t0 is "
                       "<span class=\"bound bound-latency\">latency</span>-bound: a fixed cost per launch, not its bytes "
                       "or FLOPs, holds most of its time.</p>\n", sig(results.decided().bounds.latency_bound, 1));
  else
    out += fmt::format("<p class=\"note\">No launch ceiling t0: {}. No run is placed latency-bound.</p>\n",
                       esc(results.roofs.launch_reason.value_or("not measured")));
  if (const std::string& moved = results.decided().roofs_that_moved; !moved.empty())
    out += fmt::format(
        "<p class=\"note\">The memory roofs moved while the suite ran ({}). They are measured before and again after "
        "the suite and the best of both is the roof, so a memory-bound run's fraction of it is uncertain by about that "
        "much.</p>\n",
        esc(moved));
  return out + "</section>\n";
}

// Replaces each @@NAME@@ in the template with its value, in one pass (values are
// never scanned again).
std::string fill_template(std::string_view tmpl, const std::map<std::string, std::string>& values) {
  std::string out;
  out.reserve(tmpl.size() + 1024 * 1024);
  std::set<std::string> used;
  size_t pos = 0;
  while (true) {
    const size_t start = tmpl.find("@@", pos);
    if (start == std::string_view::npos) break;
    const size_t end = tmpl.find("@@", start + 2);
    if (end == std::string_view::npos) break;
    const std::string name(tmpl.substr(start + 2, end - start - 2));
    auto it = values.find(name);
    if (it == values.end()) throw std::logic_error(fmt::format("report template: unknown placeholder @@{}@@", name));
    out.append(tmpl.substr(pos, start - pos));
    out += it->second;
    used.insert(name);
    pos = end + 2;
  }
  out.append(tmpl.substr(pos));
  for (const auto& [name, _] : values)
    if (!used.count(name)) throw std::logic_error(fmt::format("report template: placeholder @@{}@@ is missing", name));
  return out;
}

struct Rendered {
  std::string html;
  std::vector<Chart> charts;
};

Rendered render(const Results& results, const std::string& csv_name) {
  Rendered out;
  out.charts = build_charts(results);

  std::set<std::string> anchors = {std::string(model::kRunsTableChart)};
  for (const auto& c : out.charts) anchors.insert(c.id);

  std::string content = header_section(results, out.charts);
  content += "<main>\n";
  content += warnings_section(results);
  content += summary_section(results);
  content += not_timed_section(results);
  content += key_results_section(results);
  bool first = true;
  for (const auto& c : out.charts) {
    content += chart_section(c);
    // The roofline first, then the claims in full, then the pair charts.
    if (first) content += claims_section(results, anchors) + metrics_banner(results);
    first = false;
  }
  if (out.charts.empty()) content += claims_section(results, anchors) + metrics_banner(results);
  content += comparisons_section(results, csv_name + ".comparisons.csv");
  content += kernels_section(results);
  content += runs_section(results, csv_name + ".runs.csv");
  content += predictions_section(results);
  content += machine_section(results);
  content += "</main>\n";
  content += fmt::format(
      "<footer>Written by lmroof from a {} document{}. Self-contained: Vega, Vega-Lite and vega-embed are inlined and the "
      "page loads nothing from the network.</footer>\n",
      model::kResultsSchema,
      results.bench_json.empty() ? "" : fmt::format(" (raw Google Benchmark JSON: <code>{}</code>)", esc(results.bench_json)));

  std::string title = "lmroof report";
  for (const auto* v : {&results.machine.backend, &results.machine.hostname, &results.machine.date})
    if (!v->empty()) title += " \u00b7 " + *v;

  out.html = render_page_html(title, content, out.charts);
  return out;
}

}  // namespace

std::string render_report_html(const Results& results) { return render(results, "report").html; }

std::string chart_section_html(const Chart& chart) { return chart_section(chart); }

std::string render_page_html(std::string_view title, std::string_view content, const std::vector<Chart>& charts) {
  json chart_list = json::array();
  for (const auto& c : charts) chart_list.push_back({{"id", c.id}, {"spec", c.spec}});
  std::string css(assets::report_css());
  for (size_t p = 0; (p = css.find("</style", p)) != std::string::npos;) css.replace(p, 2, "<\\/");
  return fill_template(assets::report_template_html(),
                       {{"TITLE", esc(title)},
                        {"CSS", css},
                        {"BODY_ATTRS", fmt::format("data-charts-expected=\"{}\" data-charts-rendered=\"0\" data-report-errors=\"0\" "
                                                   "data-report-state=\"loading\"",
                                                   charts.size())},
                        {"CONTENT", std::string(content)},
                        {"REPORT_JS", script_safe(assets::report_js())},
                        {"VEGA_JS", script_safe(assets::vega_js())},
                        {"VEGA_LITE_JS", script_safe(assets::vega_lite_js())},
                        {"VEGA_EMBED_JS", script_safe(assets::vega_embed_js())},
                        {"CHARTS_JSON", json_in_script(chart_list)}});
}

std::vector<OutputContents> report_files(const Results& results, const std::filesystem::path& html_path) {
  const std::filesystem::path dir = html_path.parent_path();
  const std::string stem = html_path.stem().string();
  Rendered rendered = render(results, stem);
  std::vector<OutputContents> files;
  files.push_back({dir / (stem + ".runs.csv"), report::runs_csv(results)});
  files.push_back({dir / (stem + ".comparisons.csv"), report::comparisons_csv(results)});
  for (const auto& c : rendered.charts)
    files.push_back({dir / fmt::format("{}.{}.vl.json", stem, c.id), c.spec.dump(2, ' ', false, json::error_handler_t::replace) + "\n"});
  files.push_back({html_path, std::move(rendered.html)});
  files.back().contents += side_files_record(files);  // the next page at this name removes those it lacks
  return files;
}

void write_report(const Results& results, const std::filesystem::path& html_path) {
  write_files_as_set(report_files(results, html_path));
}

}  // namespace lmroof
