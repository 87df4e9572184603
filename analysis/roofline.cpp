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
                      {"efficiency", nullptr}, {"bandwidth_utilization", nullptr}};
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
  run["roofline"] = r;
}

}  // namespace lmroof
