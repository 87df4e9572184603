#include "bias/bias.h"
#include "common/host_data.h"

namespace lmroof::bias {

void reference(Kind kind, Dims d, std::span<const float> x, std::span<const float> w, std::span<const float> b,
               std::span<double> y) {
  const int64_t I = d.in_features, O = d.out_features;
  // Rows are independent; threads only make a large reference bearable, the sums stay float64.
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < d.tokens; ++t) {
    const float* xr = x.data() + t * I;
    for (int64_t o = 0; o < O; ++o) {
      const float* wr = w.data() + o * I;
      double acc = kind == Kind::bias ? static_cast<double>(b[o]) : 0.0;
      for (int64_t i = 0; i < I; ++i) acc += static_cast<double>(xr[i]) * wr[i];
      y[t * O + o] = acc;
    }
  }
}

void fill_inputs(uint64_t seed, std::span<float> x, std::span<float> w, std::span<float> b) {
  fill_uniform(x, seed);
  fill_uniform(w, seed + 1);
  fill_uniform(b, seed + 2);
}

}  // namespace lmroof::bias
