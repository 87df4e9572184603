// The fleet report; see reports/fleet_report.h.
#include "reports/fleet_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/io/atomic_write.h"
#include "analysis/numbers/numbers.h"
#include "reports/charts.h"
#include "reports/text/format.h"
#include "reports/html_report.h"

namespace lmroof::report {

namespace {

using nlohmann::json;
using fleet::Fleet;
using fleet::FleetRun;
using fleet::Machine;

bool placed(const FleetRun& r) { return r.intensity && *r.intensity > 0 && r.flop_per_s && *r.flop_per_s > 0; }

json machine_order(const Fleet& fleet) {
  json order = json::array();
  for (const auto& m : fleet.machines) order.push_back(m.label);
  return order;
}

json run_tooltip() {
  return json::array({{{"field", "machine"}}, {{"field", "run"}}, {{"field", "intensity"}, {"format", ".3g"}, {"title", "FLOP/byte"}},
                      {{"field", "flops"}, {"format", ".3s"}, {"title", "FLOP/s"}}, {{"field", "fraction"}, {"format", ".1%"}, {"title", "of roof"}}});
}

// Each machine's roofline, one panel per machine, on shared log axes: its roofs as
// lines, its runs as points.
json side_by_side_rooflines(const Fleet& fleet) {
  json values = json::array();
  for (const auto& m : fleet.machines) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& r : m.runs)
      if (placed(r)) {
        lo = std::min(lo, *r.intensity);
        hi = std::max(hi, *r.intensity);
        values.push_back({{"machine", m.label}, {"kind", "run"}, {"x", *r.intensity}, {"y", *r.flop_per_s}, {"pair", r.pair},
                          {"impl", r.impl}, {"run", r.id + " " + r.shape}, {"intensity", *r.intensity}, {"flops", *r.flop_per_s},
                          {"fraction", r.roof_fraction ? json(*r.roof_fraction) : json(nullptr)}});
      }
    if (!m.bandwidth || hi == 0) continue;
    // Roof lines over the runs' range, widened to show each ridge.
    for (const auto& compute : {m.vector, m.matrix}) {
      if (!compute) continue;
      const double ridge = compute->value / m.bandwidth->value;
      const double from = std::min(lo, ridge) / 4, to = std::max(hi, ridge) * 4;
      const std::string name = fmt::format("{} / {}", m.bandwidth->name, compute->name);
      for (double x : {from, ridge, to})
        values.push_back({{"machine", m.label}, {"kind", "roof"}, {"roof", name}, {"x", x}, {"y", std::min(compute->value, x * m.bandwidth->value)}});
    }
  }
  if (values.empty()) return nullptr;
  const json x = {{"field", "x"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"title", "arithmetic intensity (FLOP/byte)"}};
  const json y = {{"field", "y"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"title", "FLOP/s"}, {"axis", {{"format", ".2s"}}}};
  return {{"$schema", kVegaLiteSchema},
          {"data", {{"values", values}}},
          {"facet", {{"column", {{"field", "machine"}, {"type", "nominal"}, {"title", nullptr}, {"sort", machine_order(fleet)}}}}},
          {"spec",
           {{"width", 300},
            {"height", 260},
            {"layer",
             json::array({{{"transform", json::array({{{"filter", "datum.kind === 'roof'"}}})},
                           {"mark", {{"type", "line"}, {"color", "#59636e"}}},
                           {"encoding", {{"x", x}, {"y", y}, {"detail", {{"field", "roof"}, {"type", "nominal"}}},
                                         {"tooltip", json::array({{{"field", "roof"}, {"title", "roof"}}})}}}},
                          {{"transform", json::array({{{"filter", "datum.kind === 'run'"}}})},
                           {"mark", {{"type", "point"}, {"filled", true}, {"size", 50}}},
                           {"encoding", {{"x", x}, {"y", y}, {"color", {{"field", "pair"}, {"type", "nominal"}}},
                                         {"shape", {{"field", "impl"}, {"type", "nominal"}}}, {"tooltip", run_tooltip()}}}}})}}}};
}

