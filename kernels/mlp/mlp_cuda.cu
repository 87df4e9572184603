// CUDA kernels for the mlp pair ("fused" level, both variants), bf16 storage with fp32
// accumulation (or fp32 throughout). Three launches, following mlp_cpu.cpp one for one:
//
//   input GEMM   pre[T, R] = x[T, d] · W_inᵀ through cuBLASLt (tensor cores for bf16;
//                fp32 SGEMM without TF32 for fp32). R = d_ff for GeLU (W_in = W1);
//                R = 2·d_ff for SwiGLU, whose gate and up weights are stacked
//                (W_in = [Wg; Wu]) so one GEMM gives g in columns [0, d_ff) and u in
//                columns [d_ff, 2·d_ff) of each row of pre.
//   activation   hidden[T, d_ff] = gelu(pre) (exact erf) or silu(g)·u: one elementwise
//                kernel of common/activations.cuh in fp32 registers, 16-byte vectors
//                where rows allow it.
//   output GEMM  y[T, d] = hidden · W_outᵀ through cuBLASLt.
//
// pre and hidden are materialised in the storage dtype, as an eager framework does and
// as the cost model's bytes_model counts them (docs/cost-model.md#mlp).
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/activations.cuh"
#include "common/cublaslt_gemm.h"
#include "common/cuda_buffer.h"
#include "common/cuda_device.cuh"
#include "common/cuda_workload.h"
#include "common/host_data.h"
#include "mlp/mlp.h"

namespace lmroof::mlp {

namespace {

using cuda::span_of;

template <typename T>
class CudaMlpWorkload final : public cuda::CudaWorkload {
 public:
  explicit CudaMlpWorkload(const RunSpec& spec)
      : kind_(parse_kind(spec.variant)),
        dtype_(spec.dtype),
        dims_(dims_of(spec.shape)),
        in_rows_(kind_ == Kind::gelu ? dims_.d_ff : 2 * dims_.d_ff),
        x_(dtype_, dims_.tokens * dims_.d_model),
        w_in_(dtype_, in_rows_ * dims_.d_model),
        w_out_(dtype_, dims_.d_model * dims_.d_ff),
        pre_(dtype_, dims_.tokens * in_rows_),
        hidden_(dtype_, dims_.tokens * dims_.d_ff),
        y_(dtype_, dims_.tokens * dims_.d_model) {
    const int64_t T_ = dims_.tokens, D = dims_.d_model, F = dims_.d_ff;
    // nn.Linear: activations [T, in] times weights [out, in]ᵀ
    auto linear = [&](const cuda::DeviceTensor& a, int64_t in, const cuda::DeviceTensor& w, int64_t out,
                      const cuda::DeviceTensor& c) {
      return std::make_unique<cuda::GemmPlan>(blas_, cuda::linear_spec(T_, in, out, dtype_), a.data(), w.data(),
                                              c.data());
    };
    gemm_in_ = linear(x_, D, w_in_, in_rows_, pre_);
    gemm_out_ = linear(hidden_, F, w_out_, D, y_);
    randomize(1);
  }

  void run() override {
    const int64_t T_ = dims_.tokens, F = dims_.d_ff;
    const T* pre = pre_.as<T>();
    gemm_in_->run(stream());
    if (kind_ == Kind::gelu)
      cuda::launch_gelu<T>(pre, in_rows_, hidden_.as<T>(), F, T_, F, stream());
    else
      cuda::launch_swiglu<T>(pre, pre + F, in_rows_, hidden_.as<T>(), F, T_, F, stream());
    gemm_out_->run(stream());
  }

  Validation validate(uint64_t seed) override {
    const auto host = randomize(seed);
    return run_against_reference(y_, tolerance_for(dtype_), [&](std::span<double> ref) {
      reference(kind_, dims_, span_of(host.x), span_of(host.w_in), span_of(host.w_out), ref);
    });
  }

 private:
  struct Host {
    std::vector<float> x, w_in, w_out;
  };
  // The CPU workload's inputs (mlp::fill_inputs), rounded to the storage dtype and
  // uploaded; the reference sees exactly the values the kernels do.
  Host randomize(uint64_t seed) {
    Host h{std::vector<float>(x_.size()), std::vector<float>(w_in_.size()), std::vector<float>(w_out_.size())};
    fill_inputs(dims_, seed, span_of(h.x), span_of(h.w_in), span_of(h.w_out));
    for (auto* v : {&h.x, &h.w_in, &h.w_out}) cuda::round_to_dtype(dtype_, span_of(*v));
    x_.upload(span_of(h.x), stream());
    w_in_.upload(span_of(h.w_in), stream());
    w_out_.upload(span_of(h.w_out), stream());
    return h;
  }

  Kind kind_;
  DType dtype_;
  Dims dims_;
  int64_t in_rows_;  // rows of W_in and columns of pre: d_ff (gelu) or 2·d_ff (swiglu)
  cuda::DeviceTensor x_, w_in_, w_out_, pre_, hidden_, y_;
  cuda::BlasContext blas_;
  std::unique_ptr<cuda::GemmPlan> gemm_in_, gemm_out_;
};

}  // namespace

std::unique_ptr<Workload> make_cuda(const RunSpec& spec) {
  if (spec.impl != "fused") throw std::invalid_argument("mlp has only the 'fused' implementation level");
  return cuda::with_storage_type(spec.dtype, [&]<typename T>() -> std::unique_ptr<Workload> {
    return std::make_unique<CudaMlpWorkload<T>>(spec);
  });
}

}  // namespace lmroof::mlp
