#include "reports/text/roof_text.h"

#include <fmt/format.h>

#include "analysis/claims/roof_faults.h"  // roof_fault_text: the same words as the verdicts'

namespace lmroof {

std::string curve_set_aside_line(const std::optional<model::BandwidthCurve>& curve) {
  if (!curve || !curve->unstable) return "";
  return fmt::format("bandwidth curve UNSTABLE, not used: runs are judged at the level ceilings instead ({})",
                     curve->unstable_reason.value_or("a level disagrees with its ceiling"));
}

std::string curve_set_aside_line(const model::Results& results) { return curve_set_aside_line(results.bandwidth_curve); }

std::string format_roof_faults(const std::vector<model::RoofFault>& faults) {
  if (faults.empty()) return "";
  std::string out = "runs above their judged roof (MEASUREMENT FAULT: the verdicts resting on them are untrustworthy):\n";
  for (const auto& f : faults) out += "  " + roof_fault_text(f) + "\n";
  return out;
}

std::string roof_faults_summary(const model::Results& results) {
  const auto& faults = results.decided().roof_faults;
  std::string out;
  if (faults.empty()) {
    out = fmt::format("roof faults: none (no run above {:.0f}% of its judged roof)\n", results.decided().bounds.roof_fault * 100);
  } else {
    const model::RoofFault* worst = &faults.front();
    for (const auto& f : faults)
      if (f.fraction > worst->fraction) worst = &f;
    out = fmt::format("roof faults: {} run{} above {:.0f}% of {} judged roof (MEASUREMENT FAULT), the worst {}\n",
                      faults.size(), faults.size() == 1 ? "" : "s", results.decided().bounds.roof_fault * 100,
                      faults.size() == 1 ? "its" : "their", roof_fault_text(*worst));
  }
  return out;  // the curve line, when set aside, is already in the floors-and-controls block above it
}

}  // namespace lmroof
