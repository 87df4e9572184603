#include "analysis/trace/fusion_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/trace/fix_first.h"

namespace lmroof::trace {

FusionCheck check_fusion_estimate(const model::Results& results, const predict::Device& device) {
  FusionCheck out;
  for (const auto& unfused : results.runs) {
    if (unfused.impl != "unfused") continue;
    const model::Run* fused = nullptr;
    for (const auto& r : results.runs)
      if (r.impl == "fused" && r.pair == unfused.pair && r.variant == unfused.variant && r.backend == unfused.backend &&
          r.dtype == unfused.dtype && r.shape == unfused.shape)
        fused = &r;
    if (!fused) {
      out.left_out.push_back(fmt::format("{}: no fused run at its variant and shape", unfused.id));
      continue;
    }
    if (fused->bound != model::Bound::memory) {
      out.left_out.push_back(fmt::format("{}: the fused run is not memory-bound (a fused pass's estimate is a memory pass)",
                                         unfused.id));
      continue;
    }
    if (!(unfused.bytes.minimum > 0) || !(fused->time_s.median > 0)) {
      out.left_out.push_back(fmt::format("{}: no unique bytes or no measured time", unfused.id));
      continue;
    }
    FusionCheckRow row;
    row.unfused_run = unfused.id;
    row.fused_run = fused->id;
    row.unfused_s = unfused.time_s.median;
    row.fused_s = fused->time_s.median;
    row.unique_bytes = unfused.bytes.minimum;
    row.estimate_s = fused_pass_seconds(row.unique_bytes, device);
    out.rows.push_back(row);
  }
  return out;
}

nlohmann::json to_json(const FusionCheck& check, const std::string& results_file) {
  using nlohmann::json;
  json rows = json::array();
  std::vector<double> abs_errors;
  double lo = 0, hi = 0;
  for (const auto& r : check.rows) {
    const double e = r.error();
    rows.push_back({{"unfused_run", r.unfused_run}, {"fused_run", r.fused_run}, {"unfused_s", r.unfused_s},
                    {"fused_s", r.fused_s}, {"unique_bytes", r.unique_bytes}, {"estimate_s", r.estimate_s}, {"error", e}});
    lo = abs_errors.empty() ? e : std::min(lo, e);
    hi = abs_errors.empty() ? e : std::max(hi, e);
    abs_errors.push_back(std::abs(e));
  }
  json median = nullptr;
  if (!abs_errors.empty()) {
    std::sort(abs_errors.begin(), abs_errors.end());
    const size_t n = abs_errors.size();
    median = n % 2 ? abs_errors[n / 2] : (abs_errors[n / 2 - 1] + abs_errors[n / 2]) / 2;
  }
  return {{"results", results_file},
          {"rows", rows},
          {"median_abs_error", median},
          {"min_error", rows.empty() ? json(nullptr) : json(lo)},
          {"max_error", rows.empty() ? json(nullptr) : json(hi)},
          {"left_out", check.left_out}};
}

}  // namespace lmroof::trace
