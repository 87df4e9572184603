// trace.json's schema versions: lmroof.trace/2 holds input_dims and input_types as
// arrays; a /1 file (JSON text in strings) is migrated, and a bad /1 field is one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/model/input_error.h"
#include "analysis/model/trace_result.h"
#include "analysis/trace/trace_schema.h"

namespace {

using nlohmann::json;
using lmroof::trace::migrate_trace_v1;
using lmroof::trace::shapes_json;

json a_v1_document() {
  return json::parse(R"({"schema":"lmroof.trace/1","device":{"name":"H100"},"total_time_s":2,
    "window":{"kind":"steps","step_count":2,"total_s":3},
    "classes":[{"class":"matmul","time_s":1,"flop_share":1,"byte_share":0.5,"time_share":0.5,"fraction_of_roof":null}],
    "ops":[{"name":"aten::mm","input_dims":"[[2, 2], [2, 3]]","input_types":"[\"float\", \"float\"]","class":"matmul",
            "time_s":1,"roof_time_s":0.5},
           {"name":"aten::add","input_dims":"[[4], [], []]","input_types":"[\"float\", \"Scalar\", \"Scalar\"]",
            "class":"elementwise","time_s":1,"roof_time_s":null},
           {"name":"nccl:all_reduce","input_dims":"","input_types":"","class":"communication","time_s":0,"roof_time_s":null}],
    "what_if":[{"device":"B200","step_count":2,"busy_s":{"predicted":0.5,"low":0.4,"high":0.7},
                "naive":{"same_time_busy_s":1,"datasheet_busy_s":0.6},"step_time_s":{"predicted":1.2,"low":1.1,"high":1.4},
                "classes":[{"class":"matmul","predicted_s":0.5}],
                "ops":[{"name":"aten::mm","input_dims":"[[2, 2], [2, 3]]","input_types":"[\"float\", \"float\"]","predicted_s":0.5}]}]})");
}

std::string refusal(const json& doc) {
  try {
    (void)migrate_trace_v1(doc, "old/trace.json");
  } catch (const lmroof::model::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceSchema, AVersionOneFileBecomesVersionTwoWithItsShapesAsArrays) {
  const json v2 = migrate_trace_v1(a_v1_document(), "old/trace.json");
  EXPECT_EQ(v2["schema"], "lmroof.trace/2");
  EXPECT_EQ(v2["ops"][0]["input_dims"], json::parse("[[2,2],[2,3]]"));
  EXPECT_EQ(v2["ops"][0]["input_types"], json::parse(R"(["float","float"])"));
  EXPECT_EQ(v2["ops"][1]["input_dims"], json::parse("[[4],[],[]]")) << "a non-tensor argument stays [] as the trace has it";
  EXPECT_TRUE(v2["ops"][2]["input_dims"].is_null()) << "no Input Dims: null, not []";
  EXPECT_EQ(v2["what_if"][0]["ops"][0]["input_dims"], json::parse("[[2,2],[2,3]]"));
  EXPECT_NO_THROW((void)lmroof::model::read_trace_result(v2, "new/trace.json"));
  // Everything else as it was.
  json rest = v2, was = a_v1_document();
  for (auto* d : {&rest, &was}) {
    d->erase("schema"), d->erase("ops"), d->erase("what_if");
  }
  EXPECT_EQ(rest, was);
}

TEST(TraceSchema, AVersionOneShapeThatIsNotJsonTextOfAnArrayIsOneLineNamingIt) {
  json doc = a_v1_document();
  doc["ops"][1]["input_dims"] = "[[4], [";
  EXPECT_EQ(refusal(doc).rfind("old/trace.json: ops[1].input_dims: is not the JSON text of an array", 0), 0u) << refusal(doc);
  doc = a_v1_document();
  doc["what_if"][0]["ops"][0]["input_types"] = "\"float\"";
  EXPECT_EQ(refusal(doc).rfind("old/trace.json: what_if[0].ops[0].input_types: is not the JSON text of an array", 0), 0u)
      << refusal(doc);
  doc = a_v1_document();
  doc["ops"][0]["input_dims"] = json::parse("[[2,2]]");
  EXPECT_EQ(refusal(doc).rfind("old/trace.json: ops[0].input_dims: is already an array", 0), 0u) << refusal(doc);
}

TEST(TraceSchema, TheKeptShapesAreWrittenAsTheArraysTheTraceHas) {
  EXPECT_EQ(shapes_json("[[1, 2], []]"), json::parse("[[1,2],[]]"));
  EXPECT_TRUE(shapes_json("").is_null());
  EXPECT_THROW((void)shapes_json("{\"a\":1}"), std::logic_error);
}

}  // namespace

namespace {

// trace.json's fields are declared once (analysis/model/trace_result.h); the JSON Schema
// a user validates against (docs/trace.schema.json) names every one of them.
TEST(TraceSchema, EveryDeclaredFieldIsInTheJsonSchema) {
  std::ifstream in(std::filesystem::path(LMROOF_SOURCE_DIR) / "docs/trace.schema.json");
  const std::string schema((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(schema.empty());
  namespace m = lmroof::model;
  auto named = [&]<typename T>(const char* object) {
    for (const std::string& name : m::field_names<T>())
      EXPECT_NE(schema.find("\"" + name + "\""), std::string::npos) << object << "." << name << " is not in docs/trace.schema.json";
  };
  named.template operator()<m::TraceResult>("trace.json");
  named.template operator()<m::TraceDevice>("device");
  named.template operator()<m::TraceWindow>("window");
  named.template operator()<m::TraceStep>("window.steps[]");
  named.template operator()<m::TraceCommunication>("communication");
  named.template operator()<m::TraceOpRow>("ops[]");
  named.template operator()<m::TraceClassRow>("classes[]");
  named.template operator()<m::TraceModuleRow>("modules[]");
  named.template operator()<m::TraceOther>("other");
  named.template operator()<m::TraceFix>("fix_first[]");
  named.template operator()<m::TraceFusionCheck>("fix_first_check");
  named.template operator()<m::TraceFusionCheckRow>("fix_first_check.rows[]");
  named.template operator()<m::TraceUnattributed>("unattributed");
  named.template operator()<m::TraceLaunchBound>("launch_bound");
  named.template operator()<m::TraceRankRow>("ranks[]");
  named.template operator()<m::TraceReaderCost>("reader");
  named.template operator()<m::TraceWhatIf>("what_if[]");
  named.template operator()<m::TraceWhatIf::Op>("what_if[].ops[]");
  named.template operator()<m::TraceWhatIf::Class>("what_if[].classes[]");
}

}  // namespace
