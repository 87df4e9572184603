// results.json -> self-contained report.html (+ the charts' Vega-Lite specs); see reports/html_report.h.
#include "reports/html_report.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "analysis/atomic_write.h"
#include "reports/charts.h"
#include "reports/embedded_assets.h"
#include "reports/format.h"
#include "reports/kernels_section.h"

namespace lmroof {

using nlohmann::json;
using namespace lmroof::report;

namespace {

constexpr std::string_view kSchema = "lmroof.results/1";

[[noreturn]] void reject(const std::string& why) {
  throw std::invalid_argument(fmt::format("not a {} document: {}", kSchema, why));
}

void require_type(const json& results, const char* key, json::value_t type, bool required) {
  auto it = results.find(key);
  if (it == results.end()) {
    if (required) reject(fmt::format("no \"{}\" field", key));
    return;
  }
  const bool ok = type == json::value_t::array ? it->is_array() : it->is_object();
  if (!ok) reject(fmt::format("\"{}\" is {}, expected {}", key, it->type_name(), type == json::value_t::array ? "an array" : "an object"));
  if (type == json::value_t::array)
    for (size_t i = 0; i < it->size(); ++i)
      if (!(*it)[i].is_object()) reject(fmt::format("{}[{}] is {}, expected an object", key, i, (*it)[i].type_name()));
}

void validate(const json& results) {
  if (!results.is_object()) reject(fmt::format("expected a JSON object, got {}", results.type_name()));
  auto schema = results.find("schema");
  if (schema == results.end()) reject("no \"schema\" field");
  if (!schema->is_string() || schema->get<std::string>() != kSchema) {
    std::string shown = schema->dump(-1, ' ', false, json::error_handler_t::replace);
    if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    reject("schema is " + shown);
  }
  require_type(results, "runs", json::value_t::array, true);
  require_type(results, "machine", json::value_t::object, false);
  require_type(results, "metrics", json::value_t::object, false);
  require_type(results, "roofs", json::value_t::object, false);
  require_type(results, "ceilings", json::value_t::array, false);
  require_type(results, "comparisons", json::value_t::array, false);
  require_type(results, "claims", json::value_t::array, false);
}

const json& array_of(const json& results, const char* key) {
  static const json empty = json::array();
  auto it = results.find(key);
  return it != results.end() && it->is_array() ? *it : empty;
}

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

std::string value_text(const json& v, std::string_view key = "") {
  if (v.is_null()) return std::string(kDash);
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) {
    const double d = v.get<double>();
    if (key.ends_with("_bytes")) return si(d, "B");
    return integer_or_sig(d);
  }
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v) out += (out.empty() ? "" : ", ") + value_text(e);
    return out.empty() ? std::string(kDash) : out;
  }
  std::string out;
  for (const auto& [k, e] : v.items()) out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", k, value_text(e, k));
  return out.empty() ? std::string(kDash) : out;
}

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

std::string header_section(const json& results, const std::vector<Chart>& charts) {
  const json machine = results.value("machine", json::object());
  std::vector<std::string> facts;
  const std::string backend = text(machine, {"backend"});
  if (!backend.empty()) facts.push_back(backend);
  if (const auto* gpu = find(machine, {"gpu"}); gpu && gpu->is_object() && gpu->contains("name"))
    facts.push_back(text(*gpu, {"name"}));
  if (auto cpu = text(machine, {"cpu_model"}); !cpu.empty()) facts.push_back(cpu);
  if (auto host = text(machine, {"hostname"}); !host.empty()) facts.push_back(host);
  if (auto date = text(machine, {"date"}); !date.empty()) facts.push_back(date);
  if (auto v = text(machine, {"lmroof_version"}); !v.empty())
    facts.push_back(fmt::format("lmroof {} ({})", v, text(machine, {"git_commit"}, "unknown commit")));
  std::string subtitle;
  for (const auto& f : facts) subtitle += (subtitle.empty() ? "" : " \u00b7 ") + esc(f);

  std::string nav = "<a href=\"#claims\">Claims</a>";
  for (const auto& c : charts) nav += fmt::format(" <a href=\"#chart-{}\">{}</a>", esc(c.id), esc(c.id));
  nav += " <a href=\"#comparisons\">Comparisons</a>";
  if (has_traced_runs(results)) nav += " <a href=\"#kernels\">Kernels</a>";
  nav += " <a href=\"#chart-runs-table\">Runs</a> <a href=\"#machine\">Machine</a>";
  return fmt::format(
      "<header class=\"page-header\">\n<h1>lmroof report</h1>\n<p class=\"subtitle\">{}</p>\n<nav class=\"toc\">{}</nav>\n</header>\n",
      subtitle, nav);
}

