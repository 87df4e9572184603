#pragma once
// Host-side helpers shared by every CPU kernel, reference and test: random
// inputs, output poisoning and the norm-wise error used for validation.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace lmroof {

// Uniform values in [lo, hi) on a 2^-24 grid of the range. Element i is a hash of
// (seed, i) (host_data.cpp says why), so the values depend on the seed only, never on
// the thread count, and spans over 1 Mi elements are filled on all threads (inputs
// reach GBs for the GPU suite).
void fill_uniform(std::span<float> data, uint64_t seed, float lo = -1.f, float hi = 1.f);

// Fills with NaN so that an element a kernel forgot to write fails validation.
inline void poison(std::span<float> data) {
  for (auto& v : data) v = std::numeric_limits<float>::quiet_NaN();
}

inline std::vector<double> to_double(std::span<const float> data) { return {data.begin(), data.end()}; }

// ||out - ref||_2 / ||ref||_2. NaN anywhere in out gives NaN, which fails every tolerance.
// `floor_rms` > 0: a reference whose RMS is under it counts as that RMS, so outputs
// that can be near zero (per-token losses, in nats) are held to an absolute error
// there instead of a relative error of a vanishing norm.
template <typename T>
double relative_error(std::span<const T> out, std::span<const double> ref, double floor_rms = 0) {
  if (out.size() != ref.size()) return std::numeric_limits<double>::infinity();
  double diff2 = 0, ref2 = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const double d = static_cast<double>(out[i]) - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
  }
  ref2 = std::max(ref2, floor_rms * floor_rms * static_cast<double>(out.size()));
  if (ref2 == 0) return std::sqrt(diff2);
  return std::sqrt(diff2 / ref2);
}

}  // namespace lmroof
