#pragma once
// What a run really did on the GPU, measured in passes separate from timing:
//   probe()   can counters be read here, and if not, why (every build);
//   measure() the workload once under CUPTI's range profiler: DRAM and L2 bytes,
//             FLOPs per precision and on tensor cores, SM clock (range_profiler.h,
//             counter_formulas.h);
//   trace()   the workload once under CUPTI activity tracing: its kernels, their GPU
//             durations and operator classes (kernel_trace.h).
// Formulas, sources and caveats: docs/metrics.md.
//
// Plain C++ header. Without CUDA, or without a device, or without permission to read
// counters, every call returns available = false and a reason; nothing throws.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/run_names/workload.h"
#include "profiler/counter_formulas.h"
#include "profiler/kernel_trace.h"

namespace lmroof::profiler {

enum class MetricsState {
  available,
  built_without_cuda,
  no_device,
  unsupported_device,       // vGPU, confidential compute, MIG, CMP, WSL, pre-Turing
  insufficient_privileges,  // ERR_NVGPUCTRPERM
  error,                    // any other CUPTI failure (the reason names the call)
};
const char* to_string(MetricsState s);

struct MetricsAvailability {
  MetricsState state = MetricsState::error;
  std::string reason;                                  // why counters cannot be read; empty when available
  bool tracing = false;                                // kernel tracing works (needs a device, not counter permission)
  std::string tracing_reason;                          // why not, when !tracing
  std::string device;                                  // e.g. "NVIDIA H200"
  std::string chip;                                    // CUPTI's chip name, e.g. "GH100"
  std::vector<std::string> metrics;                    // collected by measure()
  std::map<std::string, std::string> dropped_metrics;  // metric -> why not
  size_t passes = 0;                                   // replay passes per measure()

  bool available() const { return state == MetricsState::available; }
};

struct MeasuredCounters {
  bool available = false;
  std::string reason;  // why not, when !available

  // From the workload's own range (docs/metrics.md for each formula).
  DerivedMetrics workload;
  // DRAM writes of the workload's lines still dirty in L2 when its range ended,
  // written back by the flush that follows it (minus an identical flush's writes).
  std::optional<double> writeback_bytes;
  // Bytes moved to and from DRAM by the workload: its range's reads + writes +
  // writeback_bytes. This is what results.json calls bytes.measured.
  std::optional<double> dram_read_bytes, dram_write_bytes, dram_bytes;

  // Raw counter values of the three ranges, for the report and for ncu comparisons.
  CounterValues workload_raw, writeback_raw, baseline_raw;
  std::string chip;
  std::map<std::string, std::string> dropped_metrics;
  size_t passes = 0;
  std::string note;
};

class MetricsCollector {
 public:
  MetricsCollector();
  ~MetricsCollector();
  MetricsCollector(const MetricsCollector&) = delete;
  MetricsCollector& operator=(const MetricsCollector&) = delete;

  // The process-wide collector (CUPTI's profiler is per process and context). Never
  // destroyed, so CUPTI is not torn down during static destruction.
  static MetricsCollector& instance();

  // Can counters be read on this machine? The first call initializes CUPTI and does
  // one empty profiling pass (that is where a permission problem shows); the answer
  // is cached.
  MetricsAvailability probe();

  // Runs `workload` once unmeasured (warm-up), then, per replay pass: flushes L2
  // (cold, as the timing is by default), then three ranges: the workload's run(),
  // an L2 flush that writes back its dirty lines, and an identical flush as the
  // baseline. Counters come from the first range, the writeback from the difference
  // of the other two. A CPU workload, or probe() failing, gives available = false.
  MeasuredCounters measure(Workload& workload);

  // Runs `workload` once unmeasured, flushes L2, then runs it once under kernel
  // tracing. Works without counter permission.
  KernelTrace trace(Workload& workload);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lmroof::profiler
