// The CUDA body of a pair benchmark (bench/suite.h): CUDA-event timing on the
// workload's own stream through profiler::time_on_stream (warm-up, L2 flushed before
// each sample unless LMROOF_CUDA_TIMING=hot, noise target), the median fed to
// Google Benchmark as the iteration's manual time.
#include <benchmark/benchmark.h>

#include <exception>
#include <map>
#include <string>
#include <vector>

#include "bench/suite.h"
#include "common/cuda_workload.h"
#include "profiler/gpu_timer.h"

namespace lmroof::bench {

void run_cuda_benchmark(benchmark::State& state, Workload& workload) {
  cuda::CudaWorkload* cw = cuda::as_cuda(workload);
  if (!cw) {
    state.SkipWithError("run_cuda_benchmark: the workload is not a CUDA workload");
    return;
  }
  profiler::GpuTimingOptions base;
  try {
    base = profiler::GpuTimingOptions::from_env();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  // Registered with Iterations(1), each repetition is one measurement sampled to the
  // noise target. When Google Benchmark sizes the iteration count itself, every
  // iteration is a single (flushed, event-timed) sample instead, so that thousands of
  // iterations do not each sample to the target.
  const bool one_iteration = state.max_iterations <= 1;
  std::vector<double> samples;
  std::map<std::string, std::vector<double>> class_samples;
  int hold_timeouts = 0;
  bool converged = true, first = true;
  try {
    for (auto _ : state) {
      profiler::GpuTimingOptions o = base;
      if (!first) o.warmup_runs = 0;
      if (!one_iteration) {
        o.min_samples = 1;
        o.max_samples = 1;
        o.min_time_s = 0;
      }
      first = false;
      const auto t = profiler::time_on_stream(
          cw->stream(), [&] { workload.run(); }, o,
          [&] {
            for (const auto& [cls, seconds] : workload.last_class_seconds()) class_samples[cls].push_back(seconds);
          });
      state.SetIterationTime(t.median);
      samples.insert(samples.end(), t.samples.begin(), t.samples.end());
      hold_timeouts += t.hold_timeouts;
      converged = converged && t.converged;
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  using benchmark::Counter;
  state.counters["samples"] = Counter(static_cast<double>(samples.size()));
  state.counters["cv"] = Counter(profiler::cv_of(samples));
  state.counters["l2_cold"] = Counter(base.cold ? 1 : 0);
  if (one_iteration) state.counters["noise_target_met"] = Counter(converged ? 1 : 0);
  if (hold_timeouts > 0) state.counters["hold_timeouts"] = Counter(hold_timeouts);
  // Per operator class (the block): median over the samples of each phase's event time.
  for (const auto& [cls, seconds] : class_samples)
    state.counters[std::string(model::counter::kClassTimePrefix) + cls] = Counter(profiler::median_of(seconds));
}

}  // namespace lmroof::bench
