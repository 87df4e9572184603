#pragma once
// The MLP of a transformer block, SwiGLU vs GeLU, at equal parameter count:
//   gelu:   y = W2 · gelu(W1 · x),                 d_ff = 4·d        (2 matrices)
//   swiglu: y = Wd · (silu(Wg · x) ⊙ (Wu · x)),    d_ff = 8/3·d      (3 matrices)
// rounded up to a multiple of 64 as LLaMA does, so the parameters (and FLOPs) of
// SwiGLU match the 4·d GeLU MLP up to that rounding. No biases. GeLU is the exact
// erf form. The d_ff of each variant is derived from d_model (a variant dimension)
// unless the shape names it (a model's own width: docs/models.md).
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "kernels/run_names/cost.h"
#include "kernels/run_names/workload.h"

namespace lmroof::mlp {

enum class Kind { gelu, swiglu };
Kind parse_kind(std::string_view variant);

struct Dims {
  int64_t tokens;
  int64_t d_model;
  int64_t d_ff;
};
Dims dims_of(const Shape& shape);

int64_t default_d_ff(Kind kind, int64_t d_model);  // 4·d, or 8/3·d rounded up to 64
Shape complete_shape(Kind kind, const Shape& shape);

// Weights: W1/Wg/Wu are [d_ff, d_model], W2/Wd is [d_model, d_ff] (nn.Linear layout).
int64_t parameter_count(Kind kind, Dims d);
Cost cost(Kind kind, Dims d, int element_bytes);

// float64 reference. w_in holds W1 (gelu) or [Wg; Wu] stacked (swiglu): d_ff or 2·d_ff rows.
void reference(Kind kind, Dims d, std::span<const float> x, std::span<const float> w_in,
               std::span<const float> w_out, std::span<double> y);

// The inputs of one workload, drawn from a seed: x in ±1, each weight in ±1/sqrt(fan_in)
// (so that activations stay O(1), as an initialised model's do). The one recipe the
// CPU and CUDA workloads share (the CUDA one rounds them to its dtype after).
void fill_inputs(Dims d, uint64_t seed, std::span<float> x, std::span<float> w_in, std::span<float> w_out);

std::unique_ptr<Workload> make_cpu(const RunSpec& spec);
std::unique_ptr<Workload> make_cuda(const RunSpec& spec);  // kernels/mlp/mlp_cuda.cu

}  // namespace lmroof::mlp
