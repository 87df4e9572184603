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

std::string regression_line(const RunChange& r, double threshold) {
  return fmt::format("regression: {} is {:.1f}% slower (beyond {:.1f}%, p = {:.2g})", r.id, (1 / *r.speedup - 1) * 100,
                     threshold * 100, *r.p_value);
}

}  // namespace lmroof::compare
