// The kernels behind tests/cupti_test_kernels.h. Their floating-point instruction mix
// is what the CUPTI tests count: the FMA kernel's PTX holds only fma.rn.f32 (an
// unrolled-by-4 loop and its remainder, `iterations` FMAs per thread in all).
#include <cstdint>

#include "common/cuda_check.h"
#include "cupti_test_kernels.h"

namespace lmroof::test {

namespace {

__global__ void cupti_test_copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

__global__ void cupti_test_fma_kernel(float* __restrict__ out, const float* __restrict__ in, int n, int iterations,
                                      float a, float b) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  float acc = in[i];
  for (int k = 0; k < iterations; ++k) acc = fmaf(acc, a, b);
  out[i] = acc;
}

__global__ void cupti_test_scale_kernel(float* data, size_t n, float s) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) data[i] *= s;
}

unsigned grid_for(size_t n, unsigned block) {
  int sms = 0;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const size_t blocks = (n + block - 1) / block;
  const size_t cap = static_cast<size_t>(sms) * 8;  // grid-stride beyond 8 blocks per SM
  return static_cast<unsigned>(blocks < cap ? (blocks > 0 ? blocks : 1) : cap);
}

}  // namespace

void launch_copy(const void* src, void* dst, size_t bytes, cudaStream_t stream) {
  const size_t n = bytes / sizeof(uint4);
  cupti_test_copy_kernel<<<grid_for(n, 256), 256, 0, stream>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst),
                                                               n);
  CUDA_CHECK_LAUNCH();
}

void launch_fma(float* out, const float* in, int n, int iterations, float a, float b, cudaStream_t stream) {
  cupti_test_fma_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(out, in, n, iterations, a, b);
  CUDA_CHECK_LAUNCH();
}

void launch_scale(float* data, size_t n, float s, cudaStream_t stream) {
  cupti_test_scale_kernel<<<grid_for(n, 256), 256, 0, stream>>>(data, n, s);
  CUDA_CHECK_LAUNCH();
}

}  // namespace lmroof::test
