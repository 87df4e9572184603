#pragma once
// Places one run on the measured roofline: which roofs apply, the ridge point,
// attainable performance and the memory- vs compute-bound verdict.
#include <optional>
#include <string>

#include "analysis/model/results_model.h"

namespace lmroof {

struct Roof {
  std::string name;
  double value = 0;  // B/s or FLOP/s, > 0
};

struct Roofs {
  std::optional<Roof> bandwidth;
  std::optional<Roof> vector;  // FP32 FMA peak
  std::optional<Roof> matrix;  // SGEMM (CPU) / bf16 tensor-core GEMM (CUDA)
  std::optional<Roof> l2;      // L2 read bandwidth (CUDA): the upper level of a hierarchical roofline
  std::optional<Roof> launch;  // t0, seconds per launch (a latency ceiling): the time floor
};

// Fills run.roofline and run.bound from run.intensity, run.flops and run.achieved
// (and the L2 level from run.bytes.measured_l2 when counters measured it). Missing
// roofs leave the fields empty, never made-up values. A run whose median time is
// within model::kLatencyBoundFactor of the launch ceiling is latency-bound, whatever
// its intensity: a fixed cost per launch, not bytes or FLOPs, holds most of its time.
void place_on_roofline(model::Run& run, const Roofs& roofs);

}  // namespace lmroof
