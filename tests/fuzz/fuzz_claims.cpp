// libFuzzer target: the claims file reader, and the checker on what it accepts, for
// both targets: a results.json's claims (against tests/data/results_small.json,
// catalogue included) and a trace's (class_share, against a class table of both
// groupings, and one without the Ivanov table). Bad input must end in ClaimsFileError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/claims/claims.h"
#include "analysis/model/trace_result.h"
#include "reports/text/claims_text.h"
#include "analysis/model/json_input.h"
#include "analysis/results/findings.h"

namespace {
const lmroof::model::Results& fixture() {
  static const lmroof::model::Results results = [] {
    const std::string path = std::string(LMROOF_TEST_DATA) + "/results_small.json";
    auto doc = lmroof::model::read_json_file(path);
    doc["catalogue"] = lmroof::model::read_json_file(std::string(LMROOF_TEST_DATA) + "/catalogue.json");
    auto results = lmroof::model::results_from_json(doc, path);
    lmroof::decide(results);
    return results;
  }();
  return results;
}
// A trace.json's class tables as lmroof trace writes them, read by the one reader: some
// classes without a roof (fraction_of_roof null), Ivanov's table present or not.
const lmroof::model::TraceResult& trace_fixture(bool with_ivanov) {
  static const auto make = [](bool ivanov) {
    nlohmann::json doc = {{"device", {{"name", "H100"}}},
                          {"total_time_s", 0.25},
                          {"window", {{"kind", "steps"}, {"step_count", 1}, {"total_s", 0.3}}},
                          {"ops", nlohmann::json::array()},
                          {"classes",
                           {{{"class", "matmul"}, {"time_s", 0.15}, {"flop_share", 0.99}, {"byte_share", 0.4}, {"time_share", 0.6}, {"fraction_of_roof", 0.7}},
                            {{"class", "normalization"}, {"time_s", 0.05}, {"flop_share", 0.002}, {"byte_share", 0.3}, {"time_share", 0.2}, {"fraction_of_roof", nullptr}},
                            {{"class", "other"}, {"time_s", 0.05}, {"flop_share", 0.0}, {"byte_share", 0.0}, {"time_share", 0.2}, {"fraction_of_roof", nullptr}}}}};
    if (ivanov)
      doc["ivanov_classes"] = {{{"class", "tensor_contraction"}, {"time_s", 0.15}, {"flop_share", 0.99}, {"byte_share", 0.4}, {"time_share", 0.6}, {"fraction_of_roof", 0.7}},
                               {{"class", "statistical_normalization"}, {"time_s", 0.075}, {"flop_share", 0.003}, {"byte_share", 0.3}, {"time_share", 0.3}, {"fraction_of_roof", nullptr}}};
    return lmroof::model::read_trace_result(doc, "trace.json");
  };
  static const lmroof::model::TraceResult with = make(true), without = make(false);
  return with_ivanov ? with : without;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto& results = fixture();
  try {
    const auto claims = lmroof::parse_claims(text, "fuzz.yaml", results.catalogue);
    const auto verdicts = lmroof::check_claims(claims, results);
    (void)lmroof::format_claims_table(verdicts);
  } catch (const lmroof::ClaimsFileError&) {
  }
  try {
    const auto claims = lmroof::parse_claims(text, "fuzz.yaml", lmroof::model::Catalogue{}, lmroof::ClaimsTarget::trace);
    for (const bool ivanov : {true, false}) {
      const auto verdicts = lmroof::check_trace_claims(claims, trace_fixture(ivanov));
      (void)lmroof::format_claims_table(verdicts);
      for (const auto& v : verdicts) (void)lmroof::model::to_json(v).dump();  // trace.json's claims[]
    }
  } catch (const lmroof::ClaimsFileError&) {
  }
  return 0;
}
