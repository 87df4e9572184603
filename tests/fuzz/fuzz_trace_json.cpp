// libFuzzer target: a trace.json as `check` and `compare` read it back
// (analysis/model/trace_result.cpp): a document is either read whole by
// model::read_trace_result, and then compare and its text take it without a throw, or is
// refused with model::InputError naming the field (issue 47, defect 7).
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/model/input_error.h"
#include "analysis/model/json_input.h"
#include "analysis/trace/trace_compare.h"
#include "analysis/model/trace_result.h"
#include "reports/text/trace_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  namespace lt = lmroof::trace;
  try {
    const nlohmann::json doc = lmroof::model::parse_json(text, "fuzz.json");
    const lmroof::model::TraceResult trace = lmroof::model::read_trace_result(doc, "fuzz.json");
    const nlohmann::json report = lt::compare_traces(trace, trace);
    (void)lt::compare_text(report, false);
    (void)lt::compare_text(report, true);
  } catch (const lmroof::model::InputError&) {
  }
  return 0;
}
