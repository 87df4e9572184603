#include "bench/kernel_trace_store.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "analysis/formats/file_names.h"
#include "analysis/io/atomic_write.h"
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

bool write_kernel_traces(const std::filesystem::path& bench_json) {
  std::lock_guard<std::mutex> lock(store_mutex);
  if (store().empty()) return false;
  const nlohmann::json doc = {{"schema", formats::kKernelTracesSchema}, {"runs", store()}};
  const std::filesystem::path path = formats::kernel_traces_path(bench_json);
  write_file_atomically(path, doc.dump(1) + "\n");  // only a complete file takes the real name
  return true;
}

}  // namespace lmroof::bench
