// The rules that name a verdict's cause (analysis/claims/verdict_cause.h).
#include <gtest/gtest.h>

#include "analysis/claims/verdict_cause.h"

namespace lmroof {
namespace {

model::Run run_at(const std::string& id, std::optional<double> fraction) {
  model::Run r;
  r.id = id;
  r.judged_against = model::JudgedAgainst{};
  if (fraction) {
    r.judged_against->roof = "dram_read";
    r.judged_against->fraction = *fraction;
  }
  return r;
}

TEST(VerdictCause, HoldsAndNotMeasuredHaveNone) {
  const model::Run a = run_at("a", 0.9);
  EXPECT_FALSE(cause_of({model::Verdict::holds, {{"baseline", &a}}, std::nullopt, 0.02}));
  EXPECT_FALSE(cause_of({model::Verdict::not_measured, {{"baseline", &a}}, std::nullopt, 0.02}));
}

TEST(VerdictCause, SlowSideIsImplementationAndIsNamed) {
  const model::Run a = run_at("a", 0.8), b = run_at("b", 0.31);
  const auto c = cause_of({model::Verdict::fails, {{"baseline", &a}, {"candidate", &b}}, 0.5, 0.02});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause, Cause::implementation);  // before machine: the kernel is slow whatever the machine did
  EXPECT_NE(c->detail.find("candidate b at 31% of dram_read"), std::string::npos) << c->detail;
}

TEST(VerdictCause, BothSidesNearTheirRoofsIsArchitecture) {
  const model::Run a = run_at("a", 0.8), b = run_at("b", kArchitectureRoofFraction);
  const auto c = cause_of({model::Verdict::fails, {{"baseline", &a}, {"candidate", &b}}, 0.01, 0.02});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause, Cause::architecture);
}

TEST(VerdictCause, ProbesMovingBeyondTheFloorIsMachine) {
  const model::Run a = run_at("a", 0.8), b = run_at("b", 0.7);
  auto c = cause_of({model::Verdict::fails, {{"baseline", &a}, {"candidate", &b}}, 0.10, 0.02});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause, Cause::machine);
  c = cause_of({model::Verdict::inconclusive, {{"baseline", &a}, {"candidate", &b}}, 0.10, 0.02});
  EXPECT_EQ(c->cause, Cause::machine);
  // A move within the floor is not the machine's doing.
  c = cause_of({model::Verdict::inconclusive, {{"baseline", &a}, {"candidate", &b}}, 0.01, 0.02});
  EXPECT_EQ(c->cause, Cause::noise);
}

TEST(VerdictCause, UnjudgedSidesAreSaidSo) {
  const model::Run a = run_at("a", std::nullopt), b = run_at("b", 0.9);
  const auto c = cause_of({model::Verdict::fails, {{"baseline", &a}, {"candidate", &b}}, std::nullopt, 0.02});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause, Cause::architecture);
  EXPECT_NE(c->detail.find("baseline not judged"), std::string::npos) << c->detail;
}

TEST(VerdictCause, ProbedJudgementWinsOverTheSuiteRoofs) {
  model::Run a = run_at("a", 0.4);
  a.judged_against_probe = model::JudgedAgainst{};
  a.judged_against_probe->roof = "dram_read";
  a.judged_against_probe->fraction = 0.7;  // the machine was slow while it ran: the kernel was not
  EXPECT_DOUBLE_EQ(*roof_fraction(a), 0.7);
  const auto c = cause_of({model::Verdict::fails, {{"run", &a}}, std::nullopt, std::nullopt});
  EXPECT_EQ(c->cause, Cause::architecture);
}

// issue #34 item 11: a pair's own A/A floor of ±152% is no noise figure; the pair cannot be
// measured here as set up, and its inconclusive verdicts say so. The check's own
// noise_floor (not the pair's) and a floor within the bound keep "noise".
TEST(VerdictCause, APairsFloorBeyondTheBoundIsNotMeasurableHere) {
  const model::Run a = run_at("a", 0.8), b = run_at("b", 0.7);
  const auto c = cause_of({model::Verdict::inconclusive, {{"baseline", &a}, {"candidate", &b}}, std::nullopt, 1.52, true});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause, Cause::machine);
  EXPECT_NE(c->detail.find("not measurable here as set up: its A/A floor ±152% is beyond the ±25% bound"),
            std::string::npos)
      << c->detail;
  EXPECT_EQ(cause_of({model::Verdict::inconclusive, {{"baseline", &a}}, std::nullopt, kMeasurableFloorBound, true})->cause,
            Cause::noise);
  EXPECT_EQ(cause_of({model::Verdict::inconclusive, {{"baseline", &a}}, std::nullopt, 1.52, false})->cause, Cause::noise);
}

}  // namespace
}  // namespace lmroof
