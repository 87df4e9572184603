#include "analysis/bench_json.h"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "profiler/kernel_trace_file.h"

namespace lmroof {

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open file", path.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Turn the byte offset into line:column so a person can find the problem.
    size_t line = 1, column = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') ++line, column = 1;
      else ++column;
    }
    std::string what = e.what();
    if (auto pos = what.find("syntax error"); pos != std::string::npos) what = what.substr(pos);
    throw std::runtime_error(fmt::format("{}:{}:{}: malformed JSON: {}", path.string(), line, column, what));
  }
}

namespace {
double to_seconds(double value, const std::string& unit) {
  if (unit == "ns") return value * 1e-9;
  if (unit == "us") return value * 1e-6;
  if (unit == "ms") return value * 1e-3;
  if (unit == "s") return value;
  throw std::runtime_error(fmt::format("unknown time_unit '{}'", unit));
}
}  // namespace

BenchDocument parse_bench_json(const nlohmann::json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array())
    throw std::runtime_error(fmt::format("{}: not Google Benchmark JSON (no 'benchmarks' array)", origin));
  static const std::set<std::string> kNonCounters = {
      "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
      "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "aggregate_name",
      "aggregate_unit", "label", "error_occurred", "error_message"};
  BenchDocument out;
  out.context = doc.value("context", nlohmann::json::object());
  for (const auto& b : doc["benchmarks"]) {
    try {
      BenchEntry e;
      e.name = b.at("name").get<std::string>();
      e.run_name = b.value("run_name", e.name);
      e.run_type = b.value("run_type", "iteration");
      e.aggregate_name = b.value("aggregate_name", "");
      e.error = b.value("error_occurred", false);
      e.error_message = b.value("error_message", "");
      e.label = b.value("label", "");
      if (!e.error) {
        e.iterations = b.value("iterations", 0.0);
        // The cv aggregate is a ratio, not a time; keep it as it is.
        const std::string unit = b.value("time_unit", "ns");
        e.real_time_s = e.aggregate_name == "cv" ? b.at("real_time").get<double>()
                                                  : to_seconds(b.at("real_time").get<double>(), unit);
        for (const auto& [key, value] : b.items())
          if (!kNonCounters.count(key) && value.is_number()) e.counters[key] = value.get<double>();
      }
      out.entries.push_back(std::move(e));
    } catch (const nlohmann::json::exception& ex) {
      throw std::runtime_error(fmt::format("{}: malformed benchmark entry: {}", origin, ex.what()));
    }
  }
  return out;
}

BenchDocument load_bench_json(const std::filesystem::path& path) {
  BenchDocument doc = parse_bench_json(read_json_file(path), path.string());
  const std::filesystem::path traces = profiler::kernel_traces_path(path);
  if (std::filesystem::exists(traces)) {
    const nlohmann::json t = read_json_file(traces);
    if (!t.is_object() || t.value("schema", "") != profiler::kKernelTracesSchema || !t.contains("runs") ||
        !t["runs"].is_object())
      throw std::runtime_error(fmt::format("{}: not a {} document", traces.string(), profiler::kKernelTracesSchema));
    doc.kernel_traces = t["runs"];
  }
  return doc;
}

}  // namespace lmroof
