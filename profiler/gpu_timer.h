#pragma once
// GPU timing with CUDA events on a workload's own stream, in the manner of nvbench:
//   - warm-up runs first (lazy module loading, cuBLASLt's first call, clocks);
//   - cold by default: before every sample the L2 cache is flushed by a kernel that
//     reads a persistent buffer of at least twice the L2 size (allocated once per
//     process), outside the timed region;
//   - the host enqueues each sample while a tiny kernel holds the stream, so the
//     events time the GPU work back to back, not the CPU's launch latency (checked
//     once per process; where it cannot work, timing goes on without it and says so);
//   - samples are collected until their relative standard deviation is below the
//     target with enough samples and enough summed time, or a wall-clock cap.
// Include from CUDA translation units (needs cuda_runtime.h).
#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace lmroof::profiler {

struct GpuTimingOptions {
  bool cold = true;          // flush L2 before each sample
  bool hide_launch = true;   // hold the stream while enqueueing each sample
  int warmup_runs = 3;
  int min_samples = 10;
  int max_samples = 100000;
  double min_time_s = 0.02;  // summed sample time required before stopping on the noise target
  double max_time_s = 0.5;   // wall-clock cap on sampling (at least one sample is always taken)
  double target_cv = 0.005;  // relative standard deviation

  // Defaults, overridden by the environment:
  //   LMROOF_CUDA_TIMING=cold|hot   LMROOF_CUDA_MIN_TIME=<s>   LMROOF_CUDA_MAX_TIME=<s>
  //   LMROOF_CUDA_TARGET_CV=<x>     LMROOF_CUDA_HIDE_LAUNCH=0|1
  // Throws std::invalid_argument on a malformed value.
  static GpuTimingOptions from_env();
};

struct GpuTiming {
  std::vector<double> samples;  // seconds, in order
  double median = 0, mean = 0, min = 0, max = 0;
  double cv = 0;           // stdev / mean of the samples (0 with one sample)
  bool converged = false;  // stopped on the noise target, not on the caps
  bool cold = true;
  int hold_timeouts = 0;  // samples whose stream hold expired before the host finished enqueueing
  // Samples were enqueued behind the stream hold. False when hide_launch was off, or
  // when the process's first timing call found the hold unusable (the mapped flag could
  // not be allocated, or the GPU did not see the host's release): said once on stderr.
  bool launch_hidden = false;
};

double median_of(std::vector<double> values);
double cv_of(const std::vector<double>& values);

// Times `enqueue` (which must only enqueue work on `stream`, never synchronize)
// per the options. `after_sample` runs after each sample's stop event completed.
GpuTiming time_on_stream(cudaStream_t stream, const std::function<void()>& enqueue, const GpuTimingOptions& options,
                         const std::function<void()>& after_sample = {});

// The process-wide L2 flush buffer (>= 2x the L2 size of the current device).
class L2Flusher {
 public:
  static L2Flusher& instance();
  // Enqueues a read of the whole buffer: every line the previous work left in L2,
  // dirty ones included, is evicted (and written back) here rather than inside the
  // next timed region, and L2 is left holding clean lines of the flush buffer.
  void flush(cudaStream_t stream);
  size_t bytes() const { return bytes_; }

 private:
  L2Flusher();
  void* buffer_ = nullptr;
  size_t bytes_ = 0;
  float* sink_ = nullptr;
};

}  // namespace lmroof::profiler