std::string claims_section(const json& results, const std::set<std::string>& anchors) {
  const json& claims = array_of(results, "claims");
  std::string out = "<section id=\"claims\" class=\"block\">\n<h2>Claims</h2>\n";
  if (claims.empty()) {
    out += "<p class=\"empty\">No claims were checked for this run (<code>claims</code> is empty). "
           "<code>lmroof check</code> with a claims file adds them.</p>\n</section>\n";
    return out;
  }
  std::map<std::string, int> counts;
  std::set<std::string> files;
  for (const auto& c : claims) {
    ++counts[text(c, {"verdict"}, "unknown")];
    if (auto f = text(c, {"claims_file"}); !f.empty()) files.insert(f);
  }
  std::string summary;
  for (auto v : {"holds", "fails", "inconclusive", "not measured"})
    if (counts.count(v)) summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", counts[v], v);
  for (const auto& [v, n] : counts)
    if (v != "holds" && v != "fails" && v != "inconclusive" && v != "not measured")
      summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, v);
  std::string file_list;
  for (const auto& f : files) file_list += (file_list.empty() ? "" : ", ") + fmt::format("<code>{}</code>", esc(f));
  out += fmt::format("<p class=\"summary\">{} claim{} checked: {}.{}</p>\n", claims.size(), claims.size() == 1 ? "" : "s",
                     esc(summary), file_list.empty() ? "" : " From " + file_list + ".");
  out += "<div class=\"table-wrap\"><table class=\"claims\">\n<thead><tr><th>verdict</th><th>claim</th><th>expected</th>"
         "<th>measured</th><th>source</th><th>evidence</th></tr></thead>\n<tbody>\n";
  for (const auto& c : claims) {
    const std::string verdict = text(c, {"verdict"}, "unknown");
    std::string measured = esc(text(c, {"measured"}, std::string(kDash)));
    if (auto reason = text(c, {"reason"}); !reason.empty()) measured += fmt::format("<div class=\"reason\">{}</div>", esc(reason));
    std::string claim = esc(text(c, {"statement"}, std::string(kDash)));
    std::string meta = text(c, {"id"});
    if (auto kind = text(c, {"kind"}); !kind.empty()) meta += (meta.empty() ? "" : " \u00b7 ") + kind;
    if (!meta.empty()) claim += fmt::format("<div class=\"claim-id\">{}</div>", esc(meta));
    std::string link = std::string(kDash);
    if (auto chart = text(c, {"chart"}); !chart.empty()) {
      link = anchors.count(chart) ? fmt::format("<a href=\"#chart-{0}\">{0}&nbsp;\u2193</a>", esc(chart))
                                  : fmt::format("<span class=\"muted\">{} (not in this report)</span>", esc(chart));
    }
    out += fmt::format(
        "<tr><td><span class=\"badge verdict-{}\">{}</span></td><td>{}</td><td>{}</td><td>{}</td><td class=\"source\">{}</td>"
        "<td>{}</td></tr>\n",
        verdict_slug(verdict), esc(verdict), claim, esc(text(c, {"expected"}, std::string(kDash))), measured,
        esc(text(c, {"source"}, std::string(kDash))), link);
  }
  out += "</tbody></table></div>\n</section>\n";
  return out;
}

