// Trace claims are ordinary claims (issue 43, "One model, one checker"; issue 47 #8-#10):
// a class_share claims file is read by the one strict loader (FILE:LINE messages, bounds,
// duplicates, unknown fields, ids, types, aliases, size and UTF-8 refused as for a
// results.json's claims), checked by the one share rule against a trace's class tables
// of either grouping, with the verdict and cause enums the results' claims have.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <string>

#include "analysis/claims/claims.h"
#include "analysis/model/trace_result.h"
#include "analysis/model/input_error.h"
#include "reports/text/claims_text.h"

namespace lmroof {
namespace {

using model::Verdict;
using json = nlohmann::json;

std::vector<Claim> parse_trace_claims(const std::string& text) {
  return parse_claims(text, "t.yaml", model::Catalogue{}, ClaimsTarget::trace);
}

// The one line a bad trace claims file gets, "t.yaml:LINE: problem"; "" when it loaded.
std::string refusal(const std::string& text) {
  try {
    parse_trace_claims(text);
  } catch (const ClaimsFileError& e) {
    return e.what();
  }
  return "";
}

// One claim with this check (a flow mapping), as a file.
std::string with_check(const std::string& check, const std::string& id = "c") {
  return "claims:\n  - id: " + id + "\n    statement: s\n    source: x\n    check: " + check + "\n";
}

// issue 47 #8: each was judged "fails" or passed, or a type slip printed a yaml-cpp
// message with no file; the results' claims loader refused all of them.
TEST(TraceClaimsFile, EachBadInputIsRefusedWithFileAndLine) {
  const std::pair<std::string, std::string> cases[] = {
      {with_check("{kind: class_share, class: normalization, time_share: {min: .nan}}"), "t.yaml:5: 'time_share.min' must be a number"},
      {with_check("{kind: class_share, class: normalization, time_share: {min: nan}}"), "t.yaml:5: 'time_share.min' must be a number"},
      {with_check("{kind: class_share, class: normalization, time_share: {max: .inf}}"), "t.yaml:5: 'time_share.max' must be a number"},
      {with_check("{kind: class_share, class: normalization, time_share: {max: -.Inf}}"), "t.yaml:5: 'time_share.max' must be a number"},
      {with_check("{kind: class_share, class: normalization, time_share: {min: 0.5, max: 0.1}}"), "t.yaml:5: 'time_share' has min 0.5 > max 0.1"},
      {with_check("{kind: class_share, class: normalization, time_share: {min: 0.1}, time_share: {max: 0.9}}"),
       "t.yaml:5: field 'time_share' appears twice in a class_share check"},
      {with_check("{kind: class_share, class: normalization, time_share: {min: 0.1, max: 0.2, max: 0.3}}"),
       "t.yaml:5: field 'max' appears twice in 'time_share'"},
      {with_check("{kind: class_share, class: normalization, time_shares: {min: 0.1}}"),
       "t.yaml:5: unknown field 'time_shares' in a class_share check"},
      {with_check("{kind: class_share, class: normalization, time_share: {min: 0.1, typical: 0.2}}"),
       "t.yaml:5: unknown field 'typical' in 'time_share'"},
      {"claims:\n  - id: c\n    statement: s\n    source: x\n    verdict: holds\n    check: {kind: class_share, class: matmul, time_share: {min: 0.5}}\n",
       "t.yaml:5: unknown field 'verdict' in a claim"},
      {with_check("{kind: class_share, class: matmul, time_share: {min: 0.5}}", "\"norm\\eclaim\""),
       "t.yaml:2: a claim id holds U+001B: ids may hold only letters"},
      {with_check("{kind: class_share, class: {name: matmul}, time_share: {min: 0.5}}"), "t.yaml:5: 'class' must be a string"},
      {"claims:\n  - id: c\n    statement: {a: b}\n    source: x\n    check: {kind: class_share, class: matmul, time_share: {min: 0.5}}\n",
       "t.yaml:3: 'statement' must be a string"},
      {with_check("{kind: class_share, class: matmul, grouping: [lmroof], time_share: {min: 0.5}}"), "t.yaml:5: 'grouping' must be a string"},
      {with_check("{kind: class_share, class: norms, time_share: {min: 0.1}}"),
       "t.yaml:5: unknown class 'norms' in the lmroof grouping (known: matmul, attention, normalization"},
      {with_check("{kind: class_share, grouping: ivanov, class: normalization, time_share: {min: 0.1}}"),
       "t.yaml:5: unknown class 'normalization' in the ivanov grouping (known: tensor_contraction, statistical_normalization, elementwise, communication, memory, other)"},
      {with_check("{kind: class_share, grouping: hoefler, class: matmul, time_share: {min: 0.1}}"), "t.yaml:5: unknown grouping 'hoefler'"},
      {with_check("{kind: class_shares, class: matmul}"), "t.yaml:5: unknown check kind 'class_shares' (expected class_share)"},
      {with_check("{kind: class_share, class: matmul}"), "t.yaml:5: class_share check of claim 'c' needs flop_share"},
      {with_check("{kind: class_share, class: matmul, time_share: {}}"), "t.yaml:5: 'time_share' has neither a min nor a max"},
      // a results.json's kind in a trace's claims: refused now, not "not measured" after the trace
      {with_check("{kind: bound, run: {pair: norm}, expect: memory}"), "t.yaml:5: a bound check is checked against a results.json"},
      {"claims:\n  - id: c\n    statement: s\n    source: x\n    chart: roofline\n    check: {kind: class_share, class: matmul, time_share: {min: 0.5}}\n",
       "t.yaml:5: 'chart' names a chart of the results page"},
      {"claims:\n  - id: c\n    check: {kind: class_share, class: matmul, time_share: {min: 0.5}}\n", "t.yaml:2: claim 'c' has no 'statement'"},
      // text in memory too (the fuzz target found it): a byte that is not UTF-8 failed only when written as JSON
      {"claims:\n  - id: c\n    statement: s\xff\n    source: x\n    check: {kind: class_share, class: matmul, time_share: {min: 0.5}}\n",
       "t.yaml:3: invalid UTF-8 (byte 0xFF)"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string got = refusal(text);
    EXPECT_EQ(got.rfind(expected, 0), 0u) << "input:\n" << text << "got: " << got << "\nexpected to start: " << expected;
  }
}

// And the other way: a class_share claim in a results.json's claims.
TEST(TraceClaimsFile, AClassShareClaimIsRefusedForAResultsJson) {
  try {
    parse_claims(with_check("{kind: class_share, class: matmul, time_share: {min: 0.5}}"), "r.yaml", model::Catalogue{});
    ADD_FAILURE() << "accepted";
  } catch (const ClaimsFileError& e) {
    EXPECT_NE(std::string(e.what()).find("r.yaml:5: a class_share check is checked against a trace.json"), std::string::npos) << e.what();
  }
}

// issue 47 #9: a 107 kB file of aliases took 448 MB; aliases are refused at their line.
TEST(TraceClaimsFile, AliasesAreRefused) {
  const std::string text = "claims:\n  - id: c\n    statement: &s a statement\n    source: *s\n"
                           "    check: {kind: class_share, class: matmul, time_share: {min: 0.5}}\n";
  EXPECT_EQ(refusal(text).rfind("t.yaml:4: a YAML alias", 0), 0u) << refusal(text);
}

class TraceClaimsOnDisk : public ::testing::Test {
 protected:
  std::filesystem::path dir_ = std::filesystem::temp_directory_path() / ("lmroof-trace-claims-" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const std::string& name, const std::string& text) {
    const auto p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string load_refusal(const std::filesystem::path& p) {
    try {
      load_claims(p, model::Catalogue{}, ClaimsTarget::trace);
    } catch (const ClaimsFileError& e) {
      return e.what();
    }
    return "";
  }
};

// issue 47 #9: an oversized file is refused before it is parsed.
TEST_F(TraceClaimsOnDisk, AnOversizedFileIsRefused) {
  std::string text = with_check("{kind: class_share, class: matmul, time_share: {min: 0.5}}");
  text += "# " + std::string(17 << 20, 'x') + "\n";
  const auto p = write("big.yaml", text);
  const std::string got = load_refusal(p);
  EXPECT_EQ(got.rfind(p.string() + ": ", 0), 0u) << got;
  EXPECT_NE(got.find("larger than"), std::string::npos) << got;
}

// issue 47 #10: a Latin-1 byte is refused by the loader, with its line (the trace is
// read after it: cli/trace_command.cpp, tests/e2e/trace_claims_errors.sh).
TEST_F(TraceClaimsOnDisk, ALatin1ByteIsRefusedWithItsLine) {
  const auto p = write("latin1.yaml", "claims:\n  - id: c\n    statement: Normalisierung gro\xDF\n    source: x\n"
                                      "    check: {kind: class_share, class: matmul, time_share: {min: 0.5}}\n");
  EXPECT_EQ(load_refusal(p), p.string() + ":3: invalid UTF-8 (byte 0xDF); save the file as UTF-8");
}

TEST_F(TraceClaimsOnDisk, TheLecturesTraceClaimsLoad) {
  const auto claims = load_claims(std::filesystem::path(LMROOF_SOURCE_DIR) / "claims/trace-lecture3.yaml", model::Catalogue{},
                                  ClaimsTarget::trace);
  ASSERT_EQ(claims.size(), 3u);
  EXPECT_EQ(claims[0].check.grouping, Grouping::lmroof);
  EXPECT_EQ(claims[0].check.op_class, "normalization");
  EXPECT_EQ(claims[1].check.grouping, Grouping::ivanov);
  EXPECT_EQ(claims[1].check.op_class, "statistical_normalization");
  EXPECT_NE(claims[1].statement.find("25.5%"), std::string::npos);  // the paper's figure
  // The fixture (a fuzz seed too): both groupings, a range as a list, byte share and roof.
  const auto fixture = load_claims(std::filesystem::path(LMROOF_TEST_DATA) / "claims/trace-share.yaml", model::Catalogue{},
                                   ClaimsTarget::trace);
  ASSERT_EQ(fixture.size(), 3u);
  EXPECT_EQ(fixture[1].check.grouping, Grouping::ivanov);
  EXPECT_EQ(fixture[1].check.time_share.min, 0.10);
  EXPECT_EQ(fixture[2].check.fraction_of_roof.min, 0.5);
  EXPECT_EQ(fixture[2].check.byte_share.max, 0.9);
}

// ---- the checker ---------------------------------------------------------------------

json trace_doc(bool with_ivanov) {
  json doc = {{"device", {{"name", "H100"}}},
              {"total_time_s", 0.5},
              {"window", {{"kind", "steps"}, {"step_count", 1}, {"total_s", 0.6}}},
              {"ops", json::array()},
              {"classes",
               {{{"class", "matmul"}, {"time_s", 0.3}, {"flop_share", 0.99}, {"byte_share", 0.5}, {"time_share", 0.6}, {"fraction_of_roof", 0.2}},
                {{"class", "normalization"}, {"time_s", 0.125}, {"flop_share", 0.002}, {"byte_share", 0.3}, {"time_share", 0.25}, {"fraction_of_roof", nullptr}}}}};
  if (with_ivanov)
    doc["ivanov_classes"] = {{{"class", "tensor_contraction"}, {"time_s", 0.3}, {"flop_share", 0.99}, {"byte_share", 0.5}, {"time_share", 0.6}, {"fraction_of_roof", 0.9}},
                             {{"class", "statistical_normalization"}, {"time_s", 0.175}, {"flop_share", 0.003}, {"byte_share", 0.4}, {"time_share", 0.35}, {"fraction_of_roof", nullptr}}};
  return doc;
}

std::vector<model::ClaimVerdict> check(const std::string& text, const json& doc) {
  return check_trace_claims(parse_trace_claims(text), model::read_trace_result(doc, "trace.json"));
}

TEST(TraceClaimsCheck, HoldsFailsAndNotMeasuredByTheShareRule) {
  const std::string text = std::string("claims:\n") +
                           "  - {id: norm, statement: s, source: x, check: {kind: class_share, class: normalization, flop_share: {max: 0.01}, time_share: {min: 0.1}}}\n"
                           "  - {id: mm, statement: s, source: x, check: {kind: class_share, class: matmul, time_share: {min: 0.7}}}\n"
                           "  - {id: stat, statement: s, source: x, check: {kind: class_share, grouping: ivanov, class: statistical_normalization, time_share: {min: 0.3}}}\n"
                           "  - {id: comm, statement: s, source: x, check: {kind: class_share, class: communication, time_share: {max: 0.1}}}\n"
                           "  - {id: roof, statement: s, source: x, check: {kind: class_share, class: normalization, fraction_of_roof: {min: 0.5}}}\n";
  auto v = check(text, trace_doc(true));
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0].verdict, Verdict::holds);
  EXPECT_EQ(v[0].kind, "class_share");
  EXPECT_EQ(v[0].evidence_kind, model::EvidenceKind::measured);
  ASSERT_EQ(v[0].evidence.size(), 4u);  // FLOP, byte and time share and time/FLOP share; no fraction of roof
  EXPECT_EQ(v[0].evidence[0].metric, "classes.normalization.flop_share");
  EXPECT_FALSE(v[0].evidence[0].run);
  EXPECT_EQ(v[0].expected, "normalization (lmroof grouping): FLOP share <= 1.00%, time share >= 10.0%");
  EXPECT_EQ(v[1].verdict, Verdict::fails);
  // the class runs at 20% of its roof: faster kernels could change its share
  ASSERT_TRUE(v[1].cause);
  EXPECT_EQ(*v[1].cause, model::Cause::implementation);
  EXPECT_NE(v[1].cause_detail->find("20"), std::string::npos) << *v[1].cause_detail;
  EXPECT_EQ(v[2].verdict, Verdict::holds);
  EXPECT_EQ(v[2].evidence[0].metric, "ivanov_classes.statistical_normalization.flop_share");
  EXPECT_EQ(v[3].verdict, Verdict::not_measured);
  EXPECT_NE(v[3].reason->find("no class 'communication' in classes (has: matmul, normalization)"), std::string::npos) << *v[3].reason;
  EXPECT_EQ(v[4].verdict, Verdict::not_measured);  // no roof judges normalization here
  EXPECT_NE(v[4].reason->find("no fraction_of_roof for class 'normalization'"), std::string::npos) << *v[4].reason;
  EXPECT_EQ(claims_exit_code(v), 1);
  // words from reports/text, as for a results.json's claims
  const std::string text_out = format_claims_table(v);
  EXPECT_NE(text_out.find("mm"), std::string::npos);
  EXPECT_NE(text_out.find("not measured"), std::string::npos);
}

// A trace.json without the Ivanov table (written before it): that claim is not
// measured and says why; the lmroof grouping's are judged.
TEST(TraceClaimsCheck, AnIvanovClaimWithoutTheTableIsNotMeasured) {
  const auto v = check("claims:\n  - {id: stat, statement: s, source: x, check: {kind: class_share, grouping: ivanov, "
                       "class: statistical_normalization, time_share: {min: 0.3}}}\n",
                       trace_doc(false));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].verdict, Verdict::not_measured);
  EXPECT_NE(v[0].reason->find("no ivanov_classes"), std::string::npos) << *v[0].reason;
}