// Every run on one chart, each relative to its own machine: intensity over the
// ridge of the roof it was placed under, FLOP/s over that compute roof. The roof is
// then the same for every machine: min(1, x).
json normalized_roofline(const Fleet& fleet) {
  json values = json::array();
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& m : fleet.machines)
    for (const auto& r : m.runs) {
      if (!placed(r) || !r.ridge || !r.compute || *r.ridge <= 0 || *r.compute <= 0) continue;
      const double x = *r.intensity / *r.ridge;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      values.push_back({{"kind", "run"}, {"machine", m.label}, {"pair", r.pair}, {"x", x}, {"y", *r.flop_per_s / *r.compute},
                        {"run", r.id + " " + r.shape}, {"intensity", *r.intensity}, {"flops", *r.flop_per_s},
                        {"fraction", r.roof_fraction ? json(*r.roof_fraction) : json(nullptr)}});
    }
  if (values.empty()) return nullptr;
  for (double x : {std::min(lo, 1.0) / 4, 1.0, std::max(hi, 1.0) * 4}) values.push_back({{"kind", "roof"}, {"x", x}, {"y", std::min(1.0, x)}});
  const json x = {{"field", "x"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"title", "intensity / the machine's ridge"}};
  const json y = {{"field", "y"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"title", "FLOP/s / the machine's compute roof"}};
  return {{"$schema", kVegaLiteSchema},
          {"width", 560},
          {"height", 340},
          {"data", {{"values", values}}},
          {"layer",
           json::array({{{"transform", json::array({{{"filter", "datum.kind === 'roof'"}}})},
                         {"mark", {{"type", "line"}, {"color", "#59636e"}}},
                         {"encoding", {{"x", x}, {"y", y}}}},
                        {{"transform", json::array({{{"filter", "datum.kind === 'run'"}}})},
                         {"mark", {{"type", "point"}, {"filled", true}, {"size", 50}}},
                         {"encoding", {{"x", x}, {"y", y},
                                       {"color", {{"field", "machine"}, {"type", "nominal"}, {"sort", machine_order(fleet)}}},
                                       {"shape", {{"field", "pair"}, {"type", "nominal"}}}, {"tooltip", run_tooltip()}}}}})}};
}

// One pair on every machine: the fraction of the roof each variant and level
// achieved, one point per shape, machines side by side.
json pair_chart(const Fleet& fleet, const std::string& pair) {
  json values = json::array();
  for (const auto& m : fleet.machines)
    for (const auto& r : m.runs)
      if (r.pair == pair && r.roof_fraction)
        values.push_back({{"machine", m.label}, {"combo", r.variant + " \u00b7 " + r.impl}, {"fraction", *r.roof_fraction},
                          {"shape", r.shape}, {"median", r.median_s}});
  if (values.empty()) return nullptr;
  return {{"$schema", kVegaLiteSchema},
          {"width", {{"step", 70}}},
          {"height", 240},
          {"data", {{"values", values}}},
          {"mark", {{"type", "point"}, {"filled", true}, {"size", 60}}},
          {"encoding",
           {{"x", {{"field", "combo"}, {"type", "nominal"}, {"title", "variant \u00b7 level"}, {"sort", nullptr}, {"axis", {{"labelAngle", -30}}}}},
            {"xOffset", {{"field", "machine"}, {"type", "nominal"}, {"sort", machine_order(fleet)}}},
            {"y", {{"field", "fraction"}, {"type", "quantitative"}, {"title", "fraction of the roof achieved"}, {"axis", {{"format", ".0%"}}}}},
            {"color", {{"field", "machine"}, {"type", "nominal"}, {"sort", machine_order(fleet)}}},
            {"tooltip", json::array({{{"field", "machine"}}, {{"field", "combo"}}, {{"field", "shape"}},
                                     {{"field", "fraction"}, {"format", ".1%"}}, {{"field", "median"}, {"format", ".3s"}, {"title", "median s"}}})}}}};
}

std::string chart_id(const std::string& pair) {
  std::string id = "fleet-pair-";
  for (char c : pair) id += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '-';
  return id;
}

std::string verdict_class(const std::string& verdict) {
  std::string cls = verdict;
  std::replace(cls.begin(), cls.end(), ' ', '-');
  return cls == "holds" || cls == "fails" || cls == "inconclusive" || cls == "not-measured" ? cls : "unknown";
}

