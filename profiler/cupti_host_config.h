#pragma once
// The host side of a CUPTI range-profiler configuration: a host object for one chip,
// the metrics it accepts, and (given the device's counter-availability image) the
// configuration image and its pass count. Shared by plan_counters_offline() and the
// RangeProfiler, which also evaluates its counter data through host().
// CUDA builds only: include it inside #ifdef LMROOF_WITH_CUDA.
#include <cupti_profiler_host.h>

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/counter_plan.h"

namespace lmroof::profiler {

class CuptiHostConfig {
 public:
  CuptiHostConfig() = default;
  ~CuptiHostConfig() { reset(); }
  CuptiHostConfig(const CuptiHostConfig&) = delete;
  CuptiHostConfig& operator=(const CuptiHostConfig&) = delete;

  // Sets plan.metrics to the requested metrics that `chip` knows and CUPTI accepts in
  // one configuration, and plan.dropped to the others with CUPTI's answer. An empty
  // `availability` means offline (no device). False, with plan.reason, when CUPTI
  // fails outright or nothing is left to collect.
  bool select_metrics(const std::string& chip, const std::vector<uint8_t>& availability,
                      const std::vector<std::string>& requested, CounterPlan& plan);

  // After select_metrics() with the device's availability image: the configuration
  // image and plan.passes. False, with plan.reason, on failure.
  bool build_image(CounterPlan& plan);

  CUpti_Profiler_Host_Object* host() const { return host_; }
  const std::vector<uint8_t>& image() const { return image_; }
  void reset();

 private:
  CUptiResult init();
  CUptiResult add_metrics(const std::vector<std::string>& names) const;
  std::string check_metric(const std::string& name) const;  // empty when the chip knows it

  std::string chip_;
  std::vector<uint8_t> availability_;  // kept: CUPTI may refer to it after initialization
  CUpti_Profiler_Host_Object* host_ = nullptr;
  std::vector<uint8_t> image_;
};

}  // namespace lmroof::profiler
