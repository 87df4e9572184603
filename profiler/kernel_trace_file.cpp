#include "profiler/kernel_trace_file.h"

namespace lmroof::profiler {

nlohmann::json kernel_trace_json(const KernelTrace& trace) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : trace.kernels)
    kernels.push_back({{"name", k.name},
                       {"class", to_string(k.op_class)},
                       {"grid", k.grid},
                       {"block", k.block},
                       {"duration_ns", k.duration_ns}});
  return {{"available", trace.available},
          {"reason", trace.available ? nlohmann::json(nullptr) : nlohmann::json(trace.reason)},
          {"dropped_records", trace.dropped_records},
          {"note", trace.note},
          {"kernels", kernels}};
}

}  // namespace lmroof::profiler
