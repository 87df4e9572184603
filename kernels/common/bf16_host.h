#pragma once
// bfloat16 on the host, without CUDA headers: the bit patterns the device stores
// (round to nearest even, as __float2bfloat16 does) and what they read back as.
// Used to upload bf16 inputs and to give the float64 reference exactly the values
// the kernels see, so a tolerance measures the kernel and not the input rounding.
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>

namespace lmroof {

inline uint16_t float_to_bf16_bits(float f) {
  if (std::isnan(f)) return 0x7FC0;
  uint32_t u = std::bit_cast<uint32_t>(f);
  u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest, ties to even
  return static_cast<uint16_t>(u >> 16);
}

inline float bf16_bits_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline float round_to_bf16(float f) { return bf16_bits_to_float(float_to_bf16_bits(f)); }

inline void round_to_bf16(std::span<float> data) {
  for (auto& v : data) v = round_to_bf16(v);
}

}  // namespace lmroof
