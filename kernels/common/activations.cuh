#pragma once
// Elementwise MLP activations shared by the CUDA kernels (include from .cu files only):
//   swiglu   out = silu(g) · u, silu(g) = g / (1 + exp(-g))   (block, mlp)
//   gelu     out = 0.5 · a · (1 + erf(a / √2)), the exact form (mlp)
// over rows of a [tokens, ld] buffer, in fp32 registers whatever the storage type.
// Each thread handles N consecutive elements of one row: kVec<T> (one 16-byte vector)
// when the row length is a multiple of it and every row starts 16-byte aligned, else 1.
// Also the N-element load/store helpers behind them, which the block's RoPE, residual
// add and softmax kernels use too.
#include <cuda_runtime.h>

#include <cstdint>

#include "common/cuda_check.h"
#include "common/cuda_device.cuh"

namespace lmroof::cuda {

// Loads/stores N consecutive elements, as 16-byte vectors when VEC (the caller
// guarantees alignment), else one by one.
template <bool VEC, int N>
__device__ __forceinline__ void load_n(const float* p, float (&out)[N]) {
  if constexpr (VEC && N % 4 == 0) {
#pragma unroll
    for (int k = 0; k < N / 4; ++k) {
      const float4 v = reinterpret_cast<const float4*>(p)[k];
      out[4 * k] = v.x, out[4 * k + 1] = v.y, out[4 * k + 2] = v.z, out[4 * k + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] = p[k];
  }
}
template <bool VEC, int N>
__device__ __forceinline__ void load_n(const bf16* p, float (&out)[N]) {
  if constexpr (VEC && N == 8) {
    load_vec(p, out);
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] = to_float(p[k]);
  }
}
template <bool VEC, typename T, int N>
__device__ __forceinline__ void store_n(T* p, const float (&in)[N]) {
  if constexpr (VEC && N == kVec<T>) {
    store_vec(p, in);
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] = from_float<T>(in[k]);
  }
}

// p is 16-byte aligned and so is every row ld_elements further on.
inline bool rows_aligned16(const void* p, int64_t ld_elements, int elem_bytes) {
  return aligned16(p) && (ld_elements * elem_bytes) % 16 == 0;
}

enum class Activation { gelu, swiglu };

template <Activation A>
__device__ __forceinline__ float activate(float a, float b);
// silu(g)·u. __expf: exp(-g) overflows to inf for g < -88, giving -0 as it should.
template <>
__device__ __forceinline__ float activate<Activation::swiglu>(float g, float u) {
  return g / (1.0f + __expf(-g)) * u;
}
// Exact-erf GeLU (erff, full precision: not the tanh approximation); b unused.
template <>
__device__ __forceinline__ float activate<Activation::gelu>(float a, float) {
  return 0.5f * a * (1.0f + erff(a * 0.70710678118654752f));
}

// The body of both kernels: out[t, j] = act(a[t, j], b[t, j]) for t < tokens, j < F;
// a and b rows ld_in apart (b unused for gelu), out rows ld_out apart. One thread per
// N-element piece of a row.
template <Activation A, typename T, int N, bool VEC>
__device__ __forceinline__ void activation_rows(const T* __restrict__ a, const T* __restrict__ b, int64_t ld_in,
                                                T* __restrict__ out, int64_t ld_out, int64_t tokens, int64_t F) {
  const int64_t per_row = F / N;
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= tokens * per_row) return;
  const int64_t t = idx / per_row, j = (idx % per_row) * N;
  float va[N], vb[N] = {}, vo[N];
  load_n<VEC>(a + t * ld_in + j, va);
  if constexpr (A == Activation::swiglu) load_n<VEC>(b + t * ld_in + j, vb);
#pragma unroll
  for (int k = 0; k < N; ++k) vo[k] = activate<A>(va[k], vb[k]);
  store_n<VEC>(out + t * ld_out + j, vo);
}

// Two kernels rather than one template over Activation: the profiler classifies kernels
// by name (profiler/kernel_trace.cpp: "swiglu", "gelu" -> elementwise).
template <typename T, int N, bool VEC>
__global__ void __launch_bounds__(256)
    swiglu_kernel(const T* __restrict__ g, const T* __restrict__ u, int64_t ld_in, T* __restrict__ out,
                  int64_t ld_out, int64_t tokens, int64_t F) {
  activation_rows<Activation::swiglu, T, N, VEC>(g, u, ld_in, out, ld_out, tokens, F);
}
template <typename T, int N, bool VEC>
__global__ void __launch_bounds__(256)
    gelu_kernel(const T* __restrict__ a, int64_t ld_in, T* __restrict__ out, int64_t ld_out, int64_t tokens,
                int64_t F) {
  activation_rows<Activation::gelu, T, N, VEC>(a, nullptr, ld_in, out, ld_out, tokens, F);
}

// out = silu(g) · u, g and u each [tokens, F] in rows ld_in apart (e.g. the two halves
// of a fused gate|up projection output), out [tokens, F] in rows ld_out apart.
template <typename T>
void launch_swiglu(const T* g, const T* u, int64_t ld_in, T* out, int64_t ld_out, int64_t tokens, int64_t F,
                   cudaStream_t stream) {
  constexpr int V = kVec<T>;
  const bool vec = F % V == 0 && rows_aligned16(g, ld_in, sizeof(T)) && rows_aligned16(u, ld_in, sizeof(T)) &&
                   rows_aligned16(out, ld_out, sizeof(T));
  if (vec)
    swiglu_kernel<T, V, true><<<blocks_for(tokens * (F / V), 256), 256, 0, stream>>>(g, u, ld_in, out, ld_out,
                                                                                     tokens, F);
  else
    swiglu_kernel<T, 1, false><<<blocks_for(tokens * F, 256), 256, 0, stream>>>(g, u, ld_in, out, ld_out, tokens,
                                                                                F);
  CUDA_CHECK_LAUNCH();
}

// out = gelu(a), a [tokens, F] in rows ld_in apart, out [tokens, F] in rows ld_out apart.
template <typename T>
void launch_gelu(const T* a, int64_t ld_in, T* out, int64_t ld_out, int64_t tokens, int64_t F,
                 cudaStream_t stream) {
  constexpr int V = kVec<T>;
  const bool vec = F % V == 0 && rows_aligned16(a, ld_in, sizeof(T)) && rows_aligned16(out, ld_out, sizeof(T));
  if (vec)
    gelu_kernel<T, V, true><<<blocks_for(tokens * (F / V), 256), 256, 0, stream>>>(a, ld_in, out, ld_out, tokens, F);
  else
    gelu_kernel<T, 1, false><<<blocks_for(tokens * F, 256), 256, 0, stream>>>(a, ld_in, out, ld_out, tokens, F);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lmroof::cuda
