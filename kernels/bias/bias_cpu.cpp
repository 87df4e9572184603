// CPU kernels for the bias pair. The GEMM is OpenBLAS sgemm (row-major x·Wᵀ);
// "fused" adds the bias without a pass over y of its own, "unfused" runs the GEMM
// and then one OpenMP pass y += b over y, as an eager framework does.
#include <cblas.h>

#include <algorithm>
#include <vector>

#include "common/host_buffer.h"
#include "common/cpu_validation.h"
#include "common/host_data.h"
#include "bias/bias.h"

namespace lmroof::bias {

namespace {

// Every level runs the same GEMM call: y is initialised in one OpenMP pass (each row
// set to `row`: zeros, or b), then sgemm accumulates y += x·Wᵀ with beta = 1.
//
// Why the bias broadcast counts as fused: OpenBLAS's level-3 driver
// (driver/level3/level3.c) runs a separate pass over C whenever beta != 1 (for
// beta = 0 it writes zeros over C), and its micro-kernel then always accumulates
// C += A·B, reading C back for every K block. So a GEMM is "initialise C, then
// accumulate" whatever the caller asks for; writing b instead of zeros in that
// initialisation adds no pass over y, only a read of b (O floats): the traffic a
// GEMM with a bias epilogue has relative to one without.
//
// The zeros are written here rather than by sgemm's beta = 0 so that nobias and
// bias run the identical sgemm call: OpenBLAS's own beta = 0 pass was 1-1.5 ms
// slower than this OpenMP one at tokens 8192 x out 1024 on the development machine
// (of a 15 ms GEMM), which would otherwise show up as bias/fused "beating" nobias.
void init_and_gemm(Dims d, const float* x, const float* w, const float* row, float* y) {
  const int64_t O = d.out_features;
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < d.tokens; ++t) {
    float* __restrict out = y + t * O;
    if (row)
      std::copy(row, row + O, out);
    else
      std::fill(out, out + O, 0.0f);
  }
  const auto T = static_cast<blasint>(d.tokens), I = static_cast<blasint>(d.in_features),
             On = static_cast<blasint>(O);
  // row-major y[T, O] += x[T, I] · W[O, I]ᵀ
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, On, I, 1.0f, x, I, w, I, 1.0f, y, On);
}

}  // namespace

void cpu_fused(Kind kind, Dims d, const float* x, const float* w, const float* b, float* y) {
  init_and_gemm(d, x, w, kind == Kind::bias ? b : nullptr, y);
}

void cpu_unfused(Dims d, const float* x, const float* w, const float* b, float* y) {
  init_and_gemm(d, x, w, nullptr, y);  // the GEMM alone, as nobias runs it
  const int64_t O = d.out_features;
  // The eager bias add: one more read and write of all of y.
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < d.tokens; ++t) {
    float* __restrict row = y + t * O;
#pragma omp simd
    for (int64_t o = 0; o < O; ++o) row[o] += b[o];
  }
}

namespace {

class CpuBiasWorkload final : public Workload {
 public:
  explicit CpuBiasWorkload(const RunSpec& spec)
      : kind_(parse_kind(spec.variant)),
        fused_(spec.impl == "fused"),
        dims_(dims_of(spec.shape)),
        x_(dims_.tokens * dims_.in_features),
        w_(dims_.out_features * dims_.in_features),
        b_(dims_.out_features),
        y_(dims_.tokens * dims_.out_features) {
    fill_inputs(1, x_, w_, b_);
  }

  void run() override {
    if (fused_ || kind_ == Kind::nobias)
      cpu_fused(kind_, dims_, x_.data(), w_.data(), b_.data(), y_.data());
    else
      cpu_unfused(dims_, x_.data(), w_.data(), b_.data(), y_.data());
  }

  Validation validate(uint64_t seed) override {
    fill_inputs(seed, x_, w_, b_);
    return run_against_reference(*this, y_, [&](std::span<double> ref) { reference(kind_, dims_, x_, w_, b_, ref); });
  }

 private:
  Kind kind_;
  bool fused_;
  Dims dims_;
  HostVector<float> x_, w_, b_, y_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) { return std::make_unique<CpuBiasWorkload>(spec); }

}  // namespace lmroof::bias
