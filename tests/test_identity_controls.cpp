// Identity controls (analysis/claims/identity_controls.h, docs/claims.md#identity-controls):
// comparisons of the same work on both sides, judged against their pair's A/A floor.
#include <gtest/gtest.h>

#include "analysis/claims/identity_controls.h"

namespace lmroof {
namespace {

model::Comparison window_comparison(const std::string& candidate, int64_t context, double bytes_ratio, double low,
                                    double high) {
  model::Comparison c;
  c.pair = "window";
  c.baseline = {"full", "grouped", "window/full/grouped/cpu/fp32/context:" + std::to_string(context)};
  c.candidate = {candidate, "grouped", "window/" + candidate + "/grouped/cpu/fp32/context:" + std::to_string(context)};
  c.shape = {{"context", context}, {"window", 4096}};
  c.bytes_ratio = bytes_ratio;
  c.flops_ratio = bytes_ratio;
  c.paired = model::PairedRounds{10, std::sqrt(low * high), low, high};
  return c;
}

model::Results window_results(double control_low, double control_high) {
  model::Results r;
  r.comparisons = {window_comparison("sliding", 2048, 1.0, control_low, control_high),
                   window_comparison("sliding", 16384, 0.25, 3.0, 3.5)};
  r.noise_floors.push_back({"window", r.comparisons[0].baseline.run, model::PairedRounds{10, 1.0, 0.95, 1.05}, 0.05});
  return r;
}

TEST(IdentityControls, SameWorkAndSameImplIsAControl) {
  model::Comparison c = window_comparison("sliding", 2048, 1.0, 0.9, 1.1);
  EXPECT_TRUE(is_identity_control(c));
  c.flops_ratio = 1.01;  // more work on one side: a claim's comparison
  EXPECT_FALSE(is_identity_control(c));
  c.flops_ratio = 1.0;
  c.candidate.impl = "naive";  // other code may rightly run at another speed
  EXPECT_FALSE(is_identity_control(c));
  c.candidate.impl = "grouped";
  c.bytes_basis = model::BytesBasis::measured;  // counters measured on each side: not the cost model
  EXPECT_FALSE(is_identity_control(c));
}

TEST(IdentityControls, WithinTheFloorIsNoFault) {
  const model::Results r = window_results(0.97, 1.04);  // overlaps [1/1.05, 1.05]
  const auto controls = identity_controls(r);
  ASSERT_EQ(controls.size(), 1u);  // the n = 4W comparison does a quarter of the bytes
  EXPECT_FALSE(controls[0].beyond_floor);
  EXPECT_EQ(controls[0].label, "sliding vs full, context=2048");
  ASSERT_TRUE(controls[0].floor);
  EXPECT_DOUBLE_EQ(*controls[0].floor, 0.05);
  EXPECT_TRUE(untrustworthy_pairs(controls).empty());
  EXPECT_NE(format_identity_controls(controls).find("floor \u00b15.0%: within"), std::string::npos)
      << format_identity_controls(controls);
}

TEST(IdentityControls, BeyondTheFloorMarksThePairsVerdicts) {
  // The window-same-below-w: 1.38x (1.25-1.44) on the same work.
  const model::Results r = window_results(1.25, 1.44);
  const auto controls = identity_controls(r);
  ASSERT_EQ(controls.size(), 1u);
  EXPECT_TRUE(controls[0].beyond_floor);
  EXPECT_EQ(untrustworthy_pairs(controls), std::set<std::string>{"window"});
  EXPECT_NE(format_identity_controls(controls).find("MEASUREMENT FAULT"), std::string::npos);

  model::ClaimVerdict window, norm, model_only;
  window.evidence = {{r.comparisons[1].candidate.run, "time_s.median", 1.0}};
  norm.evidence = {{"norm/rmsnorm/fused/cpu/fp32/tokens:512", "time_s.median", 1.0}};
  model_only.evidence = window.evidence;
  model_only.evidence_kind = "model";
  std::vector<model::ClaimVerdict> verdicts = {window, norm, model_only};
  mark_untrustworthy(verdicts, controls);
  ASSERT_TRUE(verdicts[0].untrustworthy);
  EXPECT_NE(verdicts[0].untrustworthy->find("measurement fault"), std::string::npos) << *verdicts[0].untrustworthy;
  EXPECT_FALSE(verdicts[1].untrustworthy);  // another pair
  EXPECT_FALSE(verdicts[2].untrustworthy);  // the cost model's verdict rests on no time

  const auto j = identity_controls_json(controls);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["beyond_floor"], true);
  EXPECT_DOUBLE_EQ(j[0]["floor"].get<double>(), 0.05);
}

TEST(IdentityControls, BelowOneBeyondTheFloorIsAFaultToo) {
  EXPECT_TRUE(identity_controls(window_results(0.80, 0.94))[0].beyond_floor);  // 0.94 < 1/1.05
  EXPECT_FALSE(identity_controls(window_results(0.80, 0.96))[0].beyond_floor);
}

TEST(IdentityControls, WithoutAFloorNothingIsJudged) {
  model::Results r = window_results(1.25, 1.44);
  r.noise_floors.clear();
  const auto controls = identity_controls(r);
  ASSERT_EQ(controls.size(), 1u);
  EXPECT_FALSE(controls[0].beyond_floor);
  EXPECT_NE(format_identity_controls(controls).find("not judged"), std::string::npos);
}

}  // namespace
}  // namespace lmroof
