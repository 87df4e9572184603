#pragma once
// Registers lmroof's Google Benchmark suites programmatically: one benchmark per
// pair x variant x impl x shape (names are RunSpec::bench_name()), plus the
// ceiling micro-benchmarks (names "ceiling/<backend>/<name>").
#include <string>
#include <vector>

#include "analysis/model/schema.h"
#include "common/workload.h"

namespace benchmark {
class State;
}

namespace lmroof::bench {

struct SuiteOptions {
  std::vector<std::string> pairs;  // empty: every pair
  bool quick = false;              // small shapes, few repetitions: for tests and smoke runs
  Backend backend = Backend::cpu;
  DType dtype = DType::fp32;
  int repetitions = 5;
  double min_time_s = 0.05;  // per repetition
  // CUDA only: also measure each run once under CUPTI (range profiler + kernel
  // trace), in passes separate from timing; published as cupti_* counters.
  bool measure_counters = false;
};

// The runs a suite contains, shapes completed; throws std::invalid_argument on an
// unknown pair.
std::vector<RunSpec> suite_runs(const SuiteOptions& options);

void register_pair_benchmarks(const SuiteOptions& options);
// Returns how many benchmarks it registered (the runner's progress counts them).
int register_ceiling_benchmarks(const SuiteOptions& options);

// Ceiling benchmarks publish what one iteration moved or computed in these
// counters; analysis divides by the iteration time to get the roof.
inline const std::string kCeilingBytesCounter{model::counter::kCeilingBytes};
inline const std::string kCeilingFlopsCounter{model::counter::kCeilingFlops};

#ifdef LMROOF_WITH_CUDA
// CUDA side, bench/*.cu: times one Workload with CUDA events (manual time) and
// registers the GPU ceilings.
int register_cuda_ceiling_benchmarks(const SuiteOptions& options);
// The body of one pair benchmark on the CUDA backend: warm-up, L2 flush before
// each sample, CUDA-event timing fed to state.SetIterationTime (the benchmark is
// registered with UseManualTime()).
void run_cuda_benchmark(::benchmark::State& state, Workload& workload);
#endif

}  // namespace lmroof::bench
