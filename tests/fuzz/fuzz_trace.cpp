// libFuzzer target: the Kineto trace reader (analysis/trace/trace_reader.cpp) and the
// analysis after it. Any input either becomes a trace.json document whose every number
// is finite (issue 47, defect 5: NaN would be written as null) or is refused with
// model::InputError; anything else (a crash, another exception, a sanitizer report, a
// hang past -timeout) is a finding. The input is written to a file, as the reader
// takes a path: gzip is told by its magic bytes, so gzipped inputs are fuzzed too.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "analysis/model/input_error.h"
#include "analysis/trace/trace_analysis.h"
#include "analysis/trace/trace_output.h"
#include "analysis/trace/trace_reader.h"

namespace {

bool all_finite(const nlohmann::json& v) {
  if (v.is_number_float()) return std::isfinite(v.get<double>());
  if (v.is_structured())
    for (const auto& item : v)
      if (!all_finite(item)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/lmroof-fuzz-trace-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  namespace lt = lmroof::trace;
  try {
    lt::ReadOptions options;
    options.memory_limit_bytes = 512e6;  // the bound `lmroof trace` sets from the memory available
    const lt::TraceFile trace = lt::read_trace(path, options);
    const lt::TraceAnalysis analysis = lt::analyze(trace, lt::resolve_roofs(trace, {}, "", std::nullopt), {});
    const nlohmann::json doc = lmroof::model::to_json(lt::to_trace_result(analysis, {analysis}));
    if (!all_finite(doc)) __builtin_trap();
    (void)doc.dump();  // throws on a string that is not UTF-8: the reader must have refused it
    // The one reader takes back what the one writer wrote, field for field.
    if (lmroof::model::to_json(lmroof::model::read_trace_result(doc, "trace.json")) != doc) __builtin_trap();
    (void)lt::to_csv(analysis);
  } catch (const lmroof::model::InputError&) {
  }
  return 0;
}
