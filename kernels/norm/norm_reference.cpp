#include <cmath>

#include "common/host_data.h"
#include "norm/norm.h"

namespace lmroof::norm {

void reference(Kind kind, Dims d, std::span<const float> x, std::span<const float> gamma,
               std::span<const float> beta, std::span<double> y) {
  const int64_t D = d.d_model;
  for (int64_t t = 0; t < d.tokens; ++t) {
    const float* row = x.data() + t * D;
    double* out = y.data() + t * D;
    if (kind == Kind::layernorm) {
      double mean = 0;
      for (int64_t i = 0; i < D; ++i) mean += row[i];
      mean /= D;
      double var = 0;
      for (int64_t i = 0; i < D; ++i) var += (row[i] - mean) * (row[i] - mean);
      var /= D;
      const double rstd = 1.0 / std::sqrt(var + kEps);
      for (int64_t i = 0; i < D; ++i) out[i] = (row[i] - mean) * rstd * gamma[i] + beta[i];
    } else {
      double ms = 0;
      for (int64_t i = 0; i < D; ++i) ms += static_cast<double>(row[i]) * row[i];
      ms /= D;
      const double rstd = 1.0 / std::sqrt(ms + kEps);
      for (int64_t i = 0; i < D; ++i) out[i] = row[i] * rstd * gamma[i];
    }
  }
}

void fill_inputs(uint64_t seed, std::span<float> x, std::span<float> gamma, std::span<float> beta) {
  fill_uniform(x, seed, -2.f, 2.f);
  fill_uniform(gamma, seed + 1, 0.5f, 1.5f);
  fill_uniform(beta, seed + 2, -0.5f, 0.5f);
}

}  // namespace lmroof::norm
