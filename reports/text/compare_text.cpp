// `lmroof compare`'s wording; see reports/text/compare_text.h.
#include "reports/text/compare_text.h"

#include <fmt/format.h>

namespace lmroof::compare {

std::string noise_floors_line(const Report& report) {
  if (report.base.noise_floors.empty() || report.next.noise_floors.empty()) return "";
  auto list = [](const Side& side) {
    std::string out;
    for (const auto& [pair, floor] : side.noise_floors)
      out += fmt::format("{}{} \u00b1{:.1f}%", out.empty() ? "" : ", ", pair, floor * 100);
    return out;
  };
  return fmt::format("noise floors (A/A): base {}; new {}", list(report.base), list(report.next));
}

}  // namespace lmroof::compare