std::string metrics_banner(const json& results) {
  const json machine = results.value("machine", json::object());
  std::string backend = esc(text(machine, {"backend"}, "unknown"));
  if (auto threads = number(machine, {"threads"})) {
    backend += fmt::format(", {} thread{}", integer_or_sig(*threads), *threads == 1 ? "" : "s");
    if (auto cores = number(machine, {"cores"})) backend += fmt::format(" on {} logical CPU{}", integer_or_sig(*cores), *cores == 1 ? "" : "s");
  }
  const std::string source = text(results, {"metrics", "source"});
  std::string metrics;
  if (source == "analytic")
    metrics = "<span class=\"tag\">analytic</span> from the cost model";
  else if (source == "cupti")
    metrics = "<span class=\"tag\">cupti</span> measured with hardware counters";
  else
    metrics = source.empty() ? "not recorded" : fmt::format("<span class=\"tag\">{}</span>", esc(source));
  if (auto reason = text(results, {"metrics", "reason"}); !reason.empty()) metrics += fmt::format(" \u2014 {}", esc(reason));
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

std::string comparisons_section(const json& results) {
  const json& comparisons = array_of(results, "comparisons");
  std::string out = "<section id=\"comparisons\" class=\"block\">\n<h2>Comparisons</h2>\n";
  if (comparisons.empty()) return out + "<p class=\"empty\">No pair comparisons in this run.</p>\n</section>\n";
  out += "<p class=\"caption\">speedup = baseline median time / candidate median time (above 1: the candidate is faster); "
         "ratios are candidate / baseline; noise is the larger coefficient of variation of the two runs.</p>\n"
         "<div class=\"table-wrap\"><table class=\"comparisons\">\n<thead><tr><th>question</th><th>shape</th>"
         "<th>baseline \u2192 candidate</th><th>speedup</th><th>bytes ratio</th><th>flops ratio</th><th>noise</th></tr></thead>\n<tbody>\n";
  for (const auto& c : comparisons) {
    auto side = [&](const char* which) {
      return text(c, {which, "variant"}) + " / " + text(c, {which, "impl"});
    };
    const auto speedup = number(c, {"speedup"});
    const auto noise = number(c, {"noise"});
    std::string cls = "num";
    if (speedup && noise) {
      if (*speedup - 1 > 2 * *noise) cls += " gain";
      else if (1 - *speedup > 2 * *noise) cls += " loss";
    }
    out += fmt::format(
        "<tr><td>{}</td><td class=\"shape\">{}</td><td>{} \u2192 {}</td><td class=\"{}\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        esc(text(c, {"question"}, text(c, {"pair"}))), esc(shape_label(c.value("shape", json::object()))), esc(side("baseline")),
        esc(side("candidate")), cls, speedup ? esc(ratio(*speedup)) : std::string(kDash),
        esc(number(c, {"bytes_ratio"}) ? ratio(*number(c, {"bytes_ratio"})) : std::string(kDash)),
        esc(number(c, {"flops_ratio"}) ? ratio(*number(c, {"flops_ratio"})) : std::string(kDash)),
        esc(noise ? percent(*noise) : std::string(kDash)));
  }
  return out + "</tbody></table></div>\n</section>\n";
}

std::string runs_section(const json& results) {
  const json& runs = array_of(results, "runs");
  std::string out = "<section id=\"chart-runs-table\" class=\"block\">\n<h2>All runs</h2>\n";
  if (runs.empty()) return out + "<p class=\"empty\">This results file has no runs.</p>\n</section>\n";
  out += fmt::format("<p class=\"caption\">{} runs. Click a column header to sort; hover a row for the run id.</p>\n", runs.size());
  out += "<div class=\"table-wrap\"><table id=\"runs-table\" class=\"sortable\">\n<thead><tr>"
         "<th data-type=\"text\">pair</th><th data-type=\"text\">variant</th><th data-type=\"text\">impl</th>"
         "<th data-type=\"text\">shape</th><th data-type=\"num\">median time</th><th data-type=\"num\">GFLOP/s</th>"
         "<th data-type=\"num\">GB/s</th><th data-type=\"num\">intensity (FLOP/B)</th><th data-type=\"text\">bound</th>"
         "<th data-type=\"num\">efficiency</th><th data-type=\"num\">bytes measured</th>"
         "<th data-type=\"num\" title=\"bytes moved over the minimum (each input read once, each output written "
         "once): measured when counters ran, else the cost model's\">bytes vs minimum</th></tr></thead>\n<tbody>\n";
  for (const auto& r : runs) {
    const auto median = number(r, {"time_s", "median"});
    const auto flop_s = number(r, {"achieved", "flop_per_s"});
    const auto byte_s = number(r, {"achieved", "byte_per_s"});
    const auto intensity = number(r, {"intensity", "value"});
    const auto efficiency = number(r, {"roofline", "efficiency"});
    const auto measured = number(r, {"bytes", "measured"});
    std::string row = fmt::format("<tr title=\"{}\">", esc(text(r, {"id"})));
    for (auto key : {"pair", "variant", "impl"}) row += fmt::format("<td>{}</td>", esc(text(r, {key}, std::string(kDash))));
    row += fmt::format("<td class=\"shape\">{}</td>", esc(shape_label(r.value("shape", json::object()))));
    row += num_cell(median, median ? si(*median, "s") : "");
    row += num_cell(flop_s, flop_s ? sig(*flop_s / 1e9) : "");
    row += num_cell(byte_s, byte_s ? sig(*byte_s / 1e9) : "");
    row += num_cell(intensity, intensity ? sig(*intensity) : "");
    const std::string bound = text(r, {"bound"}, std::string(kDash));
    row += fmt::format("<td><span class=\"bound bound-{}\">{}</span></td>", bound == "memory" || bound == "compute" ? bound : "other",
                       esc(bound));
    row += num_cell(efficiency, efficiency ? percent(*efficiency) : "");
    row += num_cell(measured, measured ? si(*measured, "B") : "");
    // "This kernel moved 1.9x the bytes it must."
    const auto over = measured ? number(r, {"bytes", "measured_over_minimum"}) : number(r, {"bytes", "model_over_minimum"});
    row += num_cell(over, over ? sig(*over) + "\u00d7" + (measured ? "" : " (model)") : "");
    out += row + "</tr>\n";
  }
  return out + "</tbody></table></div>\n</section>\n";
}

std::string machine_section(const json& results) {
  const json machine = results.value("machine", json::object());
  std::string out = "<section id=\"machine\" class=\"block\">\n<h2>Machine</h2>\n<dl class=\"machine\">\n";
  static constexpr std::string_view order[] = {"backend", "cpu_model", "cores", "threads", "gpu", "compiler", "build_type",
                                               "build_flags", "lmroof_version", "git_commit", "date", "hostname", "suite"};
  std::vector<std::string> keys(std::begin(order), std::end(order));
  for (const auto& [k, v] : machine.items())
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  for (const auto& k : keys) {
    auto it = machine.find(k);
    if (it == machine.end()) continue;
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", esc(k), esc(value_text(*it, k)));
  }
  if (machine.empty()) out += "<dt>machine</dt><dd>not recorded</dd>\n";
  out += "</dl>\n<h3>Ceilings</h3>\n";
  const json& ceilings = array_of(results, "ceilings");
  if (ceilings.empty()) return out + "<p class=\"empty\">No ceilings were measured.</p>\n</section>\n";
  std::map<std::string, std::string> roles;
  if (const auto* roofs = find(results, {"roofs"}); roofs && roofs->is_object())
    for (const auto& [role, name] : roofs->items())
      if (name.is_string()) roles[name.get<std::string>()] += (roles[name.get<std::string>()].empty() ? "" : ", ") + role;
  out += "<div class=\"table-wrap\"><table class=\"ceilings\">\n<thead><tr><th>name</th><th>kind</th><th>value</th><th>unit</th>"
         "<th>source</th><th>roof</th><th>detail</th></tr></thead>\n<tbody>\n";
  for (const auto& c : ceilings) {
    const std::string name = text(c, {"name"}, std::string(kDash));
    const std::string unit = text(c, {"unit"});
    const auto value = number(c, {"value"});
    out += fmt::format(
        "<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"detail\">{}</td></tr>\n",
        esc(name), esc(text(c, {"kind"}, std::string(kDash))), esc(value ? si(*value, unit) : std::string(kDash)),
        esc(unit.empty() ? std::string(kDash) : unit), esc(text(c, {"source"}, std::string(kDash))),
        esc(roles.count(name) ? roles[name] : std::string(kDash)), esc(text(c, {"detail"}, std::string(kDash))));
  }
  return out + "</tbody></table></div>\n</section>\n";
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

Rendered render(const json& results) {
  validate(results);
  Rendered out;
  out.charts = build_charts(results);

  std::set<std::string> anchors = {"runs-table"};
  for (const auto& c : out.charts) anchors.insert(c.id);

  std::string content = header_section(results, out.charts);
  content += "<main>\n";
  content += claims_section(results, anchors);
  content += metrics_banner(results);
  for (const auto& c : out.charts) content += chart_section(c);
  content += comparisons_section(results);
  content += kernels_section(results);
  content += runs_section(results);
  content += machine_section(results);
  content += "</main>\n";
  const json machine = results.value("machine", json::object());
  content += fmt::format(
      "<footer>Written by lmroof from a {} document{}. Self-contained: Vega, Vega-Lite and vega-embed are inlined and the "
      "page loads nothing from the network.</footer>\n",
      kSchema,
      text(results, {"bench_json"}).empty() ? "" : fmt::format(" (raw Google Benchmark JSON: <code>{}</code>)", esc(text(results, {"bench_json"}))));

  std::string title = "lmroof report";
  for (auto key : {"backend", "hostname", "date"})
    if (auto v = text(machine, {key}); !v.empty()) title += " \u00b7 " + v;

  out.html = render_page_html(title, content, out.charts);
  return out;
}

}  // namespace

std::string render_report_html(const json& results) { return render(results).html; }

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

void write_report(const json& results, const std::filesystem::path& html_path) {
  const Rendered rendered = render(results);
  const std::filesystem::path dir = html_path.parent_path();
  const std::string stem = html_path.stem().string();
  for (const auto& c : rendered.charts)
    write_file_atomically(dir / fmt::format("{}.{}.vl.json", stem, c.id), c.spec.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
  write_file_atomically(html_path, rendered.html);
}

}  // namespace lmroof
