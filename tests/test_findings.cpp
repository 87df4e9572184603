// The findings the analysis decides once (analysis/results/findings.h, issue #36): the
// claims, the report and `check` read Results::findings and compute none of it, and a
// verdict's cause and evidence kind are enums that the JSON names by one table.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "analysis/claims/claims.h"
#include "analysis/results/findings.h"
#include "reports/html_report.h"

namespace lmroof {
namespace {

// window's sliding vs full at context 2048 (the same work: an identity control) whose
// paired interval lies beyond the pair's ±5% floor: a measurement fault.
model::Results faulty_control() {
  model::Results r;
  model::Comparison c;
  c.pair = "window";
  c.baseline = {"full", "grouped", "window/full/grouped/cpu/fp32/context:2048"};
  c.candidate = {"sliding", "grouped", "window/sliding/grouped/cpu/fp32/context:2048"};
  c.shape = {{"context", 2048}};
  c.bytes_ratio = c.flops_ratio = 1.0;
  c.speedup = 1.38;
  c.paired = model::PairedRounds{10, 1.38, 1.25, 1.44};
  r.comparisons = {c};
  r.noise_floors.push_back({"window", c.baseline.run, model::PairedRounds{10, 1.0, 0.95, 1.05}, 0.05});
  return r;
}

TEST(Findings, DecideStoresWhatEverySurfaceReads) {
  model::Results r = faulty_control();
  decide(r);
  ASSERT_TRUE(r.findings);
  ASSERT_EQ(r.findings->controls.size(), 1u);
  EXPECT_TRUE(r.findings->controls[0].beyond_floor);
  EXPECT_EQ(r.findings->untrustworthy_pairs, std::set<std::string>{"window"});
  ASSERT_EQ(r.findings->comparison_evidence.size(), 1u);
  EXPECT_EQ(r.evidence(r.comparisons[0]).shown, model::Shown::faster);
  EXPECT_TRUE(r.evidence(r.comparisons[0]).paired);
  // The check output reads the same findings.
  const nlohmann::json check = claims_check_json({}, "results.json", "claims.yaml", false, nullptr, &r);
  EXPECT_EQ(check["untrustworthy_pairs"], nlohmann::json::array({"window"}));
}

// Nothing downstream computes a finding on its own: a Results the analysis has not
// decided is refused, not rendered or judged without its controls.
TEST(Findings, UndecidedResultsAreRefusedNotRecomputed) {
  const model::Results r = faulty_control();
  EXPECT_THROW(r.decided(), std::logic_error);
  EXPECT_THROW(render_report_html(r), std::logic_error);
  EXPECT_THROW(check_claims({}, r), std::logic_error);
  EXPECT_THROW(claims_check_json({}, "results.json", "claims.yaml", false, nullptr, &r), std::logic_error);
  model::Results decided = r;
  decide(decided);
  EXPECT_NO_THROW(render_report_html(decided));
  // A comparison that is not the document's has no evidence there.
  EXPECT_THROW(decided.evidence(r.comparisons[0]), std::logic_error);
}

TEST(VerdictNames, CausesAndEvidenceKindsAreEnumsNamedByOneTable) {
  model::ClaimVerdict v;
  v.id = "x";
  v.kind = "faster";
  v.chart = "pair-norm";
  v.verdict = model::Verdict::inconclusive;
  v.evidence_kind = model::EvidenceKind::model;
  v.cause = model::Cause::machine;
  const nlohmann::json j = model::to_json(v);
  EXPECT_EQ(j["cause"], "machine");
  EXPECT_EQ(j["evidence_kind"], "model");
  for (auto cause : {model::Cause::architecture, model::Cause::implementation, model::Cause::machine, model::Cause::noise})
    EXPECT_FALSE(model::to_string(cause).empty());
  EXPECT_EQ(model::to_string(model::Cause::implementation), "implementation");
  EXPECT_EQ(model::to_string(model::EvidenceKind::measured), "measured");
}

}  // namespace
}  // namespace lmroof
