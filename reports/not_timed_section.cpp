#include "reports/not_timed_section.h"

#include <fmt/format.h>

#include "reports/text/format.h"

namespace lmroof::report {

std::string not_timed_section(const model::Results& results) {
  if (results.skipped.empty()) return "";
  std::string rows;
  for (const auto& s : results.skipped)
    rows += fmt::format("<tr><td><code>{}</code></td><td>{}</td></tr>\n", html_escape(s.id), html_escape(s.reason));
  return fmt::format(
      "<section id=\"not-timed\" class=\"block\">\n<h2>Not timed</h2>\n<p class=\"caption\">{} benchmark{} produced no "
      "timed run; none of {} is in the charts, comparisons or claims above.</p>\n<div class=\"table-wrap\"><table>"
      "<thead><tr><th>run</th><th>reason</th></tr></thead><tbody>\n{}</tbody></table></div>\n</section>\n",
      results.skipped.size(), results.skipped.size() == 1 ? "" : "s", results.skipped.size() == 1 ? "it" : "them",
      rows);
}

}  // namespace lmroof::report
