// CUDA kernels for the stability pair, bf16 or fp32 storage, fp32 arithmetic. Kept
// simple: a warp per head row (qknorm), a block of 256 threads per row of logits or
// scores (max, then the sum of exponentials from L1/L2, then the probabilities),
// one thread per element for the soft-capping pass. The passes follow
// stability::passes(); the unfused soft-cap keeps its capped tensor in fp32.
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/cuda_buffer.h"
#include "common/cuda_device.cuh"
#include "common/cuda_workload.h"
#include "norm/norm.h"
#include "stability/stability.h"

namespace lmroof::stability {

namespace {

using cuda::from_float;
using cuda::span_of;
using cuda::to_float;

constexpr int kRowThreads = 256;

__device__ __forceinline__ float cap_value(float x, float cap) { return cap * tanhf(x / cap); }

// One warp per head row of x [rows, dh] (row r belongs to token r / heads). kNorm:
// RMS-normalise with gamma; kRope: rotate-half with the fp32 tables [tokens, dh/2].
template <typename T, bool kNorm, bool kRope>
__global__ void __launch_bounds__(128) qk_kernel(const T* __restrict__ x, const T* __restrict__ gamma, int64_t rows,
                                                 int heads, int dh, const float* __restrict__ cos_t,
                                                 const float* __restrict__ sin_t, T* __restrict__ y) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x / 32;
  if (r >= rows) return;
  const int lane = static_cast<int>(threadIdx.x) % 32, half = dh / 2;
  const T* in = x + r * dh;
  T* out = y + r * dh;
  float rstd = 1.f;
  if constexpr (kNorm) {
    float ss = 0.f;
    for (int i = lane; i < dh; i += 32) {
      const float v = to_float(in[i]);
      ss += v * v;
    }
    rstd = rsqrtf(cuda::warp_sum(ss) / static_cast<float>(dh) + norm::kEps);
  }
  if constexpr (kRope) {
    const int64_t t = r / heads;
    for (int i = lane; i < half; i += 32) {
      float x1 = to_float(in[i]), x2 = to_float(in[i + half]);
      if constexpr (kNorm) x1 *= rstd * to_float(gamma[i]), x2 *= rstd * to_float(gamma[i + half]);
      const float c = cos_t[t * half + i], s = sin_t[t * half + i];
      out[i] = from_float<T>(x1 * c - x2 * s);
      out[i + half] = from_float<T>(x2 * c + x1 * s);
    }
  } else {
    for (int i = lane; i < dh; i += 32) out[i] = from_float<T>(to_float(in[i]) * rstd * to_float(gamma[i]));
  }
}

template <typename T, bool kNorm, bool kRope>
void launch_qk(const T* x, const T* gamma, int64_t rows, int64_t heads, int64_t dh, const float* cos_t,
               const float* sin_t, T* y, cudaStream_t stream) {
  qk_kernel<T, kNorm, kRope><<<cuda::blocks_for(rows, 4), 128, 0, stream>>>(
      x, gamma, rows, static_cast<int>(heads), static_cast<int>(dh), cos_t, sin_t, y);
  CUDA_CHECK_LAUNCH();
}

__device__ float block_max(float v, float* scratch) {
  v = cuda::warp_max(v);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float m = scratch[0];
#pragma unroll
  for (int w = 1; w < kRowThreads / 32; ++w) m = fmaxf(m, scratch[w]);
  return m;
}

enum class RowOp { cross_entropy, logsumexp, softmax };

// One block per row of W elements of x. cap > 0: on cap·tanh(x/cap) (its max is the
// cap of the raw max). cross_entropy: out32[row] = lse − c[target] + zcoef·lse²;
// logsumexp: out32[row] = lse; softmax: p[row, :] = exp(c − max) / sum, in T.
template <typename T, typename In, RowOp kOp>
__global__ void __launch_bounds__(kRowThreads)
    row_kernel(const In* __restrict__ x, int64_t W, float cap, float zcoef, const int32_t* __restrict__ targets,
               float* __restrict__ out32, T* __restrict__ p) {
  __shared__ float scratch[2][kRowThreads / 32];
  const int64_t row = blockIdx.x;
  const In* in = x + row * W;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < W; j += kRowThreads) m = fmaxf(m, to_float(in[j]));
  m = block_max(m, scratch[0]);
  if (cap > 0) m = cap_value(m, cap);
  float sum = 0.f;
  for (int64_t j = threadIdx.x; j < W; j += kRowThreads) {
    const float v = to_float(in[j]);
    sum += __expf((cap > 0 ? cap_value(v, cap) : v) - m);
  }
  sum = cuda::group_sum<kRowThreads>(sum, scratch[1]);
  if constexpr (kOp == RowOp::softmax) {
    const float inv = 1.f / sum;
    for (int64_t j = threadIdx.x; j < W; j += kRowThreads) {
      const float v = to_float(in[j]);
      p[row * W + j] = from_float<T>(__expf((cap > 0 ? cap_value(v, cap) : v) - m) * inv);
    }
  } else if (threadIdx.x == 0) {
    const float lse = m + logf(sum);
    if constexpr (kOp == RowOp::logsumexp) {
      out32[row] = lse;
    } else {
      const float v = to_float(in[targets[row]]);
      // (max - target) + log(sum), not lse - target: see row_logsumexp in stability_cpu.cpp
      out32[row] = (m - (cap > 0 ? cap_value(v, cap) : v)) + logf(sum) + zcoef * lse * lse;
    }
  }
}

