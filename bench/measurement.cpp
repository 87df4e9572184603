#include "bench/measurement.h"

#include <fmt/format.h>

#include "analysis/formats/file_names.h"
#include "analysis/io/atomic_write.h"
#include "analysis/model/json_input.h"
#include "analysis/model/schema.h"
#include "bench/contention.h"

namespace lmroof::bench {

bool Measurement::empty() const {
  const auto it = document.find("benchmarks");
  return it == document.end() || it->empty();
}

void Measurement::join(Measurement&& more) {
  // The other processes over both sessions (bench/contention.h): the later session's
  // window adds to this one's.
  const std::string key(model::context::kContention);
  if (auto it = more.document.find("context"); it != more.document.end() && it->is_object() && it->contains(key)) {
    auto parsed = [](const nlohmann::ordered_json& v) {
      nlohmann::json j = v.is_string() ? nlohmann::json::parse(v.get<std::string>(), nullptr, false) : nlohmann::json();
      return j.is_object() ? j : nlohmann::json();
    };
    nlohmann::ordered_json& context = document["context"];
    const nlohmann::json mine = context.is_object() && context.contains(key) ? parsed(context[key]) : nlohmann::json();
    const nlohmann::json both = combine_summaries(mine, parsed((*it)[key]));
    if (both.is_object()) context[key] = both.dump();
  }
  if (auto it = more.document.find("benchmarks"); it != more.document.end() && it->is_array()) {
    nlohmann::ordered_json& entries = document["benchmarks"];
    if (!entries.is_array()) entries = nlohmann::ordered_json::array();
    for (auto& entry : *it) entries.push_back(std::move(entry));
  }
  if (more.kernel_traces.is_object()) {
    if (!kernel_traces.is_object()) {
      kernel_traces = std::move(more.kernel_traces);
    } else {
      for (auto& [id, trace] : more.kernel_traces["runs"].items()) kernel_traces["runs"][id] = std::move(trace);
    }
  }
}

Measurement measurement_from_text(const std::string& text) {
  Measurement m;
  try {
    m.document = nlohmann::ordered_json::parse(model::nan_tokens_to_null(text));
  } catch (const nlohmann::json::exception& e) {  // Google Benchmark's reporter wrote something JSON cannot read
    throw std::runtime_error(fmt::format("the benchmarks' JSON could not be read back: {}", e.what()));
  }
  if (!m.document.is_object() || !m.document.contains("benchmarks"))
    throw std::runtime_error("the benchmarks' JSON holds no benchmarks array");
  return m;
}

std::string bench_json_text(const Measurement& measurement) {
  // Google Benchmark's own layout (two spaces); a byte that is not UTF-8 (none is
  // expected: names and messages are lmroof's) is replaced rather than lose the file.
  return measurement.document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void write_bench_json(const Measurement& measurement, const std::filesystem::path& path) {
  const std::string text = bench_json_text(measurement);
  try {
    write_file_atomically(path, text);
  } catch (const std::exception& e) {
    throw BenchJsonNotWritten(e.what(), text);
  }
  write_kernel_traces(measurement.kernel_traces, path);
}

void write_kernel_traces(const nlohmann::json& traces, const std::filesystem::path& bench_json) {
  // Only a complete file takes the real name (CUDA runs only).
  if (traces.is_object()) write_file_atomically(formats::kernel_traces_path(bench_json), traces.dump(1) + "\n");
}

}  // namespace lmroof::bench
