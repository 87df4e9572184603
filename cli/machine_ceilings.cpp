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
#include "cli/measured_rounds.h"
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
  const bench::RunnerSummary measured = bench::run_benchmarks(options);
  // Analysed in memory first: a measurement analysis refuses writes no file.
  const std::filesystem::path shown = json_out.empty() ? std::filesystem::path("lmroof-ceilings.json") : json_out;
  const model::Results results = build_results(measured_rounds(measured.measurement, shown), {});
  if (json_out.empty()) return results;
  // Written whole into a private file, renamed into place when complete.
  const std::filesystem::path partial = unique_temp_path(json_out, "partial");
  const RemoveOnInterrupt remove_if_interrupted(partial);
  struct RemoveUnlessKept {
    std::filesystem::path path;
    ~RemoveUnlessKept() { std::error_code ec; std::filesystem::remove(path, ec); }
  } remove_partial{partial};
  try {
    bench::write_bench_json(measured.measurement, partial);
  } catch (const bench::BenchJsonNotWritten& e) {  // a full disk: named by the file asked for, not its temporary file
    std::string why = e.what();
    if (const auto at = why.find(partial.string()); at != std::string::npos) why.replace(at, partial.string().size(), json_out.string());
    throw std::runtime_error(why);
  }
  rename_into_place(partial, json_out);
  return results;
}

}  // namespace lmroof::cli
