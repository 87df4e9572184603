#pragma once
// Vectorisable exp and tanh for the CPU kernels (inline, branch-free, so that
// `#pragma omp simd` loops calling them compile to AVX-512): the block's softmax and
// SwiGLU, the stability pair's cross-entropy, softmax and soft-capping, the attention
// prefill's softmax and the portable decode kernel's.
#include <algorithm>
#include <bit>
#include <cstdint>

namespace lmroof {

// exp(x) (Cephes expf: x = n·ln 2 + r with |r| <= ln 2 / 2, exp(r) by a degree-5
// polynomial, 2^n by building the exponent bits; ~2 ulp). Inputs below -87 give
// ~1e-38 instead of 0 and inputs above 88 saturate: harmless for softmax (x <= 0),
// silu and tanh. A NaN input comes out finite (the clamps drop it), unlike std::exp:
// the reference comparisons, not this function, are where a NaN would show.
inline float fast_exp(float x_in) {
  const float x = std::min(88.0f, std::max(-87.0f, x_in));
  // n = round(x / ln 2) by the 1.5·2^23 trick (std::floor would block vectorisation)
  const float fx = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (x - fx * 0.693359375f) - fx * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  const int32_t e = (static_cast<int32_t>(fx) + 127) << 23;
  return y * std::bit_cast<float>(e);
}

// tanh(x): an odd degree-13 polynomial over an even degree-6 one (the rational form
// and coefficients of Eigen's float tanh), x clamped to ±7.905, past which tanh rounds
// to ±1 in float. Max relative error against std::tanh in double over [-20, 20] in
// steps of 1e-5: 2.7e-7 where the compiler contracts the Horner steps into FMAs (-O2
// and up for an FMA target: the default and portable builds), 3.95e-7 without (a
// target without FMA, or -O1: the sanitizer build), measured 2026-12-03 with GCC 12;
// and it keeps tanh(x) ≈ x for tiny x. It replaced
// (1 − e)/(1 + e) with e = exp(−2|x|) and a Taylor series below 0.25 (2.1e-7), which
// took an exp, two selects and twice the constants: one thread, a 32000-float row in
// L2, 0.28 against 0.50–0.53 ns per element alone, 0.69 against 0.97–1.09 ns inside
// the soft-capped logsumexp loop (development machine, 2026-12-01).
inline float fast_tanh(float x_in) {
  const float x = std::min(7.90531110763549805f, std::max(-7.90531110763549805f, x_in));
  const float x2 = x * x;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  return x * p / q;
}

}  // namespace lmroof
