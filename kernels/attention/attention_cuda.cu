// CUDA side of the attention pair: every contraction through cuBLASLt (bf16 with fp32
// accumulation on tensor cores, or fp32), the softmax and the cache writes by small
// kernels. Simple rather than fused: the scores are materialised in memory (the cost
// model counts them for this backend).
//
//   prefill  qkv = x · w_qkvᵀ (one GEMM); k, v relaid into the cache [B, Hkv, n, dh];
//            per query head h, batched over the B sequences: S = q_h k_hᵀ / √dh
//            ([n, n]), causal softmax in place, o_h = P v_h; y = o · w_oᵀ.
//   decode   q, k, v = x · W{q,k,v}ᵀ (three GEMMs, M = B); k and v copied into cache
//            position n − 1 (one 2-D copy each); batched over the B·Hkv kv heads, the
//            group's g query heads as the rows: S = Q Kᵀ / √dh ([g, n]), softmax,
//            O = P V ([g, dh]); y = o · w_oᵀ.
#include <cuda_bf16.h>

#include <cmath>
#include <memory>
#include <vector>

#include "attention/attention.h"
#include "common/cublaslt_gemm.h"
#include "common/cuda_buffer.h"
#include "common/cuda_device.cuh"
#include "common/cuda_workload.h"
#include "common/host_data.h"

namespace lmroof::attention {

namespace {

using cuda::bf16;
using cuda::from_float;
using cuda::span_of;
using cuda::to_float;

constexpr int kSoftmaxThreads = 128;

__device__ __forceinline__ float block_max(float v, float* scratch) {
  v = cuda::warp_max(v);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float m = scratch[0];
#pragma unroll
  for (int w = 1; w < kSoftmaxThreads / 32; ++w) m = fmaxf(m, scratch[w]);
  __syncthreads();  // scratch is reused by the caller's next reduction
  return m;
}

// Softmax of each row of s [rows, cols] in place, fp32 arithmetic. With period > 0
// the row r sees keys 0 .. r mod period (causal, period = tokens per sequence) and
// the rest are set to 0; with period = 0 it sees all cols.
template <typename T>
__global__ void __launch_bounds__(kSoftmaxThreads) softmax_rows_kernel(T* s, int64_t cols, int64_t period) {
  __shared__ float scratch[kSoftmaxThreads / 32];
  const int64_t row = blockIdx.x;
  T* p = s + row * cols;
  const int64_t visible = period > 0 ? row % period + 1 : cols;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < visible; j += kSoftmaxThreads) m = fmaxf(m, to_float(p[j]));
  m = block_max(m, scratch);
  float sum = 0.f;
  for (int64_t j = threadIdx.x; j < visible; j += kSoftmaxThreads) sum += __expf(to_float(p[j]) - m);
  sum = cuda::group_sum<kSoftmaxThreads>(sum, scratch);
  const float inv = 1.0f / sum;
  for (int64_t j = threadIdx.x; j < cols; j += kSoftmaxThreads)
    p[j] = from_float<T>(j < visible ? __expf(to_float(p[j]) - m) * inv : 0.f);
}

// k and v of every token ([B·n, ld] rows, k at column Dq, v at Dq + Dkv) into the
// cache layout [B, Hkv, n, dh].
template <typename T>
__global__ void to_cache_kernel(const T* __restrict qkv, T* __restrict kc, T* __restrict vc, int64_t n, int64_t hkv,
                                int64_t dh, int64_t ld, int64_t dq, int64_t total) {
  const int64_t dkv = hkv * dh;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t t = e / dkv, c = e % dkv, kvh = c / dh, i = c % dh, b = t / n, pos = t % n;
    const int64_t dst = ((b * hkv + kvh) * n + pos) * dh + i;
    kc[dst] = qkv[t * ld + dq + c];
    vc[dst] = qkv[t * ld + dq + dkv + c];
  }
}

template <typename T>
class CudaAttentionWorkload final : public cuda::CudaWorkload {
 public:
  explicit CudaAttentionWorkload(const RunSpec& spec)
      : phase_(parse_phase(spec.impl)), dtype_(spec.dtype), d_(dims_of(spec.shape)) {
    const int64_t B = d_.batch, n = d_.context, dm = d_.d_model, Dq = d_.q_dim(), Dkv = d_.kv_dim();
    const int64_t rows = phase_ == Phase::prefill ? B * n : B;
    w_qkv_ = tensor(d_.qkv_dim() * dm);
    w_o_ = tensor(dm * Dq);
    x_ = tensor(rows * dm);
    qkv_ = tensor(rows * d_.qkv_dim());
    k_cache_ = tensor(B * d_.kv_heads * n * d_.head_dim);
    v_cache_ = tensor(k_cache_.size());
    o_ = tensor(rows * Dq);
    y_ = tensor(rows * dm);
    scores_ = tensor(phase_ == Phase::prefill ? B * n * n : B * d_.q_heads * n);
    plan();
    uint64_t seed = 0xA77E0000ull;
    fill(x_, ++seed, 1.0f);
    fill(w_qkv_, ++seed, 1.0f / std::sqrt(static_cast<float>(dm)));
    fill(w_o_, ++seed, 1.0f / std::sqrt(static_cast<float>(Dq)));
    fill(k_cache_, ++seed, 1.0f);
    fill(v_cache_, ++seed, 1.0f);
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    (void)Dkv;
  }

