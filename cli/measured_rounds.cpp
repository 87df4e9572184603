#include "cli/measured_rounds.h"

#include "analysis/formats/file_names.h"

namespace lmroof::cli {

BenchDocument measured_rounds(const bench::Measurement& measurement, const std::filesystem::path& bench_json) {
  BenchDocument rounds = parse_bench_json(nlohmann::json(measurement.document), bench_json.string());
  if (measurement.kernel_traces.is_object())
    rounds.kernel_traces =
        parse_kernel_traces(measurement.kernel_traces, formats::kernel_traces_path(bench_json).string());
  return rounds;
}

}  // namespace lmroof::cli
