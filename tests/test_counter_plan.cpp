// The counter plan, checked offline by CUPTI's host API (no GPU needed): the metric
// names lmroof asks for must exist on the chips it targets, so that a device session
// is never the first place a misspelt counter shows up.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "profiler/counter_plan.h"

namespace lmroof::profiler {
namespace {

#ifdef LMROOF_WITH_CUDA
std::set<std::string> dropped_names(const CounterPlan& plan) {
  std::set<std::string> out;
  for (const auto& [name, why] : plan.dropped) out.insert(name);
  return out;
}

TEST(CounterPlan, EveryRooflineMetricButPairedFp32IsAMetricOfHopper) {
  // GH100 is CUPTI's name for the H100 and H200 chip.
  const CounterPlan plan = plan_counters_offline("GH100");
  ASSERT_TRUE(plan.available) << plan.reason;
  EXPECT_EQ(plan.chip, "GH100");
  // FADD2/FMUL2/FFMA2 are Blackwell instructions; Hopper has no such counters.
  const std::set<std::string> paired = {metric::kFadd2, metric::kFmul2, metric::kFfma2};
  EXPECT_EQ(dropped_names(plan), paired);
  for (const auto& [name, why] : plan.dropped) EXPECT_NE(why.find("not a metric of GH100"), std::string::npos) << why;
  EXPECT_EQ(plan.metrics.size() + paired.size(), roofline_metrics().size());
  // What the roofline cannot do without: bytes, FP32/FP64/FP16 instruction counts,
  // the bf16 tensor path (and its wgmma share), the SM clock.
  const std::set<std::string> collected(plan.metrics.begin(), plan.metrics.end());
  for (const char* needed : {metric::kDramRead, metric::kDramWrite, metric::kL2Bytes, metric::kFfma, metric::kDfma,
                             metric::kHfma, metric::kTensorBf16, metric::kTensorBf16Hgmma, metric::kSmClock})
    EXPECT_TRUE(collected.count(needed)) << needed;
  EXPECT_EQ(plan.passes, 0u) << "passes need the device's counter-availability image";
}

TEST(CounterPlan, BlackwellHasThePairedFp32Counters) {
  const CounterPlan plan = plan_counters_offline("GB100", {metric::kFfma, metric::kFadd2, metric::kFmul2, metric::kFfma2});
  ASSERT_TRUE(plan.available) << plan.reason;
  EXPECT_EQ(plan.metrics.size(), 4u);
  EXPECT_TRUE(plan.dropped.empty());
}

TEST(CounterPlan, UnknownMetricIsDroppedWithCuptisAnswerTheRestKept) {
  const CounterPlan plan = plan_counters_offline("GH100", {metric::kDramRead, "dram__bytes_sideways.sum"});
  ASSERT_TRUE(plan.available) << plan.reason;
  EXPECT_EQ(plan.metrics, std::vector<std::string>{metric::kDramRead});
  ASSERT_EQ(plan.dropped.count("dram__bytes_sideways.sum"), 1u);
  EXPECT_NE(plan.dropped.at("dram__bytes_sideways.sum").find("CUPTI_ERROR"), std::string::npos);
}

TEST(CounterPlan, UnknownChipIsAReasonNotACrash) {
  const CounterPlan plan = plan_counters_offline("NOT_A_CHIP");
  EXPECT_FALSE(plan.available);
  EXPECT_NE(plan.reason.find("NOT_A_CHIP"), std::string::npos) << plan.reason;
  // The reason lists the names that would work.
  EXPECT_NE(plan.reason.find("GH100"), std::string::npos) << plan.reason;
  EXPECT_TRUE(plan.metrics.empty());
}

TEST(CounterPlan, CuptiKnowsTheChipsLmroofTargets) {
  const auto chips = cupti_supported_chips();
  const std::set<std::string> known(chips.begin(), chips.end());
  EXPECT_TRUE(known.count("GH100"));  // H100, H200
  EXPECT_TRUE(known.count("GB100"));  // B200
}

TEST(CounterPlan, NoCollectableMetricIsAReason) {
  const CounterPlan plan = plan_counters_offline("GH100", {"no__such_metric.sum"});
  EXPECT_FALSE(plan.available);
  EXPECT_NE(plan.reason.find("none of the requested metrics"), std::string::npos) << plan.reason;
  EXPECT_EQ(dropped_names(plan), std::set<std::string>{"no__such_metric.sum"});
}

#else

TEST(CounterPlan, WithoutCudaEveryPlanSaysWhy) {
  const CounterPlan plan = plan_counters_offline("GH100");
  EXPECT_FALSE(plan.available);
  EXPECT_NE(plan.reason.find("without CUDA"), std::string::npos) << plan.reason;
}

#endif

}  // namespace
}  // namespace lmroof::profiler
