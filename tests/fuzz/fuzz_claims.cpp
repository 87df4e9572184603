// libFuzzer target: the claims file reader, and the checker on what it accepts
// (against tests/data/results_small.json, catalogue included). Bad input must end in
// ClaimsFileError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/claims/claims.h"
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
  return 0;
}
