#pragma once
// Builds results.json (docs/results-schema.md) from Google Benchmark JSON: the
// cost model supplies FLOPs and bytes, the ceiling benchmarks supply the roofs.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/bench_json.h"

namespace lmroof {

inline constexpr const char* kResultsSchema = "lmroof.results/1";

struct AnalysisOptions {
  std::string bench_json_name = "bench.json";
  nlohmann::json suite = nlohmann::json::object();  // {"pairs": [...], "quick": bool}
  // {"source": "analytic" | "cupti", "reason": ...}; filled with the analytic
  // default and its reason when left null.
  nlohmann::json metrics = nullptr;
};

// Throws std::runtime_error when the document has neither ceilings nor runs.
nlohmann::json build_results(const BenchDocument& bench, const AnalysisOptions& options);

// Loads a results file and checks it is a lmroof.results/1 document; errors name the file.
nlohmann::json load_results(const std::filesystem::path& path);

void write_results(const nlohmann::json& results, const std::filesystem::path& path);

}  // namespace lmroof