  void run() override {
    if (phase_ == Phase::prefill) {
      gemm_qkv_->run(stream());
      const int64_t total = d_.batch * d_.context * d_.kv_dim();
      to_cache_kernel<T><<<std::min<unsigned>(cuda::blocks_for(total, 256), 65535u), 256, 0, stream()>>>(
          qkv_.as<T>(), k_cache_.as<T>(), v_cache_.as<T>(), d_.context, d_.kv_heads, d_.head_dim, d_.qkv_dim(),
          d_.q_dim(), total);
      CUDA_CHECK_LAUNCH();
      for (size_t h = 0; h < qk_.size(); ++h) {
        qk_[h]->run(stream());
        softmax(d_.batch * d_.context, d_.context);
        pv_[h]->run(stream());
      }
    } else {
      gemm_q_->run(stream());
      gemm_k_->run(stream());
      gemm_v_->run(stream());
      const int64_t B = d_.batch, n = d_.context, dh = d_.head_dim, Dq = d_.q_dim(), Dkv = d_.kv_dim();
      const size_t es = dtype_bytes(dtype_);
      const auto* q = qkv_.as<T>();
      for (auto [src, dst] : {std::pair{q + B * Dq, k_cache_.as<T>()}, std::pair{q + B * (Dq + Dkv), v_cache_.as<T>()}})
        CUDA_CHECK(cudaMemcpy2DAsync(dst + (n - 1) * dh, n * dh * es, src, dh * es, dh * es, B * d_.kv_heads,
                                     cudaMemcpyDeviceToDevice, stream()));
      qk_[0]->run(stream());
      softmax(B * d_.q_heads, 0);
      pv_[0]->run(stream());
    }
    gemm_o_->run(stream());
  }

  Validation validate(uint64_t seed) override {
    HostLayer host(phase_, d_);
    host.randomize(seed);
    for (auto* v : {&host.w_qkv, &host.w_o, &host.x, &host.k_cache, &host.v_cache})
      cuda::round_to_dtype(dtype_, span_of(*v));
    w_qkv_.upload(span_of(host.w_qkv), stream());
    w_o_.upload(span_of(host.w_o), stream());
    x_.upload(span_of(host.x), stream());
    if (phase_ == Phase::decode) {
      k_cache_.upload(span_of(host.k_cache), stream());
      v_cache_.upload(span_of(host.v_cache), stream());
    } else {
      k_cache_.poison(stream());
      v_cache_.poison(stream());
    }
    for (auto* t : {&qkv_, &o_, &scores_}) t->poison(stream());
    return run_against_reference(y_, tolerance_for(dtype_, /*composite=*/true),
                                 [&](std::span<double> ref) { reference(phase_, d_, host, ref); });
  }

 private:
  cuda::DeviceTensor tensor(int64_t count) const { return cuda::DeviceTensor(dtype_, static_cast<size_t>(count)); }

  void fill(cuda::DeviceTensor& t, uint64_t seed, float scale) {
    if (t.size() == 0) return;
    cuda::fill_uniform_on_device(t.as<T>(), t.size(), seed, scale, stream());
    CUDA_CHECK_LAUNCH();
  }

  void softmax(int64_t rows, int64_t period) {
    softmax_rows_kernel<T><<<static_cast<unsigned>(rows), kSoftmaxThreads, 0, stream()>>>(scores_.as<T>(),
                                                                                          d_.context, period);
    CUDA_CHECK_LAUNCH();
  }

  // C[M, N] = A[M, K] · W[N, K]ᵀ
  std::unique_ptr<cuda::GemmPlan> linear(const T* a, int64_t lda, const T* w, int64_t M, int64_t N, int64_t K,
                                         T* c, int64_t ldc) {
    return std::make_unique<cuda::GemmPlan>(blas_, cuda::linear_spec(M, K, N, dtype_, lda, K, ldc), a, w, c);
  }

