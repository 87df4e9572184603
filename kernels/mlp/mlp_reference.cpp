#include <cmath>
#include <vector>

#include "common/host_data.h"
#include "mlp/mlp.h"

namespace lmroof::mlp {

void reference(Kind kind, Dims d, std::span<const float> x, std::span<const float> w_in,
               std::span<const float> w_out, std::span<double> y) {
  const int64_t D = d.d_model, F = d.d_ff;
  std::vector<double> h(F);
  for (int64_t t = 0; t < d.tokens; ++t) {
    const float* xr = x.data() + t * D;
    for (int64_t f = 0; f < F; ++f) {
      double a = 0, b = 0;
      for (int64_t i = 0; i < D; ++i) a += static_cast<double>(w_in[f * D + i]) * xr[i];
      if (kind == Kind::gelu) {
        h[f] = 0.5 * a * (1 + std::erf(a / std::sqrt(2.0)));
      } else {
        for (int64_t i = 0; i < D; ++i) b += static_cast<double>(w_in[(F + f) * D + i]) * xr[i];
        h[f] = a / (1 + std::exp(-a)) * b;
      }
    }
    for (int64_t o = 0; o < D; ++o) {
      double acc = 0;
      for (int64_t f = 0; f < F; ++f) acc += static_cast<double>(w_out[o * F + f]) * h[f];
      y[t * D + o] = acc;
    }
  }
}

void fill_inputs(Dims d, uint64_t seed, std::span<float> x, std::span<float> w_in, std::span<float> w_out) {
  const float a = 1.f / std::sqrt(static_cast<float>(d.d_model)), b = 1.f / std::sqrt(static_cast<float>(d.d_ff));
  fill_uniform(x, seed, -1.f, 1.f);
  fill_uniform(w_in, seed + 1, -a, a);
  fill_uniform(w_out, seed + 2, -b, b);
}

}  // namespace lmroof::mlp
