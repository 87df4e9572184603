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

model::TraceFusionCheck fusion_check_result(const FusionCheck& check, const std::string& results_file) {
  model::TraceFusionCheck out;
  out.results = results_file;
  std::vector<double> abs_errors;
  for (const auto& r : check.rows) {
    const double e = r.error();
    out.rows.push_back({r.unfused_run, r.fused_run, r.unfused_s, r.fused_s, r.unique_bytes, r.estimate_s, e});
    out.min_error = abs_errors.empty() ? e : std::min(*out.min_error, e);
    out.max_error = abs_errors.empty() ? e : std::max(*out.max_error, e);
    abs_errors.push_back(std::abs(e));
  }
  if (!abs_errors.empty()) {
    std::sort(abs_errors.begin(), abs_errors.end());
    const size_t n = abs_errors.size();
    out.median_abs_error = n % 2 ? abs_errors[n / 2] : (abs_errors[n / 2 - 1] + abs_errors[n / 2]) / 2;
  }
  out.left_out = check.left_out;
  return out;
}

}  // namespace lmroof::trace
