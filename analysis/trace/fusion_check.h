#pragma once
// The fix-first fusion estimate (fix_first.h, fused_pass_seconds) checked against the fused
// kernels lmroof measures itself (issue 43, item 6): for every pair run that lmroof times
// both unfused (one kernel per step) and fused (one pass), at the same variant and shape,
// the estimate from the unfused run's unique input and output bytes (bytes.minimum: what
// the fused pass must read and write) on the results' own measured roofs
// (predict::device_from_results, as `trace --ceilings` uses them), against the fused run's
// measured median. Only fused runs lmroof judges memory-bound: the estimate is a memory
// pass and says nothing of a GEMM-bound block.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/model/results_model.h"
#include "analysis/model/trace_result.h"
#include "analysis/predict/devices.h"

namespace lmroof::trace {

struct FusionCheckRow {
  std::string unfused_run, fused_run;  // run ids
  double unfused_s = 0;                // measured medians
  double fused_s = 0;
  double unique_bytes = 0;  // the unfused run's bytes.minimum
  double estimate_s = 0;    // fused_pass_seconds(unique_bytes, device)
  double error() const { return estimate_s / fused_s - 1; }  // negative: the estimate is optimistic
};

struct FusionCheck {
  std::vector<FusionCheckRow> rows;
  std::vector<std::string> left_out;  // "RUN: why", for each unfused run with no row
};

FusionCheck check_fusion_estimate(const model::Results& results, const predict::Device& device);

// trace.json's fix_first_check (`lmroof trace --ceilings RESULTS.json`): the rows with
// their errors, the median of |error| and the signed extremes (none without rows).
model::TraceFusionCheck fusion_check_result(const FusionCheck& check, const std::string& results_file);

}  // namespace lmroof::trace
