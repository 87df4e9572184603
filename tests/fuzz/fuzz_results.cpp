// libFuzzer target: the results.json reader. Any input either becomes a validated
// model (which must survive a round trip through to_json) or is refused with
// model::InputError; anything else (a crash, another exception, a sanitizer report)
// is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/model/json_input.h"
#include "analysis/model/results_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto doc = lmroof::model::parse_json(text, "fuzz.json");
    const auto results = lmroof::model::results_from_json(doc, "fuzz.json");
    const auto again = lmroof::model::results_from_json(lmroof::model::to_json(results), "again.json");
    if (lmroof::model::to_json(again) != lmroof::model::to_json(results)) __builtin_trap();
    for (const auto& run : results.runs)
      for (const auto& name : lmroof::model::run_metric_names()) (void)lmroof::model::run_metric(run, name);
  } catch (const lmroof::model::InputError&) {
  }
  return 0;
}
