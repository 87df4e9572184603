#include "bench/kernel_trace_store.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "analysis/formats/file_names.h"
#include "profiler/kernel_trace_file.h"

namespace lmroof::bench {

namespace {
std::mutex store_mutex;
std::map<std::string, nlohmann::json>& store() {
  static std::map<std::string, nlohmann::json> runs;
  return runs;
}
}  // namespace

void record_kernel_trace(const std::string& run_id, const profiler::KernelTrace& trace) {
  std::lock_guard<std::mutex> lock(store_mutex);
  store()[run_id] = profiler::kernel_trace_json(trace);
}

void clear_kernel_traces() {
  std::lock_guard<std::mutex> lock(store_mutex);
  store().clear();
}

nlohmann::json take_kernel_traces() {
  std::lock_guard<std::mutex> lock(store_mutex);
  if (store().empty()) return nullptr;
  nlohmann::json doc = {{"schema", formats::kKernelTracesSchema}, {"runs", std::move(store())}};
  store().clear();
  return doc;
}

}  // namespace lmroof::bench
