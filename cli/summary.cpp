#include "cli/summary.h"

#include <fmt/format.h>

#include "analysis/model/numbers.h"

namespace lmroof::cli {

std::string format_ceilings_table(const std::vector<model::Ceiling>& ceilings) {
  std::string out = fmt::format("{:<20} {:>14} {}\n", "ceiling", "value", "how");
  for (const auto& c : ceilings)
    out += fmt::format("{:<20} {:>14} {}\n", c.name, numbers::si(c.value, c.unit()), c.detail);
  return out;
}

std::string format_runs_table(const model::Results& results) {
  std::string out = format_ceilings_table(results.ceilings) + "\n";
  out += fmt::format("{:<58} {:>10} {:>12} {:>14} {:>7} {:>7} {:>6}\n", "run", "median", "bandwidth", "FLOP rate",
                     "FLOP/B", "bound", "roof%");
  for (const auto& r : results.runs) {
    const std::string eff = r.roofline.efficiency ? numbers::sig(100 * *r.roofline.efficiency, 2) : "-";
    std::string id = r.id;
    if (id.size() > 58) id = id.substr(0, 55) + "...";
    out += fmt::format("{:<58} {:>10} {:>12} {:>14} {:>7} {:>7} {:>6}\n", id, numbers::si(r.time_s.median, "s"),
                       numbers::si(r.achieved.byte_per_s, "B/s"), numbers::si(r.achieved.flop_per_s, "FLOP/s"),
                       numbers::sig(r.intensity.value), r.bound ? model::to_string(*r.bound) : "-", eff);
  }
  return out;
}

}  // namespace lmroof::cli
