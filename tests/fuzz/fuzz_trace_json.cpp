// libFuzzer target: a trace.json as `check` and `compare` read it back
// (analysis/trace/trace_document.cpp): a document either passes
// require_trace_document, and then compare and the trace claims read it without a
// throw, or is refused with model::InputError naming the field (issue 47, defect 7).
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>

#include "analysis/model/input_error.h"
#include "analysis/model/json_input.h"
#include "analysis/trace/trace_claims.h"
#include "analysis/trace/trace_compare.h"
#include "analysis/trace/trace_document.h"
#include "reports/text/trace_text.h"

namespace {

// A claim on each metric a claim may name, read by the claims loader as check reads one.
const std::vector<lmroof::trace::Claim>& claims() {
  static const std::vector<lmroof::trace::Claim> loaded = [] {
    const std::string path = "/tmp/lmroof-fuzz-trace-claims-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "claims:\n"
                           "  - id: shares\n"
                           "    check: {kind: class_share, class: matmul, flop_share: {min: 0.1}, byte_share: {max: 0.9},\n"
                           "            time_share: {min: 0, max: 1}, fraction_of_roof: {min: 0.5}}\n";
    auto claims = lmroof::trace::load_trace_claims(path);
    std::remove(path.c_str());
    return claims;
  }();
  return loaded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  namespace lt = lmroof::trace;
  try {
    const nlohmann::json doc = lmroof::model::parse_json(text, "fuzz.json");
    lt::require_trace_document(doc, "fuzz.json");
    const nlohmann::json report = lt::compare_traces(doc, doc, "a", "b");
    (void)lt::compare_text(report, false);
    (void)lt::compare_text(report, true);
    (void)lt::verdicts_json(lt::check_trace_claims(claims(), doc));
  } catch (const lmroof::model::InputError&) {
  }
  return 0;
}
