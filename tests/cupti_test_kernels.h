#pragma once
// Tiny kernels of known cost for tests/test_cupti_gpu.cpp (defined in
// tests/test_cupti_kernels.cu, compiled only with CUDA). Each only enqueues on `stream`.
#include <cuda_runtime.h>

#include <cstddef>

namespace lmroof::test {

// dst[i] = src[i] for `bytes` bytes (a multiple of 16), 16-byte loads and stores:
// reads exactly `bytes` and writes exactly `bytes` (full 32-byte sectors).
void launch_copy(const void* src, void* dst, size_t bytes, cudaStream_t stream);

// out[i] = (iterations times acc = fmaf(acc, a, b)) starting from in[i], for i < n:
// n·iterations FFMA thread instructions and no other floating-point instruction,
// i.e. 2·n·iterations FP32 FLOPs. n must be a multiple of 256.
void launch_fma(float* out, const float* in, int n, int iterations, float a, float b, cudaStream_t stream);

// data[i] *= s, a second kernel with another name for the trace test.
void launch_scale(float* data, size_t n, float s, cudaStream_t stream);

}  // namespace lmroof::test