TEST(TraceClaimsCheck, ATraceWithNoTimeMeasuresNothing) {
  json doc = trace_doc(true);
  doc["total_time_s"] = 0;
  const auto v = check(with_check("{kind: class_share, class: matmul, time_share: {min: 0.5}}"), doc);
  EXPECT_EQ(v[0].verdict, Verdict::not_measured);
  EXPECT_EQ(*v[0].reason, "the trace has no device time to share out");
}

// The class tables are read field by field: a type slip is one line naming the field.
TEST(TraceClaimsCheck, ABadClassTableNamesFileAndField) {
  const std::pair<std::function<void(json&)>, std::string> cases[] = {
      {[](json& d) { d.erase("classes"); }, "trace.json: /: missing 'classes'"},
      {[](json& d) { d.erase("total_time_s"); }, "trace.json: /: missing 'total_time_s'"},
      {[](json& d) { d["classes"][1]["time_share"] = "25%"; }, "trace.json: /classes/1/time_share:"},
      {[](json& d) { d["classes"][0]["flop_share"] = -0.5; }, "trace.json: /classes/0/flop_share:"},
      {[](json& d) { d["ivanov_classes"] = {{"class", "x"}}; }, "trace.json: /ivanov_classes:"},
      {[](json& d) { d["classes"][0]["class"] = "mat\x1bmul"; }, "trace.json: /classes/0/class:"},
  };
  for (const auto& [mutate, expected] : cases) {
    json doc = trace_doc(true);
    mutate(doc);
    try {
      (void)model::read_trace_result(doc, "trace.json");
      ADD_FAILURE() << expected << ": accepted";
    } catch (const model::InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace lmroof
