#pragma once
// Runs the registered Google Benchmark suite in-process with a progress display.
// Google Benchmark's JSON is held in memory and written to json_out, checked, when the
// suite is done: the caller points it at a private path (lmroof run: its staging
// folder) and publishes it.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/paired_rounds.h"
#include "bench/suite.h"

namespace lmroof::bench {

struct RunnerOptions {
  SuiteOptions suite;
  bool include_pairs = true;
  // With include_pairs: the runs to measure, planned once by the caller (plan_suite)
  // with their memory checked (check_memory); the runner does not plan again.
  std::vector<RunSpec> runs;
  bool include_ceilings = true;
  std::filesystem::path json_out;       // Google Benchmark JSON (and bench.kernels.json beside it); its folder must exist
  std::vector<std::string> extra_flags;  // passed to Google Benchmark as given
  // Extra bench.json context entries (model::context keys: the metrics choice, or a
  // suite description with its model config, model::to_json(Suite)), recorded beside
  // the machine facts so analysis needs nothing but the file. They win over the
  // runner's own suite entry.
  std::vector<std::pair<std::string, std::string>> context;
};

struct RunnerSummary {
  int benchmarks = 0;  // 0: nothing matched --benchmark_filter
  int failed = 0;  // benchmarks that reported an error (skipped with a reason)
  std::vector<std::string> errors;
};

// The suite ran but its JSON could not be written to json_out (a full disk): what()
// says why, in one line ("cannot write PATH: No space left on device"); `json` holds
// the measurements, complete, for the caller to keep elsewhere.
class BenchJsonNotWritten : public std::runtime_error {
 public:
  BenchJsonNotWritten(const std::string& why, std::string json) : std::runtime_error(why), json(std::move(json)) {}
  std::string json;
};

// Registers what the options ask for, runs it, prints progress on stderr. json_out is
// written once the suite is done, atomically (a complete file or none); throws
// BenchJsonNotWritten when it cannot be.
RunnerSummary run_benchmarks(const RunnerOptions& options);

// More paired rounds of `plans` (bench/paired_rounds.h), in this process after
// run_benchmarks (their round numbers go on from its), into `json_out`: Google
// Benchmark JSON that the caller adds to bench.json. options.extra_flags apply as before.
RunnerSummary run_extra_rounds(const RunnerOptions& options, const std::vector<PairedPlan>& plans,
                               const std::filesystem::path& json_out);

}  // namespace lmroof::bench