template <typename T, typename In, RowOp kOp>
void launch_rows(const In* x, int64_t rows, int64_t W, float cap, float zcoef, const int32_t* targets, float* out32,
                 T* p, cudaStream_t stream) {
  row_kernel<T, In, kOp><<<static_cast<unsigned>(rows), kRowThreads, 0, stream>>>(x, W, cap, zcoef, targets, out32, p);
  CUDA_CHECK_LAUNCH();
}

// capped = cap·tanh(x/cap) into fp32.
template <typename T>
__global__ void softcap_kernel(const T* __restrict__ x, int64_t n, float cap, float* __restrict__ y) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = cap_value(to_float(x[i]), cap);
}

__global__ void add_zloss_kernel(const float* __restrict__ z, int64_t n, float coef, float* __restrict__ loss) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) loss[i] += coef * z[i] * z[i];
}

template <typename T>
class CudaStabilityWorkload final : public cuda::CudaWorkload {
 public:
  explicit CudaStabilityWorkload(const RunSpec& spec)
      : trick_(parse_trick(spec.variant)),
        level_(parse_level(spec.impl)),
        dtype_(spec.dtype),
        d_(dims_of(trick_, spec.shape)) {
    const size_t rows = static_cast<size_t>(d_.rows(trick_)), width = static_cast<size_t>(d_.width(trick_));
    const bool loss = trick_ == Trick::zloss || trick_ == Trick::logit_softcap;
    if (trick_ == Trick::qknorm) {
      a_ = cuda::DeviceTensor(dtype_, static_cast<size_t>(d_.tokens * d_.q_heads * d_.head_dim));
      b_ = cuda::DeviceTensor(dtype_, static_cast<size_t>(d_.tokens * d_.kv_heads * d_.head_dim));
      gamma_q_ = cuda::DeviceTensor(dtype_, static_cast<size_t>(d_.head_dim));
      gamma_k_ = cuda::DeviceTensor(dtype_, static_cast<size_t>(d_.head_dim));
      cos_ = cuda::DeviceBuffer<float>(static_cast<size_t>(d_.tokens * d_.head_dim / 2));
      sin_ = cuda::DeviceBuffer<float>(cos_.size());
      if (level_ == Level::unfused) scratch_ = cuda::DeviceTensor(dtype_, rows * width);
    } else {
      a_ = cuda::DeviceTensor(dtype_, rows * width);
      if (level_ == Level::unfused)
        scratch32_ = cuda::DeviceBuffer<float>(trick_ == Trick::zloss ? static_cast<size_t>(d_.tokens) : rows * width);
    }
    if (loss) targets_ = cuda::DeviceBuffer<int32_t>(static_cast<size_t>(d_.tokens));
    out_ = cuda::DeviceTensor(loss ? DType::fp32 : dtype_, output_size(trick_, d_));
    upload(1);
  }

  void run() override {
    const float cap = cap_of(trick_);
    const int64_t R = d_.rows(trick_), W = d_.width(trick_);
    switch (trick_) {
      case Trick::qknorm: return run_qknorm();
      case Trick::zloss: {
        const float zcoef = level_ == Level::fused ? static_cast<float>(kZLossCoef) : 0.f;
        launch_rows<T, T, RowOp::cross_entropy>(a(), R, W, 0.f, zcoef, targets_.data(), loss(), nullptr, stream());
        if (level_ == Level::unfused) {
          launch_rows<T, T, RowOp::logsumexp>(a(), R, W, 0.f, 0.f, nullptr, scratch32_.data(), nullptr, stream());
          add_zloss_kernel<<<cuda::blocks_for(R, 256), 256, 0, stream()>>>(scratch32_.data(), R,
                                                                          static_cast<float>(kZLossCoef), loss());
          CUDA_CHECK_LAUNCH();
        }
        return;
      }
      case Trick::logit_softcap:
        if (level_ == Level::unfused) {
          softcap(R * W, cap);
          launch_rows<T, float, RowOp::cross_entropy>(scratch32_.data(), R, W, 0.f, 0.f, targets_.data(), loss(),
                                                      nullptr, stream());
        } else {
          launch_rows<T, T, RowOp::cross_entropy>(a(), R, W, level_ == Level::fused ? cap : 0.f, 0.f,
                                                  targets_.data(), loss(), nullptr, stream());
        }
        return;
      case Trick::attn_softcap:
        if (level_ == Level::unfused) {
          softcap(R * W, cap);
          launch_rows<T, float, RowOp::softmax>(scratch32_.data(), R, W, 0.f, 0.f, nullptr, nullptr, out(), stream());
        } else {
          launch_rows<T, T, RowOp::softmax>(a(), R, W, level_ == Level::fused ? cap : 0.f, 0.f, nullptr, nullptr,
                                            out(), stream());
        }
        return;
    }
  }

