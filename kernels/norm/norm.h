#pragma once
// LayerNorm vs RMSNorm over the last dimension of a [tokens, d_model] tensor.
// LayerNorm: y = (x - mean) / sqrt(var + eps) * gamma + beta
// RMSNorm:   y = x / sqrt(mean(x^2) + eps) * gamma
// Implementation levels: "unfused" runs one pass over memory per primitive, as an
// eager framework launches them; "fused" reads x once and writes y once.
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/run_names/cost.h"
#include "kernels/run_names/workload.h"

namespace lmroof::norm {

inline constexpr float kEps = 1e-5f;

enum class Kind { layernorm, rmsnorm };
Kind parse_kind(std::string_view variant);

struct Dims {
  int64_t tokens;
  int64_t d_model;
};
Dims dims_of(const Shape& shape);

// One pass over memory of the unfused implementation, in elements.
struct Pass {
  const char* what;
  double read_elements;
  double write_elements;
};
// The unfused implementation's passes, in order: the cost model sums them and the
// CPU and CUDA unfused kernels follow the same list.
std::vector<Pass> unfused_passes(Kind kind, Dims d);

Cost cost(Kind kind, bool fused, Dims d, int element_bytes);

// float64 reference; gamma/beta as given (beta ignored for RMSNorm).
void reference(Kind kind, Dims d, std::span<const float> x, std::span<const float> gamma,
               std::span<const float> beta, std::span<double> y);

// CPU kernels. `scratch` must hold 2 * tokens * d_model + 4 * tokens floats (unfused only).
void cpu_fused(Kind kind, Dims d, const float* x, const float* gamma, const float* beta, float* y);
void cpu_unfused(Kind kind, Dims d, const float* x, const float* gamma, const float* beta, float* y,
                 float* scratch);
size_t cpu_unfused_scratch_floats(Dims d);

// The inputs of one workload, drawn from a seed: x in ±2, gamma in [0.5, 1.5), beta in
// ±0.5. The one recipe the CPU and CUDA workloads share (the CUDA one rounds them to
// its dtype after).
void fill_inputs(uint64_t seed, std::span<float> x, std::span<float> gamma, std::span<float> beta);

std::unique_ptr<Workload> make_cpu(const RunSpec& spec);
std::unique_ptr<Workload> make_cuda(const RunSpec& spec);  // kernels/norm/norm_cuda.cu

}  // namespace lmroof::norm
