// `lmroof counters`: which GPU counters a run would read, before a device session is
// spent on it. With --chip the names are checked offline by CUPTI's host API (no GPU
// needed); without it, on the current device, which also gives the replay passes.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <stdexcept>

#include "cli/commands.h"
#include "profiler/range_profiler.h"

namespace lmroof::cli {

int counters(const std::string& chip, const std::vector<std::string>& metrics, bool json) {
  const std::vector<std::string>& requested = metrics.empty() ? profiler::roofline_metrics() : metrics;
  profiler::CounterPlan plan;
  if (chip.empty()) {
    profiler::RangeProfiler device_profiler(requested);
    plan = device_profiler.status();
  } else {
    plan = profiler::plan_counters_offline(chip, requested);
  }
  if (!plan.available) throw std::runtime_error("GPU counters unavailable: " + plan.reason);

  if (json) {
    const nlohmann::json out = {{"chip", plan.chip},
                                {"checked_on", chip.empty() ? "device" : "host (offline, by chip name)"},
                                {"passes", chip.empty() ? nlohmann::json(plan.passes) : nlohmann::json(nullptr)},
                                {"metrics", plan.metrics},
                                {"dropped", plan.dropped}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  if (chip.empty())
    std::printf("chip %s: %zu metrics in %zu replay passes\n", plan.chip.c_str(), plan.metrics.size(), plan.passes);
  else
    std::printf("chip %s, checked offline by CUPTI's host API: %zu metrics (replay passes need the device)\n",
                plan.chip.c_str(), plan.metrics.size());
  for (const auto& m : plan.metrics) std::printf("  collected  %s\n", m.c_str());
  for (const auto& [m, why] : plan.dropped) std::printf("  dropped    %s: %s\n", m.c_str(), why.c_str());
  return 0;
}

}  // namespace lmroof::cli