std::string machines_section(const Fleet& fleet) {
  std::string out =
      "<section class=\"block\" id=\"machines\">\n<h2>Machines</h2>\n<div class=\"table-wrap\"><table id=\"machines-table\">\n"
      "<thead><tr><th>machine</th><th>hardware</th><th>date</th><th>host</th><th>bandwidth roof</th><th>compute roofs</th>"
      "<th>ridge</th><th>runs</th><th>file</th></tr></thead>\n<tbody>\n";
  for (const auto& m : fleet.machines) {
    auto roof_text = [](const std::optional<fleet::Roof>& r, std::string_view unit) {
      return r ? fmt::format("{} {}", numbers::si(r->value, unit), r->name) : std::string(numbers::kDash);
    };
    std::string compute = roof_text(m.vector, "FLOP/s");
    if (m.matrix) compute += "; " + roof_text(m.matrix, "FLOP/s");
    out += fmt::format("<tr><td><strong>{}</strong></td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}</td><td class=\"num\">{}</td><td><code>{}</code></td></tr>\n",
                       html_escape(m.label), html_escape(m.description), html_escape(m.date), html_escape(m.hostname),
                       html_escape(roof_text(m.bandwidth, "B/s")), html_escape(compute),
                       m.ridge() ? html_escape(numbers::sig(*m.ridge()) + " FLOP/byte") : std::string(numbers::kDash), m.runs.size(), html_escape(m.file));
  }
  return out + "</tbody></table></div>\n</section>\n";
}

