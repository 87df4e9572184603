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

// tanh(x): (1 − e)/(1 + e) with e = exp(−2|x|), and for |x| < 0.25, where 1 − e would
// cancel, the Taylor series to x⁹ (next term < 3e-9 relative). A few ulp throughout.
inline float fast_tanh(float x) {
  const float a = std::abs(x);
  const float e = fast_exp(-2.0f * a);
  const float big = (1.0f - e) / (1.0f + e);
  const float a2 = a * a;
  const float small =
      a * (1.0f + a2 * (-1.0f / 3 + a2 * (2.0f / 15 + a2 * (-17.0f / 315 + a2 * (62.0f / 2835)))));
  const float t = a < 0.25f ? small : big;
  return x < 0 ? -t : t;
}

}  // namespace lmroof
