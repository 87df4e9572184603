#include "common/host_data.h"

#include <algorithm>

namespace lmroof {

namespace {
void fill_serial(std::span<float> data, uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (auto& v : data) v = dist(rng);
}
}  // namespace

void fill_uniform(std::span<float> data, uint64_t seed, float lo, float hi) {
  constexpr int64_t kChunk = int64_t{1} << 20;
  const auto size = static_cast<int64_t>(data.size());
  if (size <= kChunk) return fill_serial(data, seed, lo, hi);
  const int64_t chunks = (size + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(dynamic)
  for (int64_t c = 0; c < chunks; ++c) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(c + 1);  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    fill_serial(data.subspan(c * kChunk, std::min(kChunk, size - c * kChunk)), z, lo, hi);
  }
}

}  // namespace lmroof