// Claims x machines: one row per claim (in the order first seen), one column per
// machine; a claim a machine did not check says so.
std::string claims_matrix(const Fleet& fleet) {
  std::vector<const fleet::FleetClaim*> claims;
  std::set<std::string> seen;
  for (const auto& m : fleet.machines)
    for (const auto& c : m.claims)
      if (seen.insert(c.id).second) claims.push_back(&c);
  std::string out = "<section class=\"block\" id=\"claims\">\n<h2>Claims \u00d7 machines</h2>\n";
  out += "<p class=\"caption\">Does each lecture claim hold on each machine? Hover a verdict for the numbers behind it.</p>\n";
  out += "<div class=\"table-wrap\"><table class=\"claims\" id=\"claims-matrix\">\n<thead><tr><th>claim</th>";
  for (const auto& m : fleet.machines) out += "<th>" + html_escape(m.label) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  if (claims.empty())
    out += fmt::format("<tr><td colspan=\"{}\" class=\"empty\">No machine's results hold claim verdicts (run without "
                       "<code>--no-claims</code>, or <code>lmroof check</code>).</td></tr>\n", fleet.machines.size() + 1);
  for (const auto* claim : claims) {
    out += fmt::format("<tr><td>{}<br><span class=\"claim-id\">{}</span></td>", html_escape(claim->statement), html_escape(claim->id));
    for (const auto& m : fleet.machines) {
      auto it = std::find_if(m.claims.begin(), m.claims.end(), [&](const fleet::FleetClaim& c) { return c.id == claim->id; });
      if (it == m.claims.end()) {
        out += "<td><span class=\"badge verdict-unknown\">not checked</span></td>";
        continue;
      }
      out += fmt::format("<td><span class=\"badge verdict-{}\" title=\"{}\">{}</span></td>", verdict_class(it->verdict),
                         html_escape(it->measured), html_escape(it->verdict));
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n</section>\n";
}

std::string runs_section(const Fleet& fleet) {
  std::string out =
      "<section class=\"block\" id=\"fleet-runs\">\n<h2>Runs</h2>\n<div class=\"table-wrap\"><table class=\"sortable\" id=\"fleet-runs-table\">\n"
      "<thead><tr><th>machine</th><th>run</th><th>shape</th><th data-type=\"num\">median time</th><th data-type=\"num\">intensity</th>"
      "<th data-type=\"num\">achieved</th><th data-type=\"num\">of roof</th><th>bound</th></tr></thead>\n<tbody>\n";
  auto num = [](const std::optional<double>& v, auto format) {
    return v ? fmt::format("<td class=\"num\" data-sort=\"{}\">{}</td>", *v, html_escape(format(*v)))
             : fmt::format("<td class=\"num\" data-sort=\"\">{}</td>", numbers::kDash);
  };
  for (const auto& m : fleet.machines)
    for (const auto& r : m.runs)
      out += fmt::format("<tr><td>{}</td><td><code>{}/{}/{}/{}</code></td><td class=\"shape\">{}</td>{}{}{}{}<td>{}</td></tr>\n",
                         html_escape(m.label), html_escape(r.pair), html_escape(r.variant), html_escape(r.impl), html_escape(r.dtype),
                         html_escape(r.shape), num(r.median_s, [](double v) { return numbers::si(v, "s"); }),
                         num(r.intensity, [](double v) { return numbers::sig(v) + " FLOP/B"; }),
                         num(r.flop_per_s, [](double v) { return numbers::si(v, "FLOP/s"); }), num(r.roof_fraction, [](double v) { return numbers::percent(v); }),
                         r.bound.empty() ? std::string(numbers::kDash) : html_escape(r.bound));
  return out + "</tbody></table></div>\n</section>\n";
}

}  // namespace

std::vector<Chart> fleet_charts(const Fleet& fleet) {
  std::vector<Chart> charts;
  if (json spec = side_by_side_rooflines(fleet); !spec.is_null())
    charts.push_back({"fleet-rooflines", "Each machine's roofline",
                      "One panel per machine on shared axes: its measured roofs (bandwidth up to each compute roof) and its runs.", spec});
  if (json spec = normalized_roofline(fleet); !spec.is_null())
    charts.push_back({"fleet-normalized", "All machines on one roofline",
                      "Each run relative to its own machine: intensity over the ridge of the roof it ran under, FLOP/s over that "
                      "compute roof. Left of 1 a run is memory-bound on its machine; the roof min(1, x) is every machine's.", spec});
  std::vector<std::string> pairs;
  for (const auto& m : fleet.machines)
    for (const auto& r : m.runs)
      if (std::find(pairs.begin(), pairs.end(), r.pair) == pairs.end()) pairs.push_back(r.pair);
  std::set<std::string> ids;
  for (const auto& pair : pairs)
    if (json spec = pair_chart(fleet, pair); !spec.is_null()) {
      std::string id = chart_id(pair);
      while (!ids.insert(id).second) id += "-x";
      charts.push_back({id, fmt::format("{} on each machine", pair),
                        "The fraction of its machine's roof each variant and level achieved (one point per shape): a choice "
                        "that wins on one machine and not another shows up here.", spec});
    }
  return charts;
}

std::string fleet_html(const Fleet& fleet) {
  const auto charts = fleet_charts(fleet);
  std::string subtitle;
  for (const auto& m : fleet.machines) subtitle += (subtitle.empty() ? "" : " \u00b7 ") + html_escape(m.label);
  std::string nav = "<a href=\"#machines\">Machines</a> <a href=\"#claims\">Claims \u00d7 machines</a>";
  for (const auto& c : charts) nav += fmt::format(" <a href=\"#chart-{0}\">{0}</a>", html_escape(c.id));
  nav += " <a href=\"#fleet-runs\">Runs</a>";
  std::string content = fmt::format(
      "<header class=\"page-header\">\n<h1>lmroof fleet report</h1>\n<p class=\"subtitle\">{} machines: {}</p>\n<nav class=\"toc\">{}</nav>\n</header>\n<main>\n",
      fleet.machines.size(), subtitle, nav);
  content += machines_section(fleet);
  content += claims_matrix(fleet);
  for (const auto& c : charts) content += chart_section_html(c);
  content += runs_section(fleet);
  content += "</main>\n<footer>Written by lmroof merge from " + std::to_string(fleet.machines.size()) +
             " results files. Self-contained: Vega, Vega-Lite and vega-embed are inlined and the page loads nothing from the network.</footer>\n";
  return render_page_html("lmroof fleet report", content, charts);
}

std::vector<OutputContents> fleet_report_files(const Fleet& fleet, const std::filesystem::path& html_path) {
  const std::filesystem::path dir = html_path.parent_path();
  std::vector<OutputContents> files;
  for (const auto& c : fleet_charts(fleet))
    files.push_back({dir / fmt::format("{}.{}.vl.json", html_path.stem().string(), c.id),
                     c.spec.dump(2, ' ', false, json::error_handler_t::replace) + "\n"});
  files.push_back({html_path, fleet_html(fleet)});
  return files;
}

void write_fleet_report(const Fleet& fleet, const std::filesystem::path& html_path) {
  write_files_as_set(fleet_report_files(fleet, html_path));
}

}  // namespace lmroof::report
