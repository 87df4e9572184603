#pragma once
// Portable SIMD for the decode CPU kernels: GCC/Clang vector extensions. A vec<W> is
// W floats that the compiler lowers to the host's registers (-march=native: one zmm
// for W = 16 with AVX-512, two ymm with AVX2, SSE or NEON otherwise), so one source
// serves every host; broadcasts use the ISA's instruction where there is one.
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lmroof::decode::simd {

// The host's float vector registers: lanes per register and how many there are.
// A vec<W> wider than kNativeLanes is lowered to several registers (two ymm for a
// vec<16> with AVX2) or, where the compiler gives up, to stack round trips with
// scalar inserts: GCC 12 with -march=x86-64-v3 built the 16-lane P·V tile of
// groups of 8 (32 ymm accumulators) out of spills and vpinsrq, and ran a GQA decode
// step at ~3% of the FMA peak (Zen 3). The kernels therefore size their vectors and
// register tiles from these two constants, not from the widest vec<W> that compiles.
#if defined(__AVX512F__)
inline constexpr int kNativeLanes = 16;
inline constexpr int kVectorRegisters = 32;
#elif defined(__AVX__)
inline constexpr int kNativeLanes = 8;
inline constexpr int kVectorRegisters = 16;
#elif defined(__aarch64__)
inline constexpr int kNativeLanes = 4;  // NEON: 32 128-bit registers
inline constexpr int kVectorRegisters = 32;
#else
inline constexpr int kNativeLanes = 4;  // SSE2 (x86-64 baseline): 16 xmm registers
inline constexpr int kVectorRegisters = 16;
#endif

// (GCC ignores vector_size on a dependent alias template, hence one trait per width.)
template <int W>
struct VecOf;
template <>
struct VecOf<4> {
  typedef float f __attribute__((vector_size(16)));
  typedef int32_t i __attribute__((vector_size(16)));
};
template <>
struct VecOf<8> {
  typedef float f __attribute__((vector_size(32)));
  typedef int32_t i __attribute__((vector_size(32)));
};
template <>
struct VecOf<16> {
  typedef float f __attribute__((vector_size(64)));
  typedef int32_t i __attribute__((vector_size(64)));
};
template <int W>
using vec = typename VecOf<W>::f;
template <int W>
using ivec = typename VecOf<W>::i;

template <int W>
[[gnu::always_inline]] inline vec<W> vload(const float* p) {
  vec<W> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <int W>
[[gnu::always_inline]] inline void vstore(float* p, vec<W> v) {
  std::memcpy(p, &v, sizeof v);
}
// One broadcast instruction where the ISA has it (an element-wise fill is not always
// recognised as one, and `vec{} + s` is a real add without -ffast-math).
template <int W>
[[gnu::always_inline]] inline vec<W> vsplat(float s) {
#ifdef __AVX512F__
  if constexpr (W == 16) return reinterpret_cast<vec<W>>(_mm512_set1_ps(s));
#endif
#ifdef __AVX__
  if constexpr (W == 8) return reinterpret_cast<vec<W>>(_mm256_set1_ps(s));
#endif
  return vec<W>{} + s;
}
// The pair p[0], p[1] in every two lanes: one 64-bit broadcast where the ISA has it
// (the pair tiles of the decode kernels multiply it by two elements of each query).
template <int W>
[[gnu::always_inline]] inline vec<W> vsplat_pair(const float* p) {
  double pair;
  std::memcpy(&pair, p, sizeof pair);
#ifdef __AVX512F__
  if constexpr (W == 16) return reinterpret_cast<vec<W>>(_mm512_set1_pd(pair));
#endif
#ifdef __AVX__
  if constexpr (W == 8) return reinterpret_cast<vec<W>>(_mm256_set1_pd(pair));
#endif
  vec<W> v;
  for (int i = 0; i < W; ++i) v[i] = p[i % 2];
  return v;
}
template <int W>
[[gnu::always_inline]] inline vec<W> vmax(vec<W> a, vec<W> b) {
  return a > b ? a : b;
}

// exp(x) for every lane (Cephes expf: range reduction by ln 2, degree-6 polynomial,
// 2^n into the exponent): ~2 ulp. Inputs are clamped to [-87.3, 88.3], so exp(-inf)
// gives ~1e-38 instead of 0, harmless where it is used (the first block's rescaling
// of a zero accumulator and sum).
template <int W>
[[gnu::always_inline]] inline vec<W> vexp(vec<W> x) {
  const vec<W> lo = vsplat<W>(-87.3f), hi = vsplat<W>(88.3f);
  x = x < lo ? lo : x;
  x = x > hi ? hi : x;
  const vec<W> magic = vsplat<W>(12582912.f);  // 1.5·2^23: adding it rounds to an integer
  const vec<W> n = (x * 1.44269504088896341f + magic) - magic;
  const vec<W> r = x - n * 0.693359375f + n * 2.12194440e-4f;
  vec<W> p = vsplat<W>(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const ivec<W> bits = (__builtin_convertvector(n, ivec<W>) + 127) << 23;
  vec<W> scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// Sum of the lanes as a tree of half-width adds (a lane-by-lane loop compiles to a
// chain of dependent scalar adds).
template <int W>
[[gnu::always_inline]] inline float vsum(vec<W> v) {
  if constexpr (W == 16 || W == 8) {
    vec<W / 2> lo, hi;
    std::memcpy(&lo, &v, sizeof lo);
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
    return vsum<W / 2>(lo + hi);
  } else {
    return (v[0] + v[2]) + (v[1] + v[3]);
  }
}


}  // namespace lmroof::decode::simd
