#include "analysis/predict/measured_device.h"

#include <fmt/format.h>

#include "analysis/model/input_error.h"
#include "analysis/text/numbers.h"

namespace lmroof::predict {

Device device_from_results(const model::Results& r, const std::string& origin, std::optional<double> memory) {
  auto roof = [&](const std::optional<std::string>& name, const char* what) -> const model::Ceiling& {
    const model::Ceiling* c = name ? r.ceiling(*name) : nullptr;
    if (!c) throw model::InputError(fmt::format("--device {}: has no {} ceiling to predict from", origin, what));
    return *c;
  };
  // A decode step mostly reads (weights, KV cache): the DRAM read sweep when the run has
  // one (CPU "read", CUDA "dram_read"), else the roofline's bandwidth roof.
  const model::Ceiling* read = r.ceiling("read") ? r.ceiling("read") : r.ceiling("dram_read");
  const model::Ceiling& bandwidth = read ? *read : roof(r.roofs.bandwidth, "bandwidth");
  const model::Ceiling& compute = roof(r.roofs.matrix ? r.roofs.matrix : r.roofs.vector, "matrix or vector");
  Device d;
  d.name = fmt::format("this ({})", r.machine.gpu ? r.machine.gpu->name : r.machine.cpu_model);
  d.architecture = "measured";
  d.memory_bytes = memory;
  d.bandwidth_bytes_per_s = bandwidth.value;
  for (const char* dtype : {"bf16", "fp16", "fp8", "fp32"}) d.dense_peak_flops.emplace(dtype, compute.value);
  if (const model::Ceiling* launch = r.roofs.launch ? r.ceiling(*r.roofs.launch) : nullptr) {
    d.launch_s = launch->value;
    d.launch_source = fmt::format("{}: ceiling '{}', {} ({})", origin, launch->name, numbers::si(launch->value, "s"),
                                  launch->detail);
  } else {
    d.launch_s = 0;
    d.launch_source = r.roofs.launch_reason.value_or("not measured: these ceilings have no launch ceiling");
  }
  d.source = fmt::format("{}: ceilings '{}' ({:.3g} B/s) and '{}' ({:.3g} FLOP/s, as measured, for every dtype){}", origin,
                         bandwidth.name, bandwidth.value, compute.name, compute.value,
                         memory ? "" : "; memory size not recorded in results.json");
  return d;
}

}  // namespace lmroof::predict
