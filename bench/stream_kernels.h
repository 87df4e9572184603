#pragma once
// The streaming loops the DRAM roofs are measured with, shared by the ceiling
// benchmarks (bench/ceilings_cpu.cpp) and the probes taken next to each
// DRAM-resident run (bench/dram_probe.h), so both measure the same thing.
#include <cstdint>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

namespace lmroof::bench {

// Element-wise copy written with explicit vector stores so the compiler cannot
// turn it into memcpy (whose non-temporal path would measure a different roof).
// kStreaming uses streaming (non-temporal) stores, which skip the read of each
// destination line that an ordinary store triggers (write-allocate): kernels that
// stream their output (the fused norms) can reach that roof, the higher one.
template <bool kStreaming>
inline void copy_kernel(const float* __restrict a, float* __restrict b, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i += 16) {
#ifdef __AVX512F__
    if constexpr (kStreaming)
      _mm512_stream_ps(b + i, _mm512_loadu_ps(a + i));
    else
      _mm512_storeu_ps(b + i, _mm512_loadu_ps(a + i));
#else
    for (int j = 0; j < 16; ++j) b[i + j] = a[i + j];
#endif
  }
#ifdef __AVX512F__
  if constexpr (kStreaming) _mm_sfence();
#endif
}

// Sums n floats (n a multiple of 128) into eight independent accumulators: one
// vector load per add, no stores, so the loop is as fast as the loads are served.
inline float sum_floats(const float* __restrict a, int64_t n) {
#ifdef __AVX512F__
  __m512 acc[8];
  for (auto& v : acc) v = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 128)
    for (int u = 0; u < 8; ++u) acc[u] = _mm512_add_ps(acc[u], _mm512_load_ps(a + i + 16 * u));
  for (int u = 1; u < 8; ++u) acc[0] = _mm512_add_ps(acc[0], acc[u]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, acc[0]);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
#else
  float acc[8][16] = {};
  for (int64_t i = 0; i < n; i += 128)
    for (int u = 0; u < 8; ++u)
#pragma omp simd
      for (int l = 0; l < 16; ++l) acc[u][l] += a[i + 16 * u + l];
  float total = 0;
  for (auto& row : acc)
    for (float v : row) total += v;
  return total;
#endif
}

}  // namespace lmroof::bench
