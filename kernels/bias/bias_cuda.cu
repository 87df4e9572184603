// CUDA kernels for the bias pair: y = x·Wᵀ (+ b) through cuBLASLt, bf16 in and out
// with fp32 accumulation on tensor cores (or fp32 SGEMM, no TF32, for dtype fp32).
//   nobias/fused   the GEMM alone
//   bias/fused     the same GEMM with CUBLASLT_EPILOGUE_BIAS: b is added to the fp32
//                  accumulators before the single store of y
//   bias/unfused   the GEMM, then a separate kernel y += b (reads y back and writes it
//                  again, as torch.matmul(x, W.T) + b runs eagerly)
// cuBLASLt computes the row-major y[T, O] = x[T, I]·W[O, I]ᵀ as the column-major
// yᵀ = W·xᵀ ("TN"), the layout its tensor-core kernels are tuned for.
#include <memory>
#include <stdexcept>
#include <vector>

#include "bias/bias.h"
#include "common/cublaslt_gemm.h"
#include "common/cuda_buffer.h"
#include "common/cuda_device.cuh"
#include "common/cuda_workload.h"
#include "common/host_data.h"

namespace lmroof::bias {

namespace {

using cuda::kVec;
using cuda::span_of;

// y[t, o] += b[o] in place. V elements per thread: 16-byte vectors when O is a multiple
// of the vector width (rows then start aligned), scalars otherwise.
template <typename T, int V>
__global__ void __launch_bounds__(256)
    add_bias_kernel(T* __restrict__ y, const T* __restrict__ b, int64_t n, int64_t O) {
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
  if (i >= n) return;
  if constexpr (V == 1) {
    y[i] = cuda::from_float<T>(cuda::to_float(y[i]) + cuda::to_float(b[i % O]));
  } else {
    float vy[V], vb[V];
    cuda::load_vec(y + i, vy);
    cuda::load_vec(b + i % O, vb);
#pragma unroll
    for (int j = 0; j < V; ++j) vy[j] += vb[j];
    cuda::store_vec(y + i, vy);
  }
}

template <typename T>
void launch_add_bias(T* y, const T* b, int64_t T_, int64_t O, cudaStream_t stream) {
  const int64_t n = T_ * O;
  constexpr int V = kVec<T>;
  if (O % V == 0)
    add_bias_kernel<T, V><<<cuda::blocks_for(n / V, 256), 256, 0, stream>>>(y, b, n, O);
  else
    add_bias_kernel<T, 1><<<cuda::blocks_for(n, 256), 256, 0, stream>>>(y, b, n, O);
  CUDA_CHECK_LAUNCH();
}

template <typename T>
class CudaBiasWorkload final : public cuda::CudaWorkload {
 public:
  explicit CudaBiasWorkload(const RunSpec& spec)
      : kind_(parse_kind(spec.variant)),
        fused_(spec.impl == "fused"),
        dtype_(spec.dtype),
        dims_(dims_of(spec.shape)),
        x_(dtype_, dims_.tokens * dims_.in_features),
        w_(dtype_, dims_.out_features * dims_.in_features),
        b_(dtype_, dims_.out_features),
        y_(dtype_, dims_.tokens * dims_.out_features) {
    if (kind_ == Kind::nobias && !fused_) throw std::invalid_argument("bias/nobias has only the 'fused' level");
    const cuda::GemmSpec g = cuda::linear_spec(dims_.tokens, dims_.in_features, dims_.out_features, dtype_);
    const bool epilogue = kind_ == Kind::bias && fused_;
    gemm_ = std::make_unique<cuda::GemmPlan>(blas_, g, x_.data(), w_.data(), y_.data(),
                                             epilogue ? b_.data() : nullptr);
    randomize(1);
  }

  void run() override {
    gemm_->run(stream());
    if (kind_ == Kind::bias && !fused_)
      launch_add_bias<T>(y_.as<T>(), b_.as<T>(), dims_.tokens, dims_.out_features, stream());
  }

  Validation validate(uint64_t seed) override {
    const auto host = randomize(seed);
    return run_against_reference(y_, tolerance_for(dtype_), [&](std::span<double> ref) {
      reference(kind_, dims_, span_of(host.x), span_of(host.w), span_of(host.b), ref);
    });
  }

 private:
  struct Host {
    std::vector<float> x, w, b;
  };
  // The CPU workload's inputs (bias::fill_inputs), rounded to the storage dtype and uploaded.
  Host randomize(uint64_t seed) {
    Host h{std::vector<float>(x_.size()), std::vector<float>(w_.size()), std::vector<float>(b_.size())};
    fill_inputs(seed, span_of(h.x), span_of(h.w), span_of(h.b));
    for (auto* v : {&h.x, &h.w, &h.b}) cuda::round_to_dtype(dtype_, span_of(*v));
    x_.upload(span_of(h.x), stream());
    w_.upload(span_of(h.w), stream());
    b_.upload(span_of(h.b), stream());
    return h;
  }

  Kind kind_;
  bool fused_;
  DType dtype_;
  Dims dims_;
  cuda::DeviceTensor x_, w_, b_, y_;
  cuda::BlasContext blas_;
  std::unique_ptr<cuda::GemmPlan> gemm_;
};

}  // namespace

std::unique_ptr<Workload> make_cuda(const RunSpec& spec) {
  return cuda::with_storage_type(spec.dtype, [&]<typename T>() -> std::unique_ptr<Workload> {
    return std::make_unique<CudaBiasWorkload<T>>(spec);
  });
}

}  // namespace lmroof::bias
