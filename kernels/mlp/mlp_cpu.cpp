// CPU MLP: the input projection(s) as one OpenBLAS sgemm (SwiGLU's gate and up
// weights are stacked so one GEMM produces both), one OpenMP pass for the
// activation, one sgemm for the output projection.
#include <cblas.h>

#include <cmath>
#include <vector>

#include "common/host_buffer.h"
#include "common/cpu_validation.h"
#include "common/host_data.h"
#include "mlp/mlp.h"

namespace lmroof::mlp {

namespace {

class CpuMlpWorkload final : public Workload {
 public:
  explicit CpuMlpWorkload(const RunSpec& spec)
      : kind_(parse_kind(spec.variant)),
        dims_(dims_of(spec.shape)),
        in_rows_(kind_ == Kind::gelu ? dims_.d_ff : 2 * dims_.d_ff),
        x_(dims_.tokens * dims_.d_model),
        w_in_(in_rows_ * dims_.d_model),
        w_out_(dims_.d_model * dims_.d_ff),
        pre_(dims_.tokens * in_rows_),
        hidden_(dims_.tokens * dims_.d_ff),
        y_(x_.size()) {
    fill_inputs(dims_, 1, x_, w_in_, w_out_);
  }

  void run() override {
    const int64_t T = dims_.tokens, D = dims_.d_model, F = dims_.d_ff;
    // pre[T, in_rows] = x · W_inᵀ
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, in_rows_, D, 1.f, x_.data(), D, w_in_.data(), D, 0.f,
                pre_.data(), in_rows_);
    const float* pre = pre_.data();
    float* hidden = hidden_.data();
    const int64_t ld = in_rows_;
    if (kind_ == Kind::gelu) {
#pragma omp parallel for schedule(static)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t f = 0; f < F; ++f) {
          const float a = pre[t * ld + f];
          hidden[t * F + f] = 0.5f * a * (1.f + std::erf(a * 0.70710678f));
        }
    } else {
#pragma omp parallel for schedule(static)
      for (int64_t t = 0; t < T; ++t)
#pragma omp simd
        for (int64_t f = 0; f < F; ++f) {
          const float g = pre[t * ld + f], u = pre[t * ld + F + f];
          hidden[t * F + f] = g / (1.f + std::exp(-g)) * u;
        }
    }
    // y[T, D] = hidden · W_outᵀ
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, D, F, 1.f, hidden_.data(), F, w_out_.data(), F, 0.f,
                y_.data(), D);
  }

  Validation validate(uint64_t seed) override {
    fill_inputs(dims_, seed, x_, w_in_, w_out_);
    return run_against_reference(*this, y_,
                                 [&](std::span<double> ref) { reference(kind_, dims_, x_, w_in_, w_out_, ref); });
  }

 private:
  Kind kind_;
  Dims dims_;
  int64_t in_rows_;
  HostVector<float> x_, w_in_, w_out_, pre_, hidden_, y_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) { return std::make_unique<CpuMlpWorkload>(spec); }

}  // namespace lmroof::mlp
