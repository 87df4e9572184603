#include "cli/machine_ceilings.h"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "analysis/results/bench_json.h"
#include "analysis/io/atomic_write.h"
#include "analysis/io/interrupt_cleanup.h"
#include "analysis/results/results.h"
#include "bench/memory_budget.h"
#include "bench/runner.h"
#include "profiler/device_query.h"

namespace lmroof::cli {

model::Results measure_ceilings(const std::string& backend_name, bool quick, const std::filesystem::path& json_out) {
  bench::RunnerOptions options;
  options.include_pairs = false;
  options.suite.quick = quick;
  const DeviceInfo device = query_cuda_device();
  if (backend_name == "cuda" && !device.available) throw std::runtime_error("--backend cuda: " + device.reason);
  options.suite.backend = backend_name == "cuda" || (backend_name == "auto" && device.available) ? Backend::cuda : Backend::cpu;
  // Everything the process will hold, checked and said before anything is measured.
  const double peak = bench::planned_peak_bytes({}, options.suite.backend);
  bench::check_peak_fits(peak, "lmroof ceilings");
  std::fprintf(stderr, "%s\n", bench::peak_line(peak, "lmroof ceilings").c_str());
  std::fprintf(stderr, "lmroof: measuring %s ceilings\n", to_string(options.suite.backend));
  // Google Benchmark writes as it goes: into a private file, renamed into place when complete.
  options.json_out = unique_temp_path(json_out.empty() ? std::filesystem::temp_directory_path() / "lmroof-ceilings.json" : json_out,
                                      "partial");
  const RemoveOnInterrupt remove_if_interrupted(options.json_out);
  struct RemoveUnlessKept {
    std::filesystem::path path;
    ~RemoveUnlessKept() { std::error_code ec; std::filesystem::remove(path, ec); }
  } remove_partial{options.json_out};
  try {
    bench::run_benchmarks(options);
  } catch (const bench::BenchJsonNotWritten& e) {  // a full disk: named by the file asked for, not its temporary file
    std::string why = e.what();
    if (!json_out.empty())
      if (const auto at = why.find(options.json_out.string()); at != std::string::npos)
        why.replace(at, options.json_out.string().size(), json_out.string());
    throw std::runtime_error(why);
  }
  const model::Results results = build_results(load_bench_json(options.json_out), {});
  if (!json_out.empty()) rename_into_place(options.json_out, json_out);
  return results;
}

}  // namespace lmroof::cli
