#include "reports/trace_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analysis/numbers/numbers.h"
#include "reports/charts.h"
#include "reports/embedded_assets.h"
#include "reports/text/format.h"
#include "reports/text/trace_text.h"
#include "reports/html_report.h"

namespace lmroof::report {

namespace {

using nlohmann::json;
using numbers::percent;
using numbers::si;

using trace::percent_or_unknown;
using trace::seconds_or_unknown;
std::string sec(double v) { return si(v, "s"); }
std::string e(const std::string& text) { return html_escape(text); }

json roofline_chart(const model::TraceResult& t) {
  const auto& dev = t.device;
  if (!dev.table_name || !dev.bandwidth_bytes_per_s || !dev.peak_flops) return nullptr;
  json points = json::array();
  double lo = 1e300, hi = 0;
  for (const auto& op : t.ops) {
    if (!op.flops || !op.bytes || op.time_s <= 0) continue;
    const double calls = static_cast<double>(op.calls);
    const double f = *op.flops * calls, b = *op.bytes * calls;
    if (f <= 0 || b <= 0) continue;  // no place on a log-log chart (copies: 0 FLOPs)
    const double intensity = f / b;
    lo = std::min(lo, intensity), hi = std::max(hi, intensity);
    points.push_back({{"op", op.name}, {"shapes", trace::shapes_text(op.input_dims)}, {"types", trace::shapes_text(op.input_types)},
                      {"class", op.op_class}, {"intensity", intensity}, {"flops_per_s", f / op.time_s}, {"time_s", op.time_s},
                      {"time", sec(op.time_s)}, {"fraction", percent_or_unknown(op.fraction_of_roof)}, {"bound", op.bound}});
  }
  if (points.empty()) return nullptr;
  const double bw = *dev.bandwidth_bytes_per_s;
  json roofs = json::array();
  for (const auto& [dtype, p] : *dev.peak_flops) {
    const double ridge = p / bw;
    const double x0 = std::min(lo, ridge) / 4, x1 = std::max(hi, ridge) * 4;
    const std::string name = fmt::format("{} peak {}", dtype, si(p, "FLOP/s"));
    roofs.push_back({{"roof", name}, {"intensity", x0}, {"flops_per_s", x0 * bw}});
    roofs.push_back({{"roof", name}, {"intensity", ridge}, {"flops_per_s", p}});
    roofs.push_back({{"roof", name}, {"intensity", x1}, {"flops_per_s", p}});
  }
  json spec = json::parse(assets::chart_trace_roofline());
  fill_dataset(spec, "points", points);
  fill_dataset(spec, "roofs", roofs);
  return spec;
}

// --what-if: per target, the step and busy time beside the source's, the class table
// both ways, and the ops whose time changes most, with why.
std::string what_if_sections(const model::TraceResult& t) {
  if (!t.what_if) return "";
  std::string out;
  for (const auto& w : *t.what_if) {
    const auto& st = w.step_time_s;
    const auto& b = w.busy_s;
    std::vector<std::vector<std::string>> rows = {
        {"step time", sec(st.source), sec(st.predicted), sec(st.low) + " to " + sec(st.high)},
        {"GPU busy", sec(b.source), sec(b.predicted), sec(b.low) + " to " + sec(b.high)}};
    for (const auto& c : w.classes)
      if (c.source_s > 0) rows.push_back({c.op_class, sec(c.source_s), sec(c.predicted_s), sec(c.low_s) + " to " + sec(c.high_s)});
    std::vector<std::vector<std::string>> ops;
    for (const auto& o : w.ops) {
      if (ops.size() == 15) break;
      ops.push_back({o.name, trace::shapes_text(o.input_dims), o.op_class, sec(o.source_s), sec(o.predicted_s),
                     o.source_bound + " / " + o.target_bound, o.why});
    }
    std::string notes;
    for (const auto& n : w.notes) notes += "<li>" + e(n) + "</li>";
    out += "<section class=\"what-if\"><h2>" + e(fmt::format("What if on {}", w.device)) + "</h2><p>" +
           e(fmt::format("Per step, retimed from the roofs of {} to those of {} ({}); the gaps between kernels kept as on "
                         "the source (docs/trace.md, \"What if\"). Naive answers for the busy time: the same time {}, the "
                         "datasheet ratio {}.",
                         w.source_device, w.device, w.origin, sec(w.naive.same_time_busy_s), sec(w.naive.datasheet_busy_s))) +
           "</p>\n" + html_table({"", "source", "predicted", "interval"}, rows) +
           html_table({"op", "input dims", "class", "source", "predicted", "bound here / there", "why"}, ops) +
           (notes.empty() ? "" : "<ul>" + notes + "</ul>") + "</section>\n";
  }
  return out;
}

}  // namespace

std::string html_table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n<thead><tr>";
  for (const auto& h : head) out += "<th>" + e(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& r : rows) {
    out += "<tr>";
    for (const auto& c : r) out += "<td>" + e(c) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string trace_html(const model::TraceResult& t) {
  std::vector<Chart> charts;
  const json roofline = roofline_chart(t);
  if (!roofline.is_null())
    charts.push_back({"trace-roofline", "Roofline: one point per op shape",
                      "Each unique (op, input shapes, dtypes) at its arithmetic intensity and achieved FLOP/s over the window; "
                      "area proportional to its time, colour by class. Dashed lines: the device's bandwidth up to each dense "
                      "peak. Kernels shorter than the launch-bound threshold are listed below: no roof bounds them.",
                      roofline});
  const auto& dev = t.device;
  const auto& w = t.window;
  std::string files;
  for (const auto& f : t.files) files += (files.empty() ? "" : ", ") + std::filesystem::path(f).filename().string();
  const std::string subtitle =
      dev.source == "per_rank" ? fmt::format("devices: {}; each rank judged on its own roofs", dev.name)
      : !dev.table_name ? fmt::format("device {}: roofs unknown ({})", dev.name.empty() ? "not named" : dev.name, dev.why_unknown.value_or("-"))
                        : fmt::format("device {} · roofs: table entry {} (source: {}) · {}", dev.name, *dev.table_name,
                                      dev.source.value_or("-"), dev.datasheet.value_or("-"));
  std::string content = fmt::format(
      "<header class=\"page-header\">\n<h1>lmroof trace: {}</h1>\n<p class=\"subtitle\">{}</p>\n</header>\n<main>\n", e(files), e(subtitle));
  content += "<section id=\"window\"><h2>Window</h2><p>" +
             e(fmt::format("{} window, {} step(s), {} wall time{}; {}", w.kind, w.step_count, sec(w.total_s),
                           t.ranks ? fmt::format(" summed over {} ranks (steps: the first rank's)", t.ranks->size()) : "",
                           t.cpu_only ? std::string("CPU-only trace: op times are self CPU times")
                                      : fmt::format("GPU busy {}, idle {}; {} device events outside the window", seconds_or_unknown(w.busy_s),
                                                    sec(w.idle_s), w.outside_window_device_events))) +
             "</p></section>\n";
  // The first screen: warnings about the ranks, the host-bound verdict, exposed communication.
  std::vector<std::string> headlines = trace::rank_warning_lines(t);
  if (const std::string host = trace::host_bound_line(t); !host.empty()) headlines.push_back(host);
  for (const auto& line : headlines) content += "<p class=\"headline\"><strong>" + e(line) + "</strong></p>\n";
  if (const std::string comm = trace::communication_line(t); !comm.empty()) content += "<p>" + e(comm) + "</p>\n";
  // Class tables: lmroof's, and Ivanov et al.'s grouping of the same time.
  std::vector<std::vector<std::string>> rows;
  auto class_rows = [&](const std::vector<model::TraceClassRow>& class_table) {
    rows.clear();
    for (const auto& c : class_table)
      rows.push_back({c.op_class, percent(c.flop_share), percent(c.byte_share), percent(c.time_share), percent_or_unknown(c.fraction_of_roof),
                      sec(c.time_s)});
    return html_table({"class", "FLOP share", "byte share", "time share", "fraction of roof", "time"}, rows);
  };
  std::string other_line;
  if (t.other.time_s > 0) {
    std::string names;
    int n = 0;
    for (const auto& o : t.other.by_name) {
      if (n++ == 5) break;
      names += fmt::format("{}{} ({})", names.empty() ? "" : "; ", o.name, sec(o.time_s));
    }
    other_line = fmt::format(" Class other: {} of the time; largest: {}.", percent(t.other.time_share), names);
  }
  content += "<section id=\"classes\"><h2>Classes</h2>\n<p>An op keeps its own class when it is matmul, attention, "
             "normalization or communication; a generic op (elementwise, reduction, other) takes its module's class when the "
             "module type says more (*Norm*: normalization, *Attention*/*Attn*: attention); an op without a model takes its "
             "kernel's class by name (docs/trace.md).</p>\n" +
             class_rows(t.classes) + "<p>" +
             e(fmt::format("Share of the time whose cost is known: {}.{}", percent(t.known_cost_time_share), other_line)) +
             "</p></section>\n";
  const std::string fusion_check = trace::fusion_check_line(t);
  const std::string fusion_check_html = fusion_check.empty() ? "" : "<p id=\"fix-first-check\">" + e(fusion_check) + "</p>\n";
  if (!t.fix_first.empty()) {
    rows.clear();
    for (const auto& f : t.fix_first)
      rows.push_back({f.kind, f.target, sec(f.current_s), sec(f.estimate_s), sec(f.saving_s), f.assumption});
    content += "<section id=\"fix-first\"><h2>Fix first</h2>\n<p>What would save the most time, largest saving first; each "
               "estimate states its assumption (docs/trace.md, \"Fix first\").</p>\n" +
               html_table({"fix", "where", "now", "after", "saving", "assumption"}, rows) + fusion_check_html + "</section>\n";
  } else {
    content += "<section id=\"fix-first\"><h2>Fix first</h2>\n<p>Nothing to list: no module to fuse, no op below 80% of "
               "a known roof, no host-bound idle, no exposed communication (docs/trace.md, \"Fix first\").</p>\n" +
               fusion_check_html + "</section>\n";
  }
  if (t.ivanov_classes)
    content += "<section id=\"ivanov-classes\"><h2>Grouped as Ivanov et al.</h2>\n<p>Tensor contractions (matmul and "
               "attention), statistical normalizations (normalization and every softmax), element-wise (the rest of the "
               "elementwise work and plain reductions): the grouping of their 25.5% normalization share, which counts the "
               "attention softmax.</p>\n" +
               class_rows(*t.ivanov_classes) + "</section>\n";
  if (!t.modules.empty()) {
    rows.clear();
    for (const auto& m : t.modules)
      rows.push_back({m.type, m.op_class.value_or("-"), percent(m.time_share), sec(m.time_s), si(m.flops, "FLOP"), si(m.bytes, "B"),
                      std::to_string(m.kernels), percent_or_unknown(m.fraction_of_roof)});
    content += "<section id=\"modules\"><h2>Modules</h2>\n<p>Each kernel under its innermost nn.Module (the trace's "
               "module events, with_stack / with_modules), by module type.</p>\n" +
               html_table({"module", "class it gives", "time share", "time", "FLOPs", "bytes", "kernels", "fraction of roof"}, rows) +
               "</section>\n";
  }
  // Top ops
  rows.clear();
  int n = 0;
  for (const auto& op : t.ops) {
    if (n++ == 25) break;
    std::string kernels;
    for (const auto& k : op.kernels) kernels += (kernels.empty() ? "" : "; ") + k;
    if (kernels.size() > 80) kernels = kernels.substr(0, 77) + "...";
    const std::string detail = trace::op_row_detail(op);
    rows.push_back({op.name, trace::shapes_text(op.input_dims) + (detail.empty() ? "" : " (" + detail + ")"),
                    trace::shapes_text(op.input_types), op.op_class, std::to_string(op.calls), sec(op.time_s), seconds_or_unknown(op.roof_time_s),
                    seconds_or_unknown(op.time_above_roof_s), percent_or_unknown(op.fraction_of_roof), op.bound, op.note, kernels});
  }
  content += "<section id=\"top-ops\"><h2>Top ops by time</h2>\n" +
             html_table({"op", "input dims", "input types", "class", "calls", "time", "at roof", "above roof", "of roof", "bound", "note",
                         "kernels"},
                        rows) +
             "</section>\n";
  const auto& un = t.unattributed;
  if (un.kernels > 0) {
    rows.clear();
    for (const auto& k : un.by_name) rows.push_back({k.name, sec(k.device_time_s)});
    content += "<section id=\"unattributed\"><h2>Unattributed</h2><p>" +
               e(fmt::format("{} device events ({}) whose launch is not in the trace: work queued before the profiler "
                             "started, or CUDA-graph replays. Counted in the class table by kernel name.",
                             un.kernels, sec(un.device_time_s))) +
               "</p>\n" + html_table({"kernel", "time"}, rows) + "</section>\n";
  }
  if (!t.anomalies.empty()) {
    rows.clear();
    for (const auto& a : t.anomalies) rows.push_back({a.kind, std::to_string(a.count), a.first});
    content += "<section id=\"anomalies\"><h2>Anomalies (tolerated, counted)</h2>\n" + html_table({"kind", "count", "first"}, rows) +
               "</section>\n";
  }
  for (const auto& c : charts) content += chart_section_html(c);
  const auto& lb = t.launch_bound;
  content += "<section id=\"launch-bound\"><h2>Launch-bound kernels</h2><p>" +
             e(!lb.threshold_s ? std::string("Unknown: no launch time for this device.")
                               : fmt::format("{} kernels shorter than {} (two launch times): {} of the time. Launched one at a time "
                                             "from the host, they leave the device idle between them: the third term of the "
                                             "runtime model.",
                                             lb.kernels, sec(*lb.threshold_s), percent(lb.time_share))) +
             "</p></section>\n";
  if (!t.idle_gaps.empty()) {
    rows.clear();
    for (const auto& g : t.idle_gaps) rows.push_back({sec(g.start_s), sec(g.duration_s)});
    content += "<section id=\"idle\"><h2>Largest idle gaps</h2><p>Where no kernel, copy or fill runs on any stream: the host "
               "is the bottleneck.</p>\n" +
               html_table({"starts at (from the window's start)", "length"}, rows) + "</section>\n";
  }
  if (t.ranks) {
    rows.clear();
    for (const auto& r : *t.ranks)
      rows.push_back({std::to_string(r.rank) + (r.slowest ? " (slowest)" : ""), r.file, r.device.value_or("-"),
                      r.step_time_s ? sec(*r.step_time_s) : std::string("no steps"), sec(r.busy_s), percent(r.communication_share),
                      r.communication.exposed_s ? sec(*r.communication.exposed_s) : std::string("-")});
    content += "<section id=\"ranks\"><h2>Ranks</h2>\n<p>Step time: the rank's window over its steps; the slowest rank is "
               "the one with the longest step time.</p>\n" +
               html_table({"rank", "file", "device", "step time", "busy", "communication share", "exposed communication"}, rows) +
               "</section>\n";
  }
  if (t.claims) {
    rows.clear();
    // The claim verdicts (docs/claims.md#check-output): expected and measured in words, and why not measured.
    for (const auto& c : *t.claims)
      rows.push_back({c.id, std::string(model::to_string(c.verdict)), c.expected, c.measured + (c.reason ? " (" + *c.reason + ")" : "")});
    content += "<section id=\"claims\"><h2>Claims</h2>\n" + html_table({"claim", "verdict", "expected", "measured"}, rows) +
               "</section>\n";
  }
  content += what_if_sections(t);
  content += "</main>\n<footer>Written by lmroof trace (docs/trace.md; trace.json: docs/trace.schema.json). Self-contained: "
             "nothing is fetched.</footer>\n";
  return render_page_html("lmroof trace", content, charts);
}

}  // namespace lmroof::report
