#pragma once
// Linear layer with and without bias: y = x·Wᵀ (+ b).
// x [tokens, in_features], W [out_features, in_features] (the PyTorch nn.Linear
// layout), b [out_features], y [tokens, out_features]; the GEMM is OpenBLAS sgemm.
// Variants: "nobias" (the GEMM alone) and "bias". Implementation levels: "fused"
// (the bias add costs no pass over y of its own: see bias_cpu.cpp) and "unfused" (the
// GEMM, then a separate pass y += b, as an eager framework runs addmm's fallback or
// matmul followed by add). nobias has only "fused": without a bias there is nothing
// to fuse.
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "kernels/run_names/cost.h"
#include "kernels/run_names/workload.h"

namespace lmroof::bias {

enum class Kind { nobias, bias };
Kind parse_kind(std::string_view variant);

struct Dims {
  int64_t tokens;
  int64_t in_features;
  int64_t out_features;
};
Dims dims_of(const Shape& shape);

// Checks the dimensions and returns {tokens, in_features, out_features}; throws
// std::invalid_argument with a reason.
Shape complete_shape(const Shape& shape);

// `fused` is ignored for nobias (the GEMM alone is its only level).
Cost cost(Kind kind, bool fused, Dims d, int element_bytes);

// float64 reference; b ignored for nobias.
void reference(Kind kind, Dims d, std::span<const float> x, std::span<const float> w, std::span<const float> b,
               std::span<double> y);

// CPU kernels. cpu_fused handles both variants; cpu_unfused is the bias variant only.
void cpu_fused(Kind kind, Dims d, const float* x, const float* w, const float* b, float* y);
void cpu_unfused(Dims d, const float* x, const float* w, const float* b, float* y);

// The inputs of one workload, drawn from a seed, all uniform in ±1: the one recipe the
// CPU and CUDA workloads share (the CUDA one rounds them to its dtype after).
void fill_inputs(uint64_t seed, std::span<float> x, std::span<float> w, std::span<float> b);

std::unique_ptr<Workload> make_cpu(const RunSpec& spec);
std::unique_ptr<Workload> make_cuda(const RunSpec& spec);  // kernels/bias/bias_cuda.cu

}  // namespace lmroof::bias
