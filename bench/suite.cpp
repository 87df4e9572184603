#include "bench/suite.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>

#include "analysis/model/schema.h"
#include "bench/contention.h"
#include "bench/cost_counters.h"
#include "bench/dram_probe.h"
#include "bench/kernel_trace_store.h"
#include "bench/paired_rounds.h"
#include "bench/machine_context.h"
#include "bench/validate_before_timing.h"
#include "profiler/metrics.h"
#include "registry.h"

namespace lmroof::bench {

namespace {

// Google Benchmark calls a benchmark's function several times (to size the
// iteration count, then once per repetition). Building a workload allocates and
// randomizes up to hundreds of MB, so the current one is kept until the next
// benchmark needs a different one.
struct CachedWorkload {
  std::string name;
  std::unique_ptr<Workload> workload;
};
CachedWorkload& cached_workload() {
  static CachedWorkload cache;
  return cache;
}

Workload& workload_for(const RunSpec& spec) {
  std::string& cached_name = cached_workload().name;
  std::unique_ptr<Workload>& cached = cached_workload().workload;
  const std::string name = spec.bench_name();
  if (name != cached_name || !cached) {
    cached.reset();  // free the previous one first: two large workloads may not fit
    cached_name.clear();
    cached = make_workload(spec);
    cached->run();  // warm-up: page faults, thread pools, cuBLAS heuristics
    cached_name = name;
  }
  return *cached;
}

std::string key(std::string_view name) { return std::string(name); }
std::string key(std::string_view prefix, const std::string& op_class) { return std::string(prefix) + op_class; }

// The run's cost, as the build that measured it computed it: analysis reads these
// counters and never recomputes a cost from its own build.
void set_cost_counters(benchmark::State& state, const Cost& cost) {
  using benchmark::Counter;
  namespace c = model::counter;
  for (const auto& [name, value] : cost_counters(cost)) state.counters[name] = Counter(value);
  state.counters[key(c::kIntensity)] = Counter(cost.bytes_model > 0 ? cost.flops.total() / cost.bytes_model : 0);
  state.counters[key(c::kFlopRate)] = Counter(cost.flops.total(), Counter::kIsIterationInvariantRate, Counter::kIs1000);
  state.counters[key(c::kByteRate)] = Counter(cost.bytes_model, Counter::kIsIterationInvariantRate, Counter::kIs1000);
}

#ifdef LMROOF_WITH_CUDA
// CUPTI numbers for one workload, measured once per benchmark (Google Benchmark
// calls the function once per repetition) and published on every repetition as
// plain counters; analysis turns them into bytes.measured and measured FLOPs.
//
// Every CUDA run is also traced once (kernel names, classes, GPU durations: no counter
// permission needed) into the kernel trace store; composite runs (the block) publish
// their per-class kernel time as counters too.
void publish_cupti_counters(benchmark::State& state, const RunSpec& spec, Workload& workload, const Cost& cost,
                            bool measure_counters) {
  struct Measured {
    profiler::MeasuredCounters counters;
    std::map<std::string, double> class_seconds;
  };
  static std::map<std::string, Measured> cache;
  auto [it, fresh] = cache.try_emplace(spec.bench_name());
  Measured& m = it->second;
  if (fresh) {
    auto& collector = profiler::MetricsCollector::instance();
    if (measure_counters) m.counters = collector.measure(workload);
    if (collector.probe().tracing) {
      const profiler::KernelTrace trace = collector.trace(workload);
      record_kernel_trace(spec.bench_name(), trace);
      if (!cost.flops_by_class.empty() && trace.available) m.class_seconds = trace.seconds_by_class();
    }
  }
  namespace c = model::counter;
  auto put = [&](std::string_view name, const std::optional<double>& v) {
    if (v) state.counters[key(name)] = benchmark::Counter(*v);
  };
  if (measure_counters && !m.counters.available) state.SetLabel(key(c::kCuptiLabelPrefix) + " " + m.counters.reason);
  if (measure_counters && m.counters.available) {
    put(c::kCuptiDramBytes, m.counters.dram_bytes);
    put(c::kCuptiDramReadBytes, m.counters.dram_read_bytes);
    put(c::kCuptiDramWriteBytes, m.counters.dram_write_bytes);
    put(c::kCuptiWritebackBytes, m.counters.writeback_bytes);
    put(c::kCuptiL2Bytes, m.counters.workload.l2_bytes);
    put(c::kCuptiFlops, m.counters.workload.total_flops);
    put(c::kCuptiFlopsTensor, m.counters.workload.tensor_flops);
    put(c::kCuptiFlopsCudaCore, m.counters.workload.cuda_core_flops);
    put(c::kCuptiSmClockHz, m.counters.workload.sm_clock_hz);
    state.counters[key(c::kCuptiPasses)] = benchmark::Counter(static_cast<double>(m.counters.passes));
  }
  for (const auto& [cls, seconds] : m.class_seconds)
    state.counters[key(c::kCuptiClassTimePrefix, cls)] = benchmark::Counter(seconds);
}
#endif

void run_pair_benchmark(benchmark::State& state, const RunSpec& spec, bool measure_counters) {
  // Before the timed workload is even built: a kernel that computes the wrong thing is not timed.
  const KernelValidation& validation = validate_before_timing(spec);
  if (!validation.passed) {
    state.SkipWithError(validation.failure.c_str());
    return;
  }
  publish_validation(state, validation);
  Workload* workload = nullptr;
  Cost cost;
  try {
    workload = &workload_for(spec);
    cost = cost_of(spec);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
#ifdef LMROOF_WITH_CUDA
  if (spec.backend == Backend::cuda) {
    run_cuda_benchmark(state, *workload);
    set_cost_counters(state, cost);
    publish_cupti_counters(state, spec, *workload, cost, measure_counters);
    return;
  }
#else
  (void)measure_counters;
#endif
  // The repetition is timed here, around what the machine gave it (bench/contention.h),
  // and handed to Google Benchmark as manual time: a contended repetition is timed again.
  const int64_t iterations = std::max<int64_t>(1, state.max_iterations);
  std::vector<std::map<std::string, double>> class_seconds;  // per attempt
  const TimedRepetition timed = time_uncontended([&](int) {
    std::map<std::string, double>& classes = class_seconds.emplace_back();
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < iterations; ++i) {
      workload->run();
      for (const auto& [cls, seconds] : workload->last_class_seconds()) classes[cls] += seconds;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  for (auto _ : state) state.SetIterationTime(timed.seconds / static_cast<double>(iterations));
  publish_share(state, timed.share, timed.retimes);
  set_cost_counters(state, cost);
  // The machine's DRAM roofs at this moment, outside the timed loop: analysis judges
  // the run against these too (bench/dram_probe.h).
  if (streams_from_dram(cost.working_set())) {
    const DramProbe probe = probe_dram();
    state.counters[key(model::counter::kProbeReadRate)] = benchmark::Counter(probe.read_bytes_per_s);
    state.counters[key(model::counter::kProbeCopyNtRate)] = benchmark::Counter(probe.copy_nt_bytes_per_s);
  }
  for (const auto& [cls, seconds] : class_seconds[static_cast<size_t>(timed.kept_attempt)])
    state.counters[key(model::counter::kClassTimePrefix, cls)] = benchmark::Counter(seconds, benchmark::Counter::kAvgIterations);
}

}  // namespace

void release_cached_workload() {
  cached_workload().workload.reset();
  cached_workload().name.clear();
}

void register_pair_benchmarks(const SuiteOptions& options, const std::vector<RunSpec>& runs) {
  record_machine_context(options);
  // The sides of the paired comparisons (none on CUDA): their verdicts come from the
  // rounds, so fewer suite repetitions do (kComparedRepetitions).
  std::set<std::string> compared;
  if (options.compared_repetitions > 0 && !options.quick)
    for (const PairedPlan& plan : plan_paired_rounds(runs, options.claimed_comparisons))
      compared.insert({plan.baseline.bench_name(), plan.candidate.bench_name()});
  for (const RunSpec& spec : runs) {
    auto* b = benchmark::RegisterBenchmark(spec.bench_name().c_str(),
                                           [spec, measure = options.measure_counters](benchmark::State& state) {
                                             run_pair_benchmark(state, spec, measure);
                                           });
    b->Repetitions(compared.contains(spec.bench_name()) ? options.compared_repetitions : options.repetitions)
        ->Unit(benchmark::kMillisecond);
    if (spec.backend == Backend::cuda)
      // One Google Benchmark iteration = one adaptive sampling loop (gpu_timer): it
      // samples until the noise target is met and reports the median.
      b->Iterations(1)->UseManualTime();
    else
      // The kernels are multi-threaded: the main thread's CPU time means nothing. The
      // wall time of each repetition is taken by run_pair_benchmark (manual time), which
      // times a contended repetition again (bench/contention.h).
      b->MinTime(options.min_time_s)->UseManualTime();
  }
}

}  // namespace lmroof::bench
