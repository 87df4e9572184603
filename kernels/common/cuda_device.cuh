#pragma once
// Device-side helpers shared by the CUDA kernels (include from .cu files only):
// bf16/fp32 conversion, 16-byte vector loads and stores, warp and block reductions.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/run_names/workload.h"

namespace lmroof::cuda {

using bf16 = __nv_bfloat16;

// The storage type of a DType, for dispatch: with_storage_type(dtype, [&]<typename T>() {...}).
template <typename F>
decltype(auto) with_storage_type(DType dtype, F&& f) {
  if (dtype == DType::bf16) return f.template operator()<bf16>();
  return f.template operator()<float>();
}

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(bf16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ bf16 from_float<bf16>(float v) {
  return __float2bfloat16_rn(v);
}

// Elements of T in one 16-byte access.
template <typename T>
inline constexpr int kVec = 16 / static_cast<int>(sizeof(T));

// 16-byte load of kVec<T> elements, widened to float. p must be 16-byte aligned.
__device__ __forceinline__ void load_vec(const float* p, float (&out)[4]) {
  const float4 v = *reinterpret_cast<const float4*>(p);
  out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
}
__device__ __forceinline__ void load_vec(const bf16* p, float (&out)[8]) {
  const uint4 raw = *reinterpret_cast<const uint4*>(p);
  const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&words[i]));
    out[2 * i] = f.x, out[2 * i + 1] = f.y;
  }
}
// Same, with the evict-first hint for data read exactly once (streamed past L2).
__device__ __forceinline__ void load_vec_stream(const float* p, float (&out)[4]) {
  const float4 v = __ldcs(reinterpret_cast<const float4*>(p));
  out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
}
__device__ __forceinline__ void load_vec_stream(const bf16* p, float (&out)[8]) {
  const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(p));
  const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&words[i]));
    out[2 * i] = f.x, out[2 * i + 1] = f.y;
  }
}

// The raw 16 bytes, to keep in registers (half the registers of floats for bf16),
// and their widening to kVec<T> floats.
__device__ __forceinline__ uint4 load_raw_stream(const void* p) { return __ldcs(reinterpret_cast<const uint4*>(p)); }
__device__ __forceinline__ void unpack(const uint4& raw, float (&out)[4]) {
  out[0] = __uint_as_float(raw.x), out[1] = __uint_as_float(raw.y);
  out[2] = __uint_as_float(raw.z), out[3] = __uint_as_float(raw.w);
}
__device__ __forceinline__ void unpack(const uint4& raw, float (&out)[8]) {
  const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&words[i]));
    out[2 * i] = f.x, out[2 * i + 1] = f.y;
  }
}

// 16-byte store of kVec<T> floats narrowed to T (bf16: round to nearest even).
__device__ __forceinline__ void store_vec(float* p, const float (&in)[4]) {
  *reinterpret_cast<float4*>(p) = make_float4(in[0], in[1], in[2], in[3]);
}
__device__ __forceinline__ void store_vec(bf16* p, const float (&in)[8]) {
  uint32_t words[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(in[2 * i], in[2 * i + 1]);
    words[i] = *reinterpret_cast<const uint32_t*>(&h);
  }
  *reinterpret_cast<uint4*>(p) = make_uint4(words[0], words[1], words[2], words[3]);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Sum over the THREADS threads that share a row: a warp (THREADS = 32, no shared
// memory, no barrier) or a whole block (THREADS = blockDim.x, `scratch` holds
// THREADS/32 floats and must not be reused before the next __syncthreads()).
// Every thread of the group must call it; every thread gets the total.
template <int THREADS>
__device__ __forceinline__ float group_sum(float v, float* scratch) {
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "a warp or a block of whole warps");
  v = warp_sum(v);
  if constexpr (THREADS == 32) {
    return v;
  } else {
    constexpr int kWarps = THREADS / 32;
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    float total = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) total += scratch[w];
    return total;
  }
}

// Deterministic uniform values in [-scale, scale) (splitmix64 of seed and index), filled
// on the device: the benchmark inputs of the pairs whose buffers run to GiBs (attention,
// decode), ready in milliseconds; validation uploads host-generated data instead.
template <typename T>
__global__ void fill_uniform_kernel(T* data, size_t count, uint64_t seed, float scale) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    data[i] = from_float<T>((static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f) * scale);
  }
}
template <typename T>
void fill_uniform_on_device(T* data, size_t count, uint64_t seed, float scale, cudaStream_t stream) {
  fill_uniform_kernel<T><<<1024, 256, 0, stream>>>(data, count, seed, scale);
}

inline bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

inline unsigned blocks_for(int64_t work, int64_t per_block) {
  return static_cast<unsigned>((work + per_block - 1) / per_block);
}

}  // namespace lmroof::cuda
