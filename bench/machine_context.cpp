#include "bench/machine_context.h"

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <fmt/format.h>
#include <omp.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/model/results_model.h"
#include "analysis/model/schema.h"
#include "bench/catalogue.h"
#include "kernels/model_config/model_config.h"
#include "lmroof/build_info.h"
#include "lmroof/git_commit.h"
#include "common/host_buffer.h"
#include "profiler/device_query.h"

namespace lmroof::bench {

namespace {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos && colon + 1 < line.size()) {
        const auto start = line.find_first_not_of(" \t", colon + 1);
        if (start != std::string::npos) return line.substr(start);
      }
    }
  return "unknown CPU";
}

std::mutex& context_mutex() {
  static std::mutex m;
  return m;
}
std::set<std::string>& recorded_keys() {
  static std::set<std::string> keys;
  return keys;
}

// A C string from the environment or a library, trimmed and bounded for a context
// value (results.json limits its text).
std::string bounded(const char* text, size_t max = 200) {
  std::string s = text ? text : "";
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s.size() > max ? s.substr(0, max) + "..." : s;
}

}  // namespace

std::string blas_kernels() {
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  const bool by_env = forced != nullptr && *forced != '\0';
  return fmt::format("{}: {} kernels ({})", bounded(openblas_get_config()), bounded(openblas_get_corename()),
                     by_env ? "OPENBLAS_CORETYPE=" + bounded(forced, 40) : std::string("chosen by OpenBLAS"));
}

void record_context(std::string_view key, const std::string& value) {
  std::lock_guard lock(context_mutex());
  if (!recorded_keys().emplace(key).second) return;
  benchmark::AddCustomContext(std::string(key), value);
}

void record_machine_context(const SuiteOptions& suite) {
  namespace ctx = model::context;
  record_context(ctx::kCpuModel, cpu_model_name());
  record_context(ctx::kThreads, std::to_string(omp_get_max_threads()));
  record_context(ctx::kHostPages, host_page_policy());
  record_context(ctx::kBlas, blas_kernels());
  // The pairs as this build's registry describes them: the analysis reads them from
  // here, so re-analysing the file in another build gives the same catalogue.
  record_context(ctx::kCatalogue, model::to_json(registry_catalogue()).dump());
  nlohmann::json gpu = nullptr;
  if (suite.backend == Backend::cuda) {
    const DeviceInfo d = query_cuda_device();
    if (d.available)
      gpu = {{"name", d.name},
             {"compute_capability", fmt::format("{}.{}", d.sm_major, d.sm_minor)},
             {"sm_count", d.sm_count},
             {"memory_bytes", d.memory_bytes},
             {"l2_bytes", d.l2_bytes},
             {"driver", d.driver_version}};
  }
  record_context(ctx::kGpu, gpu.dump());
  const nlohmann::json build = {
      {"compiler", build_info::compiler},
      {"build_type", build_info::build_type},
      {"build_flags", build_info::build_flags},
      {"cuda_compiler", build_info::cuda_enabled ? nlohmann::json(build_info::cuda_compiler) : nlohmann::json(nullptr)},
      {"lmroof_version", build_info::version},
      {"git_commit", build_info::git_commit}};
  record_context(ctx::kBuild, build.dump());
  nlohmann::json suite_json = {{"pairs", suite.pairs.empty() ? nlohmann::json(nullptr) : nlohmann::json(suite.pairs)},
                                {"quick", suite.quick}};
  // With --model, the config the shapes were derived from (results.json's suite.model).
  if (suite.shapes.model) suite_json["model"] = model_summary_json(*suite.shapes.model);
  record_context(ctx::kSuite, suite_json.dump());
  // The claims' own comparisons, timed in paired rounds (SuiteOptions::claimed_comparisons):
  // the analysis makes each a comparison of the two runs. Absent when there are none.
  if (!suite.claimed_comparisons.empty())
    record_context(ctx::kClaimedComparisons, model::to_json(suite.claimed_comparisons).dump());
}

}  // namespace lmroof::bench
