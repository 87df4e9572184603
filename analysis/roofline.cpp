#include "analysis/roofline.h"

#include <algorithm>

namespace lmroof {

void place_on_roofline(nlohmann::json& run, const Roofs& roofs) {
  const double flops = run["flops"]["total"].get<double>();
  const double matrix = run["flops"]["matrix"].get<double>();
  // GEMM-shaped work is held to the GEMM roof, everything else to the FMA roof.
  const auto& compute = (flops > 0 && matrix >= 0.5 * flops && roofs.matrix) ? roofs.matrix : roofs.vector;
  nlohmann::json r = {{"bandwidth_roof", nullptr}, {"bandwidth", nullptr}, {"compute_roof", nullptr},
                      {"compute", nullptr}, {"ridge", nullptr}, {"attainable_flop_per_s", nullptr},
                      {"efficiency", nullptr}, {"bandwidth_utilization", nullptr},
                      {"l2_bandwidth_roof", nullptr}, {"l2_bandwidth", nullptr}, {"l2_bandwidth_utilization", nullptr}};
  run["bound"] = nullptr;
  if (roofs.bandwidth) {
    r["bandwidth_roof"] = roofs.bandwidth->name;
    r["bandwidth"] = roofs.bandwidth->value;
    r["bandwidth_utilization"] = run["achieved"]["byte_per_s"].get<double>() / roofs.bandwidth->value;
  }
  if (compute) {
    r["compute_roof"] = compute->name;
    r["compute"] = compute->value;
  }
  if (roofs.bandwidth && compute) {
    const double ridge = compute->value / roofs.bandwidth->value;
    const double intensity = run["intensity"]["value"].get<double>();
    const double attainable = std::min(compute->value, intensity * roofs.bandwidth->value);
    r["ridge"] = ridge;
    r["attainable_flop_per_s"] = attainable;
    r["efficiency"] = attainable > 0 ? run["achieved"]["flop_per_s"].get<double>() / attainable : 0.0;
    run["bound"] = intensity < ridge ? "memory" : "compute";
  }
  // The L2 level: bytes L2 served over time against the measured L2 bandwidth. Only
  // with counters: no model predicts L2 traffic.
  const auto* l2_bytes = run.contains("bytes") ? &run["bytes"] : nullptr;
  if (roofs.l2 && l2_bytes && l2_bytes->contains("measured_l2") && (*l2_bytes)["measured_l2"].is_number()) {
    const double t = run["time_s"]["median"].get<double>();
    r["l2_bandwidth_roof"] = roofs.l2->name;
    r["l2_bandwidth"] = roofs.l2->value;
    if (t > 0) r["l2_bandwidth_utilization"] = (*l2_bytes)["measured_l2"].get<double>() / t / roofs.l2->value;
  }
  run["roofline"] = r;
}

}  // namespace lmroof
