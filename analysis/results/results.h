#pragma once
// Builds results.json (docs/results-schema.md, model::Results) from a bench.json:
// a pure function of that file. Costs come from the counters the benchmarks wrote,
// machine facts from the context recorded at measurement time, roofs from the
// ceiling benchmarks; the pair catalogue from the one recorded in the context at
// measurement time (model::context::kCatalogue). Nothing comes from the build or
// machine the analysis runs on: analysis links neither the kernels nor the profiler.
#include <filesystem>
#include <optional>
#include <string>

#include "analysis/results/bench_json.h"
#include "analysis/model/results_model.h"
#include "analysis/formats/file_names.h"
#include "kernels/run_names/workload.h"

namespace lmroof {

struct AnalysisOptions {
  std::string bench_json_name = std::string(formats::kBenchJson);
  // Default: what bench.json's context recorded; else every pair, not quick.
  std::optional<model::Suite> suite;
  // Default: bench.json's context; else analytic, with the reason.
  std::optional<model::Metrics> metrics;
  // When the analysis ran (results.json machine.date); default now.
  std::string date;
};

// Throws model::InputError (naming the file and field) for a bench.json holding no
// lmroof ceilings or runs, an impossible value, runs of two backends, a pair run
// without its cost counters, or pair runs without a recorded catalogue (a file
// written before lmroof recorded it: `lmroof migrate` adds one, in cli).
model::Results build_results(const BenchDocument& bench, const AnalysisOptions& options);

// The runs of a plan, not yet measured (id, pair, variant, impl, backend, dtype and
// shape; no times), with the catalogue's comparisons among them: what the claims read
// to list the pairs of runs they compare before anything is measured
// (claimed_comparisons, analysis/claims/claims.h).
model::Results planned_results(const model::Catalogue& catalogue, const std::vector<RunSpec>& plan);

// The one-line refusal of a bench.json with pair runs and no recorded catalogue.
std::string missing_catalogue_message(const std::string& bench_file);

// Reads and validates a results file; one written before the catalogue travelled in
// results.json gets `catalogue_if_absent` (the cli passes its build's registry,
// bench/catalogue.h: the analysis cannot reach it).
model::Results load_results(const std::filesystem::path& path, const model::Catalogue& catalogue_if_absent);
// The same for a document already parsed; `file` names it in errors.
model::Results results_from_document(nlohmann::json doc, const std::string& file,
                                     const model::Catalogue& catalogue_if_absent);

// `lmroof report`, `check` and `compare` need runs: a results file with none (valid as
// such: `analyze` of a bench.json that measured ceilings only writes one) is refused
// with one line, "FILE: /runs: holds no runs: nothing to <purpose>" (model::InputError).
void require_runs(const model::Results& results, const std::string& file, std::string_view purpose);

// Atomic write (analysis/io/atomic_write.h).
void write_results(const model::Results& results, const std::filesystem::path& path);

}  // namespace lmroof
