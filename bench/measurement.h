#pragma once
// What a benchmark session measured, held in memory as Google Benchmark's JSON
// document: its context (the machine facts and lmroof's entries) and every benchmark
// entry, in the order measured. More rounds join it as entries (Measurement::join):
// the ceilings measured again after the suite, and `lmroof run`'s re-measurement
// rounds. bench.json is this document written once, whole (write_bench_json), and stays
// the only contract between measuring and analysing: analysing the written file gives
// what analysing this document gives (analysis/results/bench_json.h reads both).
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace lmroof::bench {

struct Measurement {
  // {"context": {...}, "benchmarks": [...]}, keys in the order Google Benchmark wrote
  // them. A value it wrote as NaN or Infinity is null (model::nan_tokens_to_null), as
  // every reader of bench.json takes it.
  nlohmann::ordered_json document = nlohmann::ordered_json::object();
  // bench.kernels.json (profiler/kernel_trace_file.h): the CUDA runs' kernel traces by
  // run id; null when none was taken.
  nlohmann::json kernel_traces;

  // Whether no benchmark entry was measured.
  bool empty() const;
  // Appends the benchmark entries (and kernel traces) of `more`, a later session of the
  // same process, after these. Its context, which repeats this one's, is dropped.
  void join(Measurement&& more);
};

// Google Benchmark's JSON text of one session (its JSON reporter's output).
Measurement measurement_from_text(const std::string& text);

// bench.json's text.
std::string bench_json_text(const Measurement& measurement);

// The session ran but bench.json could not be written (a full disk): what() says why,
// in one line ("cannot write PATH: No space left on device"); `json` holds the
// measurements, complete, for the caller to keep elsewhere.
class BenchJsonNotWritten : public std::runtime_error {
 public:
  BenchJsonNotWritten(const std::string& why, std::string json) : std::runtime_error(why), json(std::move(json)) {}
  std::string json;
};

// Writes `path` (bench.json) and, when traces were taken, the kernel traces beside it
// (formats::kernel_traces_path), each atomically: a complete file or none. Throws
// BenchJsonNotWritten when bench.json cannot be written.
void write_bench_json(const Measurement& measurement, const std::filesystem::path& path);

// Writes `traces` (Measurement::kernel_traces, bench/kernel_trace_store.h) beside
// `bench_json`, atomically; nothing when it is null.
void write_kernel_traces(const nlohmann::json& traces, const std::filesystem::path& bench_json);

}  // namespace lmroof::bench
