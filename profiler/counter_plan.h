#pragma once
// Which GPU counters the range profiler will collect, and why the others are not.
//
// CUPTI's profiler host API knows every chip it supports by name ("GH100" for H100 and
// H200, "GB100", "AD102", ...) without a device or a driver, so the metric names can be
// checked here, on a machine with no GPU, before a scarce device session is spent:
// `lmroof counters --chip GH100` and tests/test_counter_plan.cpp do exactly that.
// What needs the device is the configuration image and its number of replay passes
// (CUPTI builds them only from the device's counter-availability image).
//
// Plain C++ header, usable from every build; without CUDA every plan is unavailable
// with that reason.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "profiler/counter_formulas.h"

namespace lmroof::profiler {

struct CounterPlan {
  bool available = false;
  std::string reason;                          // why not, when !available
  std::string chip;                            // CUPTI's chip name, e.g. "GH100"
  std::vector<std::string> metrics;            // the metrics that will be collected
  std::map<std::string, std::string> dropped;  // metric -> why it is not collected
  size_t passes = 0;                           // replay passes the set needs; 0 when planned offline
};

// The plan for `chip` from its name alone (no device): the requested metrics the chip
// knows and that CUPTI accepts together in one configuration; `passes` stays 0.
// An unknown chip name gives available = false with CUPTI's answer.
CounterPlan plan_counters_offline(const std::string& chip,
                                  const std::vector<std::string>& requested = roofline_metrics());

// The chip names CUPTI's host API accepts (empty without CUDA).
std::vector<std::string> cupti_supported_chips();

}  // namespace lmroof::profiler
