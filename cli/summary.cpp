#include "cli/summary.h"

#include <fmt/format.h>

namespace lmroof::cli {

std::string format_ceilings_table(const nlohmann::json& ceilings) {
  std::string out = fmt::format("{:<20} {:>12} {:<8} {}\n", "ceiling", "value", "unit", "how");
  for (const auto& c : ceilings) {
    const bool bw = c["unit"] == "B/s";
    out += fmt::format("{:<20} {:>12.1f} {:<8} {}\n", c["name"].get<std::string>(), c["value"].get<double>() / 1e9,
                       bw ? "GB/s" : "GFLOP/s", c["detail"].get<std::string>());
  }
  return out;
}

std::string format_runs_table(const nlohmann::json& results) {
  std::string out = format_ceilings_table(results["ceilings"]) + "\n";
  out += fmt::format("{:<58} {:>10} {:>8} {:>9} {:>7} {:>7} {:>6} {:>5} {}\n", "run", "median ms", "GB/s", "GFLOP/s",
                     "FLOP/B", "bound", "roof%", "SoL%", "judged against");
  for (const auto& r : results["runs"]) {
    const auto& roof = r["roofline"];
    const std::string eff = roof["efficiency"].is_null() ? "-" : fmt::format("{:.0f}", 100 * roof["efficiency"].get<double>());
    std::string id = r["id"].get<std::string>();
    if (id.size() > 58) id = id.substr(0, 55) + "...";
    // speed of light: the fraction of the roof this run is judged against (analysis/roof_choice.h)
    const auto* judged = r.contains("judged_against") && r["judged_against"]["roof"].is_string() ? &r["judged_against"] : nullptr;
    const std::string sol = judged ? fmt::format("{:.0f}", 100 * (*judged)["fraction"].get<double>()) : "-";
    const std::string against = judged ? (*judged)["roof"].get<std::string>() : "";
    out += fmt::format("{:<58} {:>10.3f} {:>8.1f} {:>9.1f} {:>7.2f} {:>7} {:>6} {:>5} {}\n", id,
                       r["time_s"]["median"].get<double>() * 1e3, r["achieved"]["byte_per_s"].get<double>() / 1e9,
                       r["achieved"]["flop_per_s"].get<double>() / 1e9, r["intensity"]["value"].get<double>(),
                       r["bound"].is_null() ? "-" : r["bound"].get<std::string>(), eff, sol, against);
  }
  return out;
}

}  // namespace lmroof::cli
