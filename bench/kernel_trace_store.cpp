#include "bench/kernel_trace_store.h"

#include <fstream>
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

bool write_kernel_traces(const std::filesystem::path& bench_json) {
  std::lock_guard<std::mutex> lock(store_mutex);
  if (store().empty()) return false;
  const nlohmann::json doc = {{"schema", formats::kKernelTracesSchema}, {"runs", store()}};
  const std::filesystem::path path = formats::kernel_traces_path(bench_json);
  const std::filesystem::path tmp = path.string() + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << doc.dump(1) << "\n";
    if (!out.flush()) throw std::runtime_error(path.string() + ": cannot write the kernel traces");
  }
  std::filesystem::rename(tmp, path);  // only a complete file takes the real name
  return true;
}

}  // namespace lmroof::bench
