#include "analysis/roofs/roofline.h"

#include <algorithm>

namespace lmroof {

void place_on_roofline(model::Run& run, const Roofs& roofs) {
  const double flops = run.flops.total;
  // GEMM-shaped work is held to the GEMM roof, everything else to the FMA roof.
  const auto& compute = (flops > 0 && run.flops.matrix >= 0.5 * flops && roofs.matrix) ? roofs.matrix : roofs.vector;
  model::RooflinePlacement r;
  run.bound.reset();
  if (roofs.bandwidth) {
    r.bandwidth_roof = roofs.bandwidth->name;
    r.bandwidth = roofs.bandwidth->value;
    r.bandwidth_utilization = run.achieved.byte_per_s / roofs.bandwidth->value;
  }
  if (compute) {
    r.compute_roof = compute->name;
    r.compute = compute->value;
  }
  if (roofs.bandwidth && compute) {
    const double ridge = compute->value / roofs.bandwidth->value;
    const double intensity = run.intensity.value;
    const double attainable = std::min(compute->value, intensity * roofs.bandwidth->value);
    r.ridge = ridge;
    r.attainable_flop_per_s = attainable;
    r.efficiency = attainable > 0 ? run.achieved.flop_per_s / attainable : 0.0;
    run.bound = intensity < ridge ? model::Bound::memory : model::Bound::compute;
  }
  if (roofs.launch) {
    r.launch_roof = roofs.launch->name;
    r.launch = roofs.launch->value;
    if (run.time_s.median <= model::kLatencyBoundFactor * roofs.launch->value) run.bound = model::Bound::latency;
  }
  // The L2 level: bytes L2 served over time against the measured L2 bandwidth. Only
  // with counters: no model predicts L2 traffic.
  if (roofs.l2 && run.bytes.measured_l2) {
    r.l2_bandwidth_roof = roofs.l2->name;
    r.l2_bandwidth = roofs.l2->value;
    r.l2_bandwidth_utilization = *run.bytes.measured_l2 / run.time_s.median / roofs.l2->value;
  }
  run.roofline = r;
}

}  // namespace lmroof
