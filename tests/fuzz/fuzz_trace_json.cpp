// libFuzzer target: a trace.json as `check` and `compare` read it back
// (analysis/trace/trace_document.cpp): a document either passes
// require_trace_document, and then compare and the trace claims' reader take it without a
// throw, or is refused with model::InputError naming the field (issue 47, defect 7).
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/claims/trace_shares.h"
#include "analysis/model/input_error.h"
#include "analysis/model/json_input.h"
#include "analysis/trace/trace_compare.h"
#include "analysis/trace/trace_document.h"
#include "reports/text/trace_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  namespace lt = lmroof::trace;
  try {
    const nlohmann::json doc = lmroof::model::parse_json(text, "fuzz.json");
    lt::require_trace_document(doc, "fuzz.json");
    const nlohmann::json report = lt::compare_traces(doc, doc, "a", "b");
    (void)lt::compare_text(report, false);
    (void)lt::compare_text(report, true);
    (void)lmroof::read_trace_shares(doc, "fuzz.json");  // what the claims checker reads of it
  } catch (const lmroof::model::InputError&) {
  }
  return 0;
}
