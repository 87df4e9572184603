// Issue #34 item 6 through the analysis: the eager block (block/serial/unfused) is a
// sequence of steps, and its bench.json cost counters split its FLOPs and bytes by
// operator class. analysis judges it against the sum of its steps' roof times, and the
// verdict cause (analysis/claims/verdict_cause.h) reads that fraction, not its whole
// FLOPs at the FMA peak.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/claims/verdict_cause.h"
#include "analysis/results/results.h"
#include "bench/catalogue.h"
#include "bench_fixture.h"
#include "registry.h"

namespace lmroof {
namespace {

using test::bench_entry;  // tests/bench_fixture.h

TEST(CompositeRoof, TheEagerBlockIsJudgedAgainstTheSumOfItsStepsRoofTimes) {
  const std::string id = "block/serial/unfused/cpu/fp32/tokens:512/d_model:1024/d_ff:2752/q_heads:16/head_dim:64";
  nlohmann::json b = nlohmann::json::array();
  b.push_back(bench_entry("ceiling/cpu/read", 10, {{"ceiling_bytes", 4e8}}));      // 40 GB/s
  b.push_back(bench_entry("ceiling/cpu/copy", 10, {{"ceiling_bytes", 3e8}}));      // 30 GB/s
  b.push_back(bench_entry("ceiling/cpu/fp32_fma", 10, {{"ceiling_flops", 2e9}}));  // 200 GFLOP/s
  for (double t : {400.0, 410.0, 420.0}) b.push_back(bench_entry(id, t));
  const nlohmann::json doc = {{"context", {{"host_name", "test"}, {"num_cpus", 2}}}, {"benchmarks", b}};
  const model::Results r = build_results(parse_bench_json(test::as_measured(doc), "test"), {});
  const model::Run* run = r.run(id);
  ASSERT_TRUE(run && run->judged_against && run->judged_against->roof);
  const model::JudgedAgainst& j = *run->judged_against;
  EXPECT_TRUE(j.composite) << *j.roof;
  EXPECT_EQ(*j.roof, "fp32_fma+copy by step");
  // Σ over its classes of max(F/P, B/W), W the run's memory rate (no cache ceilings: a
  // DRAM copy at 30 GB/s, its reads and writes paired), P 200 GFLOP/s.
  const Cost cost = cost_of(RunSpec::parse_bench_name(id));
  ASSERT_GE(cost.flops_by_class.size(), 2u);
  double sum = 0;
  for (const auto& [cls, f] : cost.flops_by_class)
    sum += std::max(f.total() / 200e9, cost.bytes_by_class.at(cls) / 30e9);
  EXPECT_NEAR(j.seconds, sum, 1e-9 * sum);
  EXPECT_GT(j.seconds, cost.flops.total() / 200e9);  // more than its FLOPs at the FMA peak alone
  EXPECT_NEAR(j.fraction, j.seconds / 0.41, 1e-9);

  // The verdict cause reads the composite fraction.
  ASSERT_TRUE(roof_fraction(*run));
  EXPECT_DOUBLE_EQ(*roof_fraction(*run), j.fraction);
  const auto cause = cause_of({model::Verdict::fails, {{"baseline", run}}, std::nullopt, 0.05});
  ASSERT_TRUE(cause);
  EXPECT_NE(cause->detail.find("fp32_fma+copy by step"), std::string::npos) << cause->detail;
}

}  // namespace
}  // namespace lmroof
