// The fix-first fusion estimate checked against lmroof's own fused kernels
// (analysis/trace/fusion_check.h, issue 43 item 6).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "analysis/model/results_model.h"
#include "analysis/predict/measured_device.h"
#include "analysis/trace/fix_first.h"
#include "analysis/trace/fusion_check.h"
#include "reports/text/trace_text.h"

namespace lmroof::trace {
namespace {

model::Run run(std::string impl, double median_s, double minimum_bytes, model::Bound bound, std::string variant = "rmsnorm") {
  model::Run r;
  r.pair = "norm";
  r.variant = std::move(variant);
  r.impl = std::move(impl);
  r.backend = "cpu";
  r.dtype = "fp32";
  r.shape = {{"tokens", 8}, {"d_model", 16}};
  r.id = r.pair + "/" + r.variant + "/" + r.impl;
  r.time_s.median = median_s;
  r.bytes.minimum = minimum_bytes;
  r.bound = bound;
  return r;
}

predict::Device device(double bandwidth, double launch_s) {
  predict::Device d;
  d.name = "test";
  d.bandwidth_bytes_per_s = bandwidth;
  d.launch_s = launch_s;
  return d;
}

TEST(FusionCheck, EstimatesTheFusedRunFromTheUnfusedRunsUniqueBytes) {
  model::Results results;
  results.runs = {run("unfused", 4e-3, 1e9, model::Bound::memory), run("fused", 2.5e-2, 1e9, model::Bound::memory)};
  results.runs[1].bytes.minimum = 5e9;  // the estimate reads the unfused run's bytes, not the fused run's
  const auto check = check_fusion_estimate(results, device(1e11, 5e-6));
  ASSERT_EQ(check.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(check.rows[0].estimate_s, 1e9 / 1e11 + 5e-6);
  EXPECT_DOUBLE_EQ(check.rows[0].estimate_s, fused_pass_seconds(1e9, device(1e11, 5e-6)));
  EXPECT_NEAR(check.rows[0].error(), (1e-2 + 5e-6) / 2.5e-2 - 1, 1e-12);
  EXPECT_EQ(check.rows[0].fused_run, "norm/rmsnorm/fused");
  EXPECT_TRUE(check.left_out.empty());
}

TEST(FusionCheck, LeavesOutComputeBoundFusedRunsAndUnmatchedShapesWithTheReason) {
  model::Results results;
  results.runs = {run("unfused", 4e-3, 1e9, model::Bound::memory), run("fused", 2e-3, 1e9, model::Bound::compute),
                  run("unfused", 4e-3, 1e9, model::Bound::memory, "layernorm")};
  const auto check = check_fusion_estimate(results, device(1e11, 0));
  EXPECT_TRUE(check.rows.empty());
  ASSERT_EQ(check.left_out.size(), 2u);
  EXPECT_NE(check.left_out[0].find("not memory-bound"), std::string::npos) << check.left_out[0];
  EXPECT_NE(check.left_out[1].find("no fused run"), std::string::npos) << check.left_out[1];
}

// The committed CPU example: every memory-bound unfused/fused pair gets a row, the
// GEMM-bound block pairs are left out with the reason. The table is docs/trace.md's
// "The fusion estimate, checked".
TEST(FusionCheck, OnTheCommittedExampleEveryMemoryBoundFusedPairHasARow) {
  const std::filesystem::path file =
      std::filesystem::path(LMROOF_SOURCE_DIR) / "docs/examples/2026-12-05-cpu-amd-epyc-zen5-2core/results.json";
  const model::Results results = model::load_results(file);
  const auto check = check_fusion_estimate(results, predict::device_from_results(results, file.string(), std::nullopt));
  size_t norm = 0, stability = 0;
  for (const auto& row : check.rows) {
    norm += row.fused_run.starts_with("norm/");
    stability += row.fused_run.starts_with("stability/");
    EXPECT_GT(row.estimate_s, 0);
    std::printf("%-75s unfused %9.3g s  fused %9.3g s  estimate %9.3g s  error %+6.1f%%\n", row.fused_run.c_str(),
                row.unfused_s, row.fused_s, row.estimate_s, 100 * row.error());
  }
  EXPECT_EQ(norm, 6u);       // layernorm and rmsnorm at three shapes
  EXPECT_EQ(stability, 4u);  // qknorm, zloss, logit_softcap, attn_softcap
  size_t block = 0;
  for (const auto& why : check.left_out) block += why.starts_with("block/") && why.find("not memory-bound") != std::string::npos;
  EXPECT_EQ(block, 4u);
}

// trace.json's fix_first_check and its one line under the fix-first list: the median of
// |error| and the signed range, worked here by hand.
TEST(FusionCheck, TraceJsonHoldsTheMedianAbsoluteErrorAndTheRangeAndTheTextSaysThem) {
  FusionCheck check;
  for (const double estimate : {0.9, 1.2, 1.05}) {  // errors -10%, +20%, +5%: |error| 10, 20, 5; median 10%
    FusionCheckRow row;
    row.unfused_run = "norm/unfused", row.fused_run = "norm/fused";
    row.fused_s = 1.0, row.estimate_s = estimate, row.unfused_s = 3, row.unique_bytes = 1e6;
    check.rows.push_back(row);
  }
  check.left_out.push_back("block/unfused: the fused run is not memory-bound");
  const lmroof::model::TraceFusionCheck j = fusion_check_result(check, "r/results.json");
  EXPECT_NEAR(*j.median_abs_error, 0.10, 1e-12);
  EXPECT_NEAR(*j.min_error, -0.10, 1e-12);
  EXPECT_NEAR(*j.max_error, 0.20, 1e-12);
  EXPECT_EQ(j.rows.size(), 3u);
  EXPECT_EQ(j.left_out.size(), 1u);
  lmroof::model::TraceResult trace;
  trace.fix_first_check = j;
  EXPECT_EQ(fusion_check_line(trace), "fusion estimate checked on r/results.json's 3 fused pairs: median |error| 10.0%, from -10.0% to 20.0%");
  check.rows.pop_back();  // two rows: the median is the mean of the middle two (10% and 20%)
  EXPECT_NEAR(*fusion_check_result(check, "r").median_abs_error, 0.15, 1e-12);
  check.rows.clear();
  trace.fix_first_check = fusion_check_result(check, "r/results.json");
  EXPECT_FALSE(trace.fix_first_check->median_abs_error);
  EXPECT_TRUE(lmroof::model::to_json(trace)["fix_first_check"]["median_abs_error"].is_null());
  EXPECT_EQ(fusion_check_line(trace), "fusion estimate: r/results.json has no memory-bound fused pair to check it on");
  EXPECT_EQ(fusion_check_line(lmroof::model::TraceResult{}), "");
}

}  // namespace
}  // namespace lmroof::trace