  Validation validate(uint64_t seed) override {
    const HostInputs in = upload(seed);
    return run_against_reference(
        out_, tolerance_for(dtype_),
        [&](std::span<double> ref) {
          const std::vector<double> r = reference(trick_, level_ != Level::without, d_, in);
          std::copy(r.begin(), r.end(), ref.begin());
        },
        validation_floor(trick_));
  }

 private:
  T* a() const { return a_.as<T>(); }
  T* out() const { return out_.as<T>(); }
  float* loss() const { return out_.as<float>(); }

  void softcap(int64_t n, float cap) {
    softcap_kernel<T><<<cuda::blocks_for(n, 256), 256, 0, stream()>>>(a(), n, cap, scratch32_.data());
    CUDA_CHECK_LAUNCH();
  }

  void run_qknorm() {
    const int64_t T_ = d_.tokens, dh = d_.head_dim, Hq = d_.q_heads, Hk = d_.kv_heads;
    T* q_out = out();
    T* k_out = q_out + T_ * Hq * dh;
    const T *q = a_.as<T>(), *k = b_.as<T>(), *gq = gamma_q_.as<T>(), *gk = gamma_k_.as<T>();
    switch (level_) {
      case Level::without:
        launch_qk<T, false, true>(q, nullptr, T_ * Hq, Hq, dh, cos_.data(), sin_.data(), q_out, stream());
        launch_qk<T, false, true>(k, nullptr, T_ * Hk, Hk, dh, cos_.data(), sin_.data(), k_out, stream());
        break;
      case Level::unfused: {
        T* qn = scratch_.as<T>();
        T* kn = qn + T_ * Hq * dh;
        launch_qk<T, true, false>(q, gq, T_ * Hq, Hq, dh, nullptr, nullptr, qn, stream());
        launch_qk<T, true, false>(k, gk, T_ * Hk, Hk, dh, nullptr, nullptr, kn, stream());
        launch_qk<T, false, true>(qn, nullptr, T_ * Hq, Hq, dh, cos_.data(), sin_.data(), q_out, stream());
        launch_qk<T, false, true>(kn, nullptr, T_ * Hk, Hk, dh, cos_.data(), sin_.data(), k_out, stream());
        break;
      }
      case Level::fused:
        launch_qk<T, true, true>(q, gq, T_ * Hq, Hq, dh, cos_.data(), sin_.data(), q_out, stream());
        launch_qk<T, true, true>(k, gk, T_ * Hk, Hk, dh, cos_.data(), sin_.data(), k_out, stream());
        break;
    }
  }

  // Draws the inputs, rounds them to the storage dtype (the reference sees what the
  // kernels see) and uploads them.
  HostInputs upload(uint64_t seed) {
    HostInputs in;
    in.randomize(trick_, d_, seed);
    for (auto* v : {&in.a, &in.b, &in.gamma_q, &in.gamma_k}) cuda::round_to_dtype(dtype_, span_of(*v));
    a_.upload(span_of(in.a), stream());
    if (trick_ == Trick::qknorm) {
      b_.upload(span_of(in.b), stream());
      gamma_q_.upload(span_of(in.gamma_q), stream());
      gamma_k_.upload(span_of(in.gamma_k), stream());
      CUDA_CHECK(cudaMemcpyAsync(cos_.data(), in.cos_table.data(), cos_.bytes(), cudaMemcpyHostToDevice, stream()));
      CUDA_CHECK(cudaMemcpyAsync(sin_.data(), in.sin_table.data(), sin_.bytes(), cudaMemcpyHostToDevice, stream()));
    }
    if (!in.targets.empty())
      CUDA_CHECK(cudaMemcpyAsync(targets_.data(), in.targets.data(), targets_.bytes(), cudaMemcpyHostToDevice,
                                 stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));  // `in` is host memory the copies read
    return in;
  }

  Trick trick_;
  Level level_;
  DType dtype_;
  Dims d_;
  cuda::DeviceTensor a_, b_, gamma_q_, gamma_k_, scratch_, out_;
  cuda::DeviceBuffer<float> cos_, sin_, scratch32_;
  cuda::DeviceBuffer<int32_t> targets_;
};

}  // namespace

std::unique_ptr<Workload> make_cuda(const RunSpec& spec) {
  return cuda::with_storage_type(spec.dtype, [&]<typename T>() -> std::unique_ptr<Workload> {
    return std::make_unique<CudaStabilityWorkload<T>>(spec);
  });
}

}  // namespace lmroof::stability
