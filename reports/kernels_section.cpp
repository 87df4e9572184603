#include "reports/kernels_section.h"

#include <fmt/format.h>

#include <map>

#include "reports/text/format.h"

namespace lmroof::report {

namespace {

std::string esc(std::string_view s) { return html_escape(s); }

std::string dims(const std::vector<int64_t>& v) {
  if (v.size() != 3) return "";
  return fmt::format("{}\u00d7{}\u00d7{}", v[0], v[1], v[2]);
}

// Long template names keep their head; the full name is the cell's title.
std::string short_name(const std::string& name) {
  constexpr size_t kMax = 90;
  return name.size() <= kMax ? name : name.substr(0, kMax - 1) + "\u2026";
}

std::string run_details(const model::Run& run) {
  const model::Kernels& k = *run.kernels;
  const std::string& id = run.id;
  if (!k.available)
    return fmt::format("<details><summary><code>{}</code>: not traced ({})</summary></details>\n", esc(id),
                       esc(k.reason.value_or("no reason recorded")));
  const auto& list = k.list;
  std::map<std::string, double> by_class;
  for (const auto& kernel : list) by_class[std::string(to_string(kernel.op_class))] += kernel.share;
  std::string classes;
  for (const auto& [cls, share] : by_class) classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", cls, percent(share));
  const double total = k.total_s;
  std::string out = fmt::format(
      "<details{}><summary><code>{}</code>: {} kernel{}, {} of GPU time ({}){}</summary>\n", list.size() > 1 ? " open" : "",
      esc(id), list.size(), list.size() == 1 ? "" : "s", esc(si(total, "s")), esc(classes),
      k.dropped_records > 0 ? fmt::format(" \u2014 {} trace records dropped: kernels are missing", k.dropped_records)
                            : "");
  out += "<div class=\"table-wrap\"><table class=\"kernels\">\n<thead><tr><th>#</th><th>kernel</th><th>class</th>"
         "<th>grid</th><th>block</th><th>GPU time</th><th>share</th></tr></thead>\n<tbody>\n";
  int index = 0;
  for (const auto& kernel : list) {
    const std::string& name = kernel.name;
    out += fmt::format(
        "<tr><td class=\"num\">{}</td><td><code title=\"{}\">{}</code></td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        ++index, esc(name), esc(short_name(name)), esc(std::string(to_string(kernel.op_class))), dims(kernel.grid), dims(kernel.block),
        esc(si(kernel.time_s, "s")), esc(percent(kernel.share)));
  }
  return out + "</tbody></table></div>\n</details>\n";
}

}  // namespace

bool has_traced_runs(const model::Results& results) {
  for (const auto& r : results.runs)
    if (r.kernels) return true;
  return false;
}

std::string kernels_section(const model::Results& results) {
  std::string body;
  int traced = 0;
  for (const auto& r : results.runs) {
    if (!r.kernels) continue;
    body += run_details(r);
    ++traced;
  }
  if (traced == 0) return "";
  return fmt::format(
      "<section id=\"kernels\" class=\"block\">\n<h2>Kernels</h2>\n<p class=\"caption\">What each run launched, from a "
      "CUPTI activity trace of one run (cold L2, separate from the timed runs): every kernel, cuBLAS's included, with "
      "the operator class its name gives (docs/metrics.md) and its share of the traced GPU time. {} runs traced; runs "
      "of several kernels are open.</p>\n{}</section>\n",
      traced, body);
}

}  // namespace lmroof::report
