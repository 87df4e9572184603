#pragma once
// What bench measured (bench/measurement.h), as the analysis reads it: the document
// bench.json is written from, validated by the one bench.json reader
// (analysis/results/bench_json.h) in memory, without a round trip through the file.
// Analysing it gives what `lmroof analyze` of the written bench.json gives.
#include <filesystem>

#include "analysis/results/bench_json.h"
#include "bench/measurement.h"

namespace lmroof::cli {

// `bench_json` names the file the measurement is (or will be) written to, in messages.
BenchDocument measured_rounds(const bench::Measurement& measurement, const std::filesystem::path& bench_json);

}  // namespace lmroof::cli
