#include "analysis/predict/measured_device.h"

#include <fmt/format.h>

#include "analysis/model/input_error.h"
#include "analysis/numbers/numbers.h"

#include <string_view>
#include <vector>

namespace lmroof::predict {

namespace {

// The dtype a compute ceiling measures, from its name (bench/ceilings_*.cpp: "sgemm"
// and "fp32_fma" are fp32, "bf16_tensor_gemm" is bf16); nullopt when the name says none.
std::optional<std::string> ceiling_dtype(std::string_view name) {
  if (name.find("bf16") != std::string_view::npos) return "bf16";
  if (name.find("fp16") != std::string_view::npos || name.find("hgemm") != std::string_view::npos) return "fp16";
  if (name.find("fp8") != std::string_view::npos) return "fp8";
  if (name.find("fp32") != std::string_view::npos || name == "sgemm") return "fp32";
  return std::nullopt;
}

}  // namespace

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
  const model::Ceiling* vector = r.roofs.vector ? r.ceiling(*r.roofs.vector) : nullptr;
  Device d;
  d.name = fmt::format("this ({})", r.machine.gpu ? r.machine.gpu->name : r.machine.cpu_model);
  d.architecture = "measured";
  d.memory_bytes = memory;
  d.bandwidth_bytes_per_s = bandwidth.value;
  // Each peak only for the dtype its ceiling measured: an fp32 sgemm is no bf16 peak,
  // and a CPU measures no bf16 peak at all (prediction.cpp then says so, with no timings).
  // A 16-bit tensor ceiling stands for both 16-bit types: they run at one tensor rate.
  for (const model::Ceiling* c : {&compute, vector}) {
    if (!c) continue;
    const auto dtype = ceiling_dtype(c->name);
    if (!dtype) continue;
    d.peaks_measured += fmt::format("{}'{}' ({})", d.peaks_measured.empty() ? "" : ", ", c->name, *dtype);
    std::vector<std::string> dtypes{*dtype};
    if (*dtype == "bf16") dtypes.push_back("fp16");
    if (*dtype == "fp16") dtypes.push_back("bf16");
    for (const auto& t : dtypes)
      if (d.dense_peak_flops.emplace(t, c->value).second)
        d.peak_sources.emplace(t, fmt::format("measured ceiling '{}', {}", c->name, *dtype));
  }
  d.peaks_measured = d.peaks_measured.empty() ? "no compute ceiling of a known dtype was measured"
                                              : "compute ceilings measured: " + d.peaks_measured;
  if (const model::Ceiling* launch = r.roofs.launch ? r.ceiling(*r.roofs.launch) : nullptr) {
    d.launch_s = launch->value;
    d.launch_source = fmt::format("{}: ceiling '{}', {} ({})", origin, launch->name, numbers::si(launch->value, "s"),
                                  launch->detail);
  } else {
    d.launch_s = 0;
    d.launch_source = r.roofs.launch_reason.value_or("not measured: these ceilings have no launch ceiling");
  }
  d.source = fmt::format("{}: ceilings '{}' ({:.3g} B/s) and '{}' ({:.3g} FLOP/s, {}){}", origin, bandwidth.name,
                         bandwidth.value, compute.name, compute.value,
                         ceiling_dtype(compute.name).value_or("dtype not known"),
                         memory ? "" : "; memory size not recorded in results.json");
  return d;
}

}  // namespace lmroof::predict
