#pragma once
// GPU hardware counters over user-defined ranges, through CUPTI's range profiler
// (cupti_range_profiler.h + cupti_profiler_host.h, the API of CUDA 12.6+) with user
// ranges and user replay: the caller's work is run once per pass until every counter
// was collected, and each range's counters are evaluated on the host.
//
// Plain C++ header, usable from every build. Unsupported devices (vGPU without
// profiling, confidential compute, MIG, CMP, WSL), missing permission to read counters
// (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, https://developer.nvidia.com/ERR_NVGPUCTRPERM)
// and builds without CUDA are states: available = false with a reason, never an
// exception. A metric the chip does not know is dropped with its reason.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "profiler/counter_formulas.h"
#include "profiler/counter_plan.h"

namespace lmroof::profiler {

// What status() answers: the plan for the current device (counter_plan.h), with the
// pass count filled in, or why counters cannot be read here.
using RangeProfilerStatus = CounterPlan;

struct RangeStep {
  std::string name;           // the range's name (unique within one profile() call)
  std::function<void()> run;  // enqueues work; the profiler synchronizes the device after it
};

struct RangeValues {
  std::string name;
  CounterValues values;  // metric -> value, for every collected metric
};

struct RangeProfile {
  bool available = false;
  std::string reason;
  std::string chip;
  std::vector<std::string> metrics;
  std::map<std::string, std::string> dropped;
  size_t passes = 0;                // passes replayed
  size_t ranges_dropped = 0;        // reported by cuptiRangeProfilerDecodeData
  std::vector<RangeValues> ranges;  // in the order of the steps

  const RangeValues* find(const std::string& range_name) const;
};

class RangeProfiler {
 public:
  // The metrics to ask for; the default is roofline_metrics() (counter_formulas.h).
  explicit RangeProfiler(std::vector<std::string> metrics = roofline_metrics());
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // Initializes CUPTI's profiler on the current device (once), checks the device is
  // supported, reads the chip name and counter availability, drops the metrics the
  // chip lacks and builds the configuration image. Cached after the first call.
  // Does not touch counters on the GPU: a permission problem shows in profile().
  const RangeProfilerStatus& status();

  // Profiles `ranges` in order, one CUPTI range each. For every pass: `before_pass`
  // (unprofiled: e.g. flush L2) and a device synchronize, then each range's work
  // followed by a device synchronize inside its range. The work must do the same on
  // every pass (user replay: CUPTI does not save or restore memory). Exceptions
  // thrown by the callables propagate after the profiler was switched off.
  RangeProfile profile(const std::function<void()>& before_pass, const std::vector<RangeStep>& ranges);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lmroof::profiler
