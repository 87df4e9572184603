#pragma once
// A run's cost as the counters bench.json records at measurement time (names:
// analysis/model/schema.h model::counter): the analysis reads them and never
// recomputes a cost from its own build.
#include <map>
#include <string>

#include "kernels/run_names/cost.h"

namespace lmroof::bench {

// Counter name -> value: the FLOP split, the minimum and model bytes, the traffic
// split the roof choice reads (left out when 0) and the per-class counters of
// composite runs. Rates and the intensity are Google Benchmark counters of their own
// kind and not here (bench/suite.cpp).
std::map<std::string, double> cost_counters(const Cost& cost);

}  // namespace lmroof::bench
