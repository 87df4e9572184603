#pragma once
// Builds results.json (docs/results-schema.md, model::Results) from a bench.json:
// a pure function of that file. Costs come from the counters the benchmarks wrote,
// machine facts from the context recorded at measurement time, roofs from the
// ceiling benchmarks; the pair catalogue is this build's registry.
#include <filesystem>
#include <optional>
#include <string>

#include "analysis/bench_json.h"
#include "analysis/model/results_model.h"

namespace lmroof {

struct AnalysisOptions {
  std::string bench_json_name = "bench.json";
  // Default: what bench.json's context recorded; else every pair, not quick.
  std::optional<model::Suite> suite;
  // Default: bench.json's context; else analytic, with the reason.
  std::optional<model::Metrics> metrics;
  // When the analysis ran (results.json machine.date); default now.
  std::string date;
};

// Throws model::InputError (naming the file and field) for a bench.json holding no
// lmroof ceilings or runs, an impossible value, or runs of two backends.
model::Results build_results(const BenchDocument& bench, const AnalysisOptions& options);

// The registry (kernels/registry.h) as results.json's catalogue.
model::Catalogue registry_catalogue();

// Reads and validates a results file; one written before the catalogue travelled in
// results.json gets this build's registry catalogue.
model::Results load_results(const std::filesystem::path& path);
// The same for a document already parsed; `file` names it in errors.
model::Results results_from_document(nlohmann::json doc, const std::string& file);

// `lmroof report`, `check` and `compare` need runs: a results file with none (valid as
// such: `analyze` of a bench.json that measured ceilings only writes one) is refused
// with one line, "FILE: /runs: holds no runs: nothing to <purpose>" (model::InputError).
void require_runs(const model::Results& results, const std::string& file, std::string_view purpose);

// Atomic write (analysis/io/atomic_write.h).
void write_results(const model::Results& results, const std::filesystem::path& path);

}  // namespace lmroof
