#include "analysis/machine_info.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "lmroof/build_info.h"
#include "profiler/device_query.h"

namespace lmroof {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown CPU";
}

nlohmann::json describe_machine(Backend backend, const nlohmann::json& ctx) {
  nlohmann::json m;
  m["backend"] = to_string(backend);
  m["cpu_model"] = cpu_model_name();
  m["cores"] = ctx.value("num_cpus", static_cast<int>(std::thread::hardware_concurrency()));
  m["threads"] = omp_get_max_threads();
  if (ctx.contains("mhz_per_cpu")) m["cpu_mhz"] = ctx["mhz_per_cpu"];
  m["gpu"] = nullptr;
  if (backend == Backend::cuda) {
    const DeviceInfo d = query_cuda_device();
    if (d.available)
      m["gpu"] = {{"name", d.name},
                  {"compute_capability", fmt::format("{}.{}", d.sm_major, d.sm_minor)},
                  {"sm_count", d.sm_count},
                  {"memory_bytes", d.memory_bytes},
                  {"l2_bytes", d.l2_bytes},
                  {"driver", d.driver_version}};
  }
  m["compiler"] = build_info::compiler;
  m["build_type"] = build_info::build_type;
  m["build_flags"] = build_info::build_flags;
  m["cuda_compiler"] = build_info::cuda_enabled ? nlohmann::json(build_info::cuda_compiler) : nlohmann::json(nullptr);
  m["lmroof_version"] = build_info::version;
  m["git_commit"] = build_info::git_commit;
  if (ctx.contains("date")) {
    m["bench_date"] = ctx["date"];
  }
  m["date"] = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  m["hostname"] = ctx.value("host_name", std::string(host));
  return m;
}

}  // namespace lmroof
