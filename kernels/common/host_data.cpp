#include "common/host_data.h"

#include <algorithm>
#include <cmath>

namespace lmroof {

namespace {

// splitmix64's finalizer: a bijective mix whose outputs for consecutive inputs pass
// BigCrush (Steele et al., "Fast splittable pseudorandom number generators", 2014).
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

// Counter-based: element i is a function of (seed, i) alone, so no stream state is
// carried from one element to the next, the loop runs on every thread in any split,
// and the values never depend on the thread count. Why not std::mt19937_64 with
// uniform_real_distribution, as before: preparing the inputs (up to 1 GiB for one
// decode workload of the old default suite) took 22% of `lmroof run --suite decode`'s
// CPU samples on the development VM (perf, 2026-12-04), more than most kernels being
// timed; with this, 9%.
void fill_uniform(std::span<float> data, uint64_t seed, float lo, float hi) {
  const uint64_t key = mix64(seed + 0x9E3779B97F4A7C15ull);
  const auto size = static_cast<int64_t>(data.size());
  const double scale = (static_cast<double>(hi) - lo) / 16777216.0;  // 24 random bits: every float step in [0, 1)
  const float below_hi = std::nextafter(hi, lo);
  float* out = data.data();
#pragma omp parallel for schedule(static) if (size > (int64_t{1} << 20))
  for (int64_t i = 0; i < size; ++i) {
    const uint64_t bits = mix64(key + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i)) >> 40;
    const float v = static_cast<float>(lo + scale * static_cast<double>(bits));
    out[i] = std::min(v, below_hi);  // rounding to float may reach hi: [lo, hi) as documented
  }
}

}  // namespace lmroof
