#pragma once
// Runs the registered Google Benchmark suite in-process with a progress display.
// Google Benchmark's JSON is held in memory and returned as the session's measurement
// (bench/measurement.h): the caller adds any later rounds to it and writes bench.json
// once, whole (lmroof run: into its staging folder, then publishes it).
#include <string>
#include <utility>
#include <vector>

#include "bench/measurement.h"
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
  Measurement measurement;  // what was measured; empty when benchmarks is 0
};

// Registers what the options ask for, runs it, prints progress on stderr, and returns
// what it measured (ceilings whose repetitions spread too far measured again, joined).
RunnerSummary run_benchmarks(const RunnerOptions& options);

// More paired rounds of `plans` (bench/paired_rounds.h), in this process after
// run_benchmarks (their round numbers go on from its): their measurement, which the
// caller joins to run_benchmarks' (Measurement::join). options.extra_flags apply as before.
RunnerSummary run_extra_rounds(const RunnerOptions& options, const std::vector<PairedPlan>& plans);

}  // namespace lmroof::bench
