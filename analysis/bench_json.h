#pragma once
// Reads Google Benchmark's JSON output (the format of --benchmark_out_format=json)
// into plain entries, times converted to seconds.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lmroof {

struct BenchEntry {
  std::string name;       // includes Google Benchmark suffixes ("/real_time", "_median")
  std::string run_name;   // the benchmark's name without aggregate suffixes
  std::string run_type;   // "iteration" or "aggregate"
  std::string aggregate_name;  // "mean", "median", "stddev", "cv" for aggregates
  double real_time_s = 0;      // per iteration
  double iterations = 0;
  std::string label;
  bool error = false;
  std::string error_message;
  std::map<std::string, double> counters;  // every other numeric key
};

struct BenchDocument {
  nlohmann::json context;
  std::vector<BenchEntry> entries;
  // Run id -> that run's kernel trace, from the "<bench>.kernels.json" file beside the
  // benchmark JSON (profiler/kernel_trace_file.h); empty when there is none.
  nlohmann::json kernel_traces = nlohmann::json::object();
};

// Throws std::runtime_error("<path>: ...") when the file is missing or not
// Google Benchmark JSON, or when a kernel-trace file beside it is malformed.
BenchDocument load_bench_json(const std::filesystem::path& path);
BenchDocument parse_bench_json(const nlohmann::json& doc, const std::string& origin);

// Reads and parses a JSON file; the error names the file, line and column.
nlohmann::json read_json_file(const std::filesystem::path& path);

}  // namespace lmroof