  void plan() {
    const int64_t B = d_.batch, n = d_.context, dm = d_.d_model, dh = d_.head_dim, Hq = d_.q_heads,
                  Hkv = d_.kv_heads, g = Hq / Hkv, Dq = d_.q_dim(), Dkv = d_.kv_dim(), ld = d_.qkv_dim();
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    T* qkv = qkv_.as<T>();
    const T* w = w_qkv_.as<T>();
    T* kc = k_cache_.as<T>();
    T* vc = v_cache_.as<T>();
    T* s = scores_.as<T>();
    T* o = o_.as<T>();
    const int64_t rows = phase_ == Phase::prefill ? B * n : B;
    gemm_o_ = linear(o, Dq, w_o_.as<T>(), rows, dm, Dq, y_.as<T>(), dm);
    if (phase_ == Phase::prefill) {
      gemm_qkv_ = linear(x_.as<T>(), dm, w, B * n, ld, dm, qkv, ld);
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t kvh = h / g;
        cuda::GemmSpec qk;  // per sequence: S = q_h k_hᵀ / √dh, [n, dh] x [n, dh]ᵀ
        qk.M = n, qk.N = n, qk.K = dh, qk.lda = ld, qk.ldb = dh, qk.ldc = n, qk.b_transposed = true;
        qk.batch = B, qk.stride_a = n * ld, qk.stride_b = Hkv * n * dh, qk.stride_c = n * n;
        qk.alpha = scale, qk.dtype = dtype_;
        cuda::GemmSpec pv;  // per sequence: o_h = P v_h, [n, n] x [n, dh]
        pv.M = n, pv.N = dh, pv.K = n, pv.lda = n, pv.ldb = dh, pv.ldc = Dq, pv.b_transposed = false;
        pv.batch = B, pv.stride_a = n * n, pv.stride_b = Hkv * n * dh, pv.stride_c = n * Dq;
        pv.dtype = dtype_;
        qk_.push_back(std::make_unique<cuda::GemmPlan>(blas_, qk, qkv + h * dh, kc + kvh * n * dh, s));
        pv_.push_back(std::make_unique<cuda::GemmPlan>(blas_, pv, s, vc + kvh * n * dh, o + h * dh));
      }
    } else {
      T* q = qkv;
      gemm_q_ = linear(x_.as<T>(), dm, w, B, Dq, dm, q, Dq);
      gemm_k_ = linear(x_.as<T>(), dm, w + Dq * dm, B, Dkv, dm, q + B * Dq, Dkv);
      gemm_v_ = linear(x_.as<T>(), dm, w + (Dq + Dkv) * dm, B, Dkv, dm, q + B * (Dq + Dkv), Dkv);
      cuda::GemmSpec qk;  // per (sequence, kv head): S = Q Kᵀ / √dh, [g, dh] x [n, dh]ᵀ
      qk.M = g, qk.N = n, qk.K = dh, qk.lda = dh, qk.ldb = dh, qk.ldc = n, qk.b_transposed = true;
      qk.batch = B * Hkv, qk.stride_a = g * dh, qk.stride_b = n * dh, qk.stride_c = g * n;
      qk.alpha = scale, qk.dtype = dtype_;
      cuda::GemmSpec pv;  // O = P V, [g, n] x [n, dh]
      pv.M = g, pv.N = dh, pv.K = n, pv.lda = n, pv.ldb = dh, pv.ldc = dh, pv.b_transposed = false;
      pv.batch = B * Hkv, pv.stride_a = g * n, pv.stride_b = n * dh, pv.stride_c = g * dh;
      pv.dtype = dtype_;
      qk_.push_back(std::make_unique<cuda::GemmPlan>(blas_, qk, q, kc, s));
      pv_.push_back(std::make_unique<cuda::GemmPlan>(blas_, pv, s, vc, o));
    }
  }

  Phase phase_;
  DType dtype_;
  Dims d_;
  cuda::BlasContext blas_;
  cuda::DeviceTensor w_qkv_, w_o_, x_, qkv_, k_cache_, v_cache_, o_, y_, scores_;
  std::unique_ptr<cuda::GemmPlan> gemm_qkv_, gemm_q_, gemm_k_, gemm_v_, gemm_o_;
  std::vector<std::unique_ptr<cuda::GemmPlan>> qk_, pv_;
};

}  // namespace

std::unique_ptr<Workload> make_cuda(const RunSpec& spec) {
  return cuda::with_storage_type(spec.dtype, [&]<typename T>() -> std::unique_ptr<Workload> {
    return std::make_unique<CudaAttentionWorkload<T>>(spec);
  });
}

}  // namespace lmroof::attention
