#pragma once
// Registers lmroof's Google Benchmark suites programmatically: one benchmark per
// pair x variant x impl x shape (names are RunSpec::bench_name()), plus the
// ceiling micro-benchmarks (names "ceiling/<backend>/<name>").
#include <map>
#include <string>
#include <vector>

#include "analysis/model/claimed_comparisons.h"
#include "analysis/model/schema.h"
#include "bench/adaptive_repetitions.h"
#include "bench/shape_request.h"
#include "kernels/run_names/workload.h"

namespace benchmark {
class State;
}

namespace lmroof::bench {

struct SuiteOptions {
  std::vector<std::string> pairs;  // empty: every pair
  bool quick = false;              // small shapes, few repetitions: for tests and smoke runs
  Backend backend = Backend::cpu;
  DType dtype = DType::fp32;
  int repetitions = kDefaultRepetitions.repetitions;  // bench/adaptive_repetitions.h says why
  double min_time_s = kDefaultRepetitions.min_time_s;  // per repetition
  // The repetitions of a run that a paired comparison times again (CPU only;
  // kComparedRepetitions says why). 0: `repetitions`, as --repetitions and --quick set.
  int compared_repetitions = kComparedRepetitions.repetitions;
  // CUDA only: also measure each run once under CUPTI (range profiler + kernel
  // trace), in passes separate from timing; published as cupti_* counters.
  bool measure_counters = false;
  // Shapes of the user's choosing (--model, --tokens, --batch, --context, --shape);
  // inactive by default: the suites' own shapes.
  ShapeRequest shapes;
  // Pairs of runs the claims compare that the catalogue does not (CPU only): timed in
  // paired rounds beside the catalogue's comparisons, and recorded in bench.json's
  // context (model::context::kClaimedComparisons).
  std::vector<model::ClaimedComparison> claimed_comparisons;
};

// The runs a suite contains, shapes completed, and what the user should know about
// how they were derived (one line each: the model's notes, --quick's scaling, pairs
// without a model derivation). Throws std::invalid_argument on an unknown pair, a bad
// --shape or a shape its pair refuses.
struct SuitePlan {
  std::vector<RunSpec> runs;
  std::vector<std::string> notes;
};
SuitePlan plan_suite(const SuiteOptions& options);

// The bytes one run holds in memory: what its implementation declares resident
// (Cost::resident_bytes: intermediates and scratch, the eager block's H·T² scores), else
// the cost model's minimum (every input and output once, at the run's dtype). Runs go
// one at a time, so the largest counts.
double footprint_bytes(const RunSpec& spec);
// Throws std::invalid_argument naming the largest run, its estimate and the limit when
// it cannot fit, then (one line) when everything the process will hold cannot:
// planned_peak_bytes against the memory available (LMROOF_MEMORY_LIMIT or MemAvailable)
// and, on CUDA, the largest run against device memory.
void check_memory(const std::vector<RunSpec>& runs, Backend backend, bool with_ceilings = true);
// Everything the process will hold at its peak (bench/memory_budget.h): the DRAM arrays
// of the CPU ceilings, probes and curve when `with_ceilings` on the CPU, the ceilings'
// scratch, twice the largest run (paired rounds hold two workloads) and the process.
double planned_peak_bytes(const std::vector<RunSpec>& runs, Backend backend, bool with_ceilings = true);
// The same against a given limit; `limit_name` says what it is ("memory on NVIDIA H200").
void check_footprint(const std::vector<RunSpec>& runs, double limit_bytes, const std::string& limit_name);

// plan_suite(options).runs
std::vector<RunSpec> suite_runs(const SuiteOptions& options);

// A run's shape without the dimensions its variant decides (PairDef::variant_dims:
// decode's kv_heads): what two runs of a comparison must share, and what the plan
// groups runs by.
std::map<std::string, int64_t> shape_without(const Shape& shape, const std::vector<std::string>& variant_dims);

// Registers `runs` as given: the caller planned them once (plan_suite) and checked
// their memory (check_memory) before anything was measured.
void register_pair_benchmarks(const SuiteOptions& options, const std::vector<RunSpec>& runs);
// Frees the workload the last pair benchmark kept (bench/paired_rounds.cpp needs the
// memory for two of its own).
void release_cached_workload();
// Returns how many benchmarks it registered (the runner's progress counts them).
int register_ceiling_benchmarks(const SuiteOptions& options);
// The DRAM ceilings again, to be registered after the pairs (CPU; none on CUDA): see
// model::counter::kCeilingPhase. Returns how many it registered.
int register_ceiling_rechecks(const SuiteOptions& options);
// The named peak ceilings again, each at its phase (model::counter::kCeilingPhase),
// marked as a second attempt (model::counter::kCeilingAttempt): the runner measures a
// ceiling again when its repetitions spread beyond model::kCeilingSpreadBound. CPU
// only (returns 0 on CUDA). Returns how many it registered.
int register_ceiling_remeasures(const SuiteOptions& options, const std::vector<std::pair<std::string, int>>& ceilings);

// Ceiling benchmarks publish what one iteration moved or computed in these
// counters; analysis divides by the iteration time to get the roof.
inline const std::string kCeilingBytesCounter{model::counter::kCeilingBytes};
inline const std::string kCeilingFlopsCounter{model::counter::kCeilingFlops};
inline const std::string kCeilingLaunchSecondsCounter{model::counter::kCeilingLaunchSeconds};
inline const std::string kCeilingLaunchesCounter{model::counter::kCeilingLaunches};

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
