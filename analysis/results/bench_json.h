#pragma once
// Reads Google Benchmark's JSON output (the format of --benchmark_out_format=json)
// plus lmroof's context entries and the kernel traces beside it. Every field is
// validated once here (bad input: model::InputError "FILE: /benchmarks/3/real_time: ..."):
// times positive and finite, counters finite and non-negative, names bounded.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/input_error.h"
#include "kernels/run_names/op_class.h"

namespace lmroof {

struct BenchEntry {
  std::string name;            // includes Google Benchmark suffixes ("/real_time", "_median")
  std::string run_name;        // the benchmark's name without aggregate suffixes
  std::string run_type;        // "iteration" or "aggregate"
  std::string aggregate_name;  // "mean", "median", "stddev", "cv" for aggregates
  double real_time_s = 0;      // per iteration; > 0 for an iteration entry without error
  double iterations = 0;
  std::string label;
  bool error = false;
  std::string error_message;
  std::map<std::string, double> counters;  // every other numeric key; finite, >= 0
  std::string pointer;                     // "/benchmarks/3", for messages
};

struct KernelRecord {
  std::string name;
  OpClass op_class = OpClass::other;
  std::vector<int64_t> grid, block;
  double duration_ns = 0;
};

// One run's CUPTI activity trace (profiler/kernel_trace_file.h).
struct KernelTraceRecord {
  bool available = false;
  std::optional<std::string> reason;
  int64_t dropped_records = 0;
  std::vector<KernelRecord> kernels;
};

struct BenchDocument {
  std::string origin;  // the file, for messages
  // Google Benchmark's "context" object with lmroof's entries (model::context keys).
  nlohmann::json context = nlohmann::json::object();
  std::vector<BenchEntry> entries;
  // Run id -> its kernel trace, from "<bench>.kernels.json" beside the benchmark JSON;
  // empty when there is none.
  std::map<std::string, KernelTraceRecord> kernel_traces;
};

// Throws model::InputError naming the file and field.
BenchDocument load_bench_json(const std::filesystem::path& path);
BenchDocument parse_bench_json(const nlohmann::json& doc, const std::string& origin);
// The text of a bench.json (Google Benchmark's NaN and Infinity tokens allowed).
BenchDocument parse_bench_text(const std::string& text, const std::string& origin);
// The same text as a JSON value, NaN and Infinity read as null, not yet validated.
nlohmann::json bench_json_value(const std::string& text, const std::string& origin);
// A "<bench>.kernels.json" document (profiler/kernel_trace_file.h), validated.
std::map<std::string, KernelTraceRecord> parse_kernel_traces(const nlohmann::json& doc, const std::string& origin);

}  // namespace lmroof
