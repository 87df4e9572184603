// CUDA kernels for the block pair ("fused" level, both variants), bf16 storage with
// fp32 accumulation (or fp32 throughout). The phases and the buffers follow
// block_cpu.cpp one for one:
//
//   normalization  norm::cuda_fused_norm (RMSNorm): the fused kernel of kernels/norm.
//   matrix         cuBLASLt GEMMs, activations [T, in] times nn.Linear weights [out, in]ᵀ
//                  (tensor cores for bf16; fp32 SGEMM without TF32 for fp32). The
//                  serial block runs four (QKV, O, gate|up, down), the parallel two.
//   attention      per chunk of heads: S = q kᵀ / sqrt(dh) as one strided-batched
//                  cuBLASLt GEMM over the heads (q, k read in place from the fused
//                  projection output), a causal-softmax kernel in place on S (masked
//                  keys written as 0), O = P v as a second batched GEMM writing each
//                  head's columns of the output. S is materialised (T x T per head, in
//                  the storage dtype), as an eager framework does; the GEMM computes
//                  the full square, the softmax uses the causal half.
//   elementwise    RoPE in place on q and k (fp32 cos/sin tables), silu(g)·u (the shared
//                  kernel of common/activations.cuh), residual adds: 16-byte vectors
//                  where rows allow it.
//
// run() records a CUDA event between phases; last_class_seconds() waits for the last
// one and sums the phase times per operator class.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "block/block.h"
#include "common/activations.cuh"
#include "common/cublaslt_gemm.h"
#include "common/cuda_buffer.h"
#include "common/cuda_device.cuh"
#include "common/cuda_workload.h"
#include "common/host_data.h"
#include "norm/norm.h"
#include "norm/norm_cuda.cuh"

namespace lmroof::block {

namespace {

using cuda::kVec;
using cuda::launch_swiglu;
using cuda::load_n;
using cuda::span_of;
using cuda::store_n;

constexpr float kLog2e = 1.4426950408889634f;

// ---------------------------------------------------------------------------
// RoPE, in place on the 2·H heads (q then k) at columns [0, 2D) of a [T, ld] buffer.
// Each thread rotates N pairs (i, i + half) of one head of one token.
template <typename T, int N, bool VEC>
__global__ void __launch_bounds__(256)
    rope_kernel(T* __restrict__ qk, int64_t ld, int64_t tokens, int heads2, int half,
                const float* __restrict__ cos_t, const float* __restrict__ sin_t) {
  const int groups = half / N;  // N divides half
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= tokens * heads2 * groups) return;
  const int i = static_cast<int>(idx % groups) * N;
  const int64_t th = idx / groups;
  const int h = static_cast<int>(th % heads2);
  const int64_t t = th / heads2;
  T* p1 = qk + t * ld + static_cast<int64_t>(h) * 2 * half + i;
  T* p2 = p1 + half;
  float x1[N], x2[N], c[N], s[N], o1[N], o2[N];
  load_n<VEC>(p1, x1);
  load_n<VEC>(p2, x2);
  load_n<VEC>(cos_t + t * half + i, c);
  load_n<VEC>(sin_t + t * half + i, s);
#pragma unroll
  for (int k = 0; k < N; ++k) {
    o1[k] = x1[k] * c[k] - x2[k] * s[k];
    o2[k] = x2[k] * c[k] + x1[k] * s[k];
  }
  store_n<VEC>(p1, o1);
  store_n<VEC>(p2, o2);
}

template <typename T>
void launch_rope(const Dims& d, T* qk, int64_t ld, const float* cos_t, const float* sin_t, cudaStream_t stream) {
  constexpr int V = kVec<T>;
  const int half = static_cast<int>(d.head_dim / 2);
  const int heads2 = static_cast<int>(2 * d.q_heads);
  // vectors need: whole vectors per half-head, 16-byte aligned rows (q/k and the fp32 tables)
  const bool vec = half % V == 0 && cuda::rows_aligned16(qk, ld, sizeof(T)) && (half * 4) % 16 == 0 &&
                   cuda::aligned16(cos_t) && cuda::aligned16(sin_t);
  if (vec) {
    const int64_t n = d.tokens * heads2 * (half / V);
    rope_kernel<T, V, true><<<cuda::blocks_for(n, 256), 256, 0, stream>>>(qk, ld, d.tokens, heads2, half, cos_t, sin_t);
  } else {
    const int64_t n = d.tokens * heads2 * half;
    rope_kernel<T, 1, false><<<cuda::blocks_for(n, 256), 256, 0, stream>>>(qk, ld, d.tokens, heads2, half, cos_t,
                                                                          sin_t);
  }
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------
// y = a + b over n contiguous elements.
template <typename T, int N, bool VEC>
__global__ void __launch_bounds__(256)
    add_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, int64_t n) {
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * N;
  if (i >= n) return;
  float va[N], vb[N];
  load_n<VEC>(a + i, va);
  load_n<VEC>(b + i, vb);
#pragma unroll
  for (int k = 0; k < N; ++k) va[k] += vb[k];
  store_n<VEC>(y + i, va);
}

template <typename T>
void launch_add(const T* a, const T* b, T* y, int64_t n, cudaStream_t stream) {
  constexpr int V = kVec<T>;
  if (n % V == 0 && cuda::aligned16(a) && cuda::aligned16(b) && cuda::aligned16(y))
    add_kernel<T, V, true><<<cuda::blocks_for(n / V, 256), 256, 0, stream>>>(a, b, y, n);
  else
    add_kernel<T, 1, false><<<cuda::blocks_for(n, 256), 256, 0, stream>>>(a, b, y, n);
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------
// Causal softmax in place over rows of S [heads, T, T] (already scaled by the GEMM's
// alpha): row r of a head is query r, keys 0..r are visible. Three passes over the
// row, which stays in L1/L2 after the first: max, sum of exp, then
// P = exp(s - max) / sum for visible keys and 0 for the rest (the P·V GEMM reads the
// whole square). TPR threads per row: a warp for short rows, a block for long ones.
template <typename T, int TPR, bool VEC>
__global__ void __launch_bounds__(TPR < 128 ? 128 : TPR) causal_softmax_kernel(T* __restrict__ s, int64_t rows, int T_) {
  constexpr int kRowsPerBlock = TPR < 128 ? 128 / TPR : 1;
  constexpr int V = VEC ? kVec<T> : 1;
  __shared__ float scratch[2][TPR / 32];
  const int lane = static_cast<int>(threadIdx.x) % TPR;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / TPR;
  if (row >= rows) return;  // uniform per warp (warp rows) or per block
  const int q = static_cast<int>(row % T_);  // query index: keys 0..q visible
  const int visible = q + 1;
  T* r = s + row * T_;

  float m = -INFINITY;
  for (int j0 = lane * V; j0 < visible; j0 += TPR * V) {
    float v[V];
    load_n<VEC>(r + j0, v);
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (j0 + k < visible) m = fmaxf(m, v[k]);
  }
  if constexpr (TPR == 32) {
    m = cuda::warp_max(m);
  } else {
    m = cuda::warp_max(m);
    if (threadIdx.x % 32 == 0) scratch[0][threadIdx.x / 32] = m;
    __syncthreads();
#pragma unroll
    for (int w = 0; w < TPR / 32; ++w) m = fmaxf(m, scratch[0][w]);
  }
  const float m2 = m * kLog2e;  // visible >= 1: m is finite
  float sum = 0.f;
  for (int j0 = lane * V; j0 < visible; j0 += TPR * V) {
    float v[V];
    load_n<VEC>(r + j0, v);
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (j0 + k < visible) sum += exp2f(v[k] * kLog2e - m2);
  }
  const float inv = 1.0f / cuda::group_sum<TPR>(sum, scratch[1]);
  for (int j0 = lane * V; j0 < T_; j0 += TPR * V) {
    float v[V] = {};
    if (j0 < visible) load_n<VEC>(r + j0, v);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = j0 + k < visible ? exp2f(v[k] * kLog2e - m2) * inv : 0.f;
    store_n<VEC>(r + j0, v);
  }
}

template <typename T>
void launch_causal_softmax(T* s, int64_t heads, int64_t tokens, cudaStream_t stream) {
  const int64_t rows = heads * tokens;
  const int t = static_cast<int>(tokens);
  const bool vec = tokens % kVec<T> == 0 && cuda::aligned16(s);
  if (tokens <= 512) {
    const unsigned grid = cuda::blocks_for(rows, 4);
    if (vec)
      causal_softmax_kernel<T, 32, true><<<grid, 128, 0, stream>>>(s, rows, t);
    else
      causal_softmax_kernel<T, 32, false><<<grid, 128, 0, stream>>>(s, rows, t);
  } else {
    const auto grid = static_cast<unsigned>(rows);
    if (vec)
      causal_softmax_kernel<T, 256, true><<<grid, 256, 0, stream>>>(s, rows, t);
    else
      causal_softmax_kernel<T, 256, false><<<grid, 256, 0, stream>>>(s, rows, t);
  }
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------

template <typename T>
class CudaBlockWorkload final : public cuda::CudaWorkload {
 public:
  // At most this many bytes of materialised scores; heads are processed in chunks.
  static constexpr double kScoreBudgetBytes = 256.0 * (1 << 20);

  explicit CudaBlockWorkload(const RunSpec& spec)
      : variant_(parse_variant(spec.variant)), dtype_(spec.dtype), d_(dims_of(spec.shape)) {
    const int64_t T_ = d_.tokens, D = d_.d_model, F = d_.d_ff, H = d_.q_heads;
    const bool serial = variant_ == Variant::serial;
    const auto tensor = [&](size_t n) { return cuda::DeviceTensor(dtype_, n); };
    x_ = tensor(T_ * D);
    y_ = tensor(T_ * D);
    n_ = tensor(T_ * D);
    m_ = tensor(T_ * D);
    gamma1_ = tensor(D);
    w_in_ = tensor((3 * D + 2 * F) * D);
    if (serial) {
      gamma2_ = tensor(D);
      w_out_ = tensor(D * D);
      w_down_ = tensor(D * F);
      qkv_ = tensor(T_ * 3 * D);
      attn_ = tensor(T_ * D);
      h_ = tensor(T_ * D);
      gu_ = tensor(T_ * 2 * F);
      act_ = tensor(T_ * F);
    } else {
      w_out_ = tensor(D * (D + F));
      qkv_ = tensor(T_ * (3 * D + 2 * F));  // z = [q | k | v | gate | up]
      attn_ = tensor(T_ * (D + F));         // cat = [attn | silu(gate)·up]
    }
    head_chunk_ = static_cast<int64_t>(kScoreBudgetBytes / (static_cast<double>(T_) * T_ * dtype_bytes(dtype_)));
    head_chunk_ = std::max<int64_t>(1, std::min(head_chunk_, H));
    scores_ = tensor(static_cast<size_t>(head_chunk_ * T_ * T_));

    std::vector<float> cos_t, sin_t;
    rope_tables(d_, cos_t, sin_t);
    cos_ = cuda::DeviceBuffer<float>(cos_t.size());
    sin_ = cuda::DeviceBuffer<float>(sin_t.size());
    CUDA_CHECK(cudaMemcpy(cos_.data(), cos_t.data(), cos_.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(sin_.data(), sin_t.data(), sin_.bytes(), cudaMemcpyHostToDevice));

    plan_gemms();
    randomize(1);
  }

  void run() override {
    phase_classes_.clear();
    next_event_ = 0;
    mark();
    if (variant_ == Variant::serial)
      run_serial();
    else
      run_parallel();
  }

  Validation validate(uint64_t seed) override {
    const auto [x, weights] = randomize(seed);
    return run_against_reference(y_, tolerance_for(dtype_, /*composite=*/true), [&](std::span<double> ref) {
      reference(variant_, d_, weights->view(), span_of(x), ref);
    });
  }

  std::map<std::string, double> last_class_seconds() const override {
    std::map<std::string, double> seconds = {
        {kClassNormalization, 0.0}, {kClassMatmul, 0.0}, {kClassAttention, 0.0}, {kClassElementwise, 0.0}};
    if (phase_classes_.empty()) return seconds;
    CUDA_CHECK(cudaEventSynchronize(events_[phase_classes_.size()].get()));
    for (size_t i = 0; i < phase_classes_.size(); ++i) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i].get(), events_[i + 1].get()));
      seconds[phase_classes_[i]] += ms * 1e-3;
    }
    return seconds;
  }

 private:
  T* p(const cuda::DeviceTensor& t) const { return t.as<T>(); }

  void plan_gemms() {
    const int64_t T_ = d_.tokens, D = d_.d_model, F = d_.d_ff;
    auto linear = [&](const cuda::DeviceTensor& a, int64_t in, const T* w, int64_t ldw, int64_t out, T* c,
                      int64_t ldc) {
      return std::make_unique<cuda::GemmPlan>(blas_, cuda::linear_spec(T_, in, out, dtype_, in, ldw, ldc), a.data(),
                                              w, c);
    };
    const T* w_in = p(w_in_);
    if (variant_ == Variant::serial) {
      gemm_qkv_ = linear(n_, D, w_in, D, 3 * D, p(qkv_), 3 * D);
      gemm_o_ = linear(attn_, D, p(w_out_), D, D, p(m_), D);
      gemm_gu_ = linear(n_, D, w_in + 3 * D * D, D, 2 * F, p(gu_), 2 * F);
      gemm_down_ = linear(act_, F, p(w_down_), F, D, p(m_), D);
      plan_attention(p(qkv_), 3 * D, p(attn_), D);
    } else {
      gemm_qkv_ = linear(n_, D, w_in, D, 3 * D + 2 * F, p(qkv_), 3 * D + 2 * F);
      gemm_o_ = linear(attn_, D + F, p(w_out_), D + F, D, p(m_), D);
      plan_attention(p(qkv_), 3 * D + 2 * F, p(attn_), D + F);
    }
  }

  // q, k, v: heads at columns h·dh of [T, ld_in] (k at +D, v at +2D); out: [T, ld_out].
  void plan_attention(const T* q, int64_t ld_in, T* out, int64_t ld_out) {
    const int64_t T_ = d_.tokens, D = d_.d_model, H = d_.q_heads, dh = d_.head_dim;
    for (int64_t h0 = 0; h0 < H; h0 += head_chunk_) {
      const int64_t hc = std::min(head_chunk_, H - h0);
      cuda::GemmSpec qk;  // S[h] = q_h · k_hᵀ / sqrt(dh): [T, dh] x [T, dh]ᵀ
      qk.M = T_;
      qk.N = T_;
      qk.K = dh;
      qk.lda = ld_in;
      qk.ldb = ld_in;
      qk.ldc = T_;
      qk.b_transposed = true;
      qk.batch = hc;
      qk.stride_a = dh;
      qk.stride_b = dh;
      qk.stride_c = T_ * T_;
      qk.alpha = 1.0f / std::sqrt(static_cast<float>(dh));
      qk.dtype = dtype_;
      cuda::GemmSpec pv;  // O_h = P_h · v_h: [T, T] x [T, dh]
      pv.M = T_;
      pv.N = dh;
      pv.K = T_;
      pv.lda = T_;
      pv.ldb = ld_in;
      pv.ldc = ld_out;
      pv.b_transposed = false;
      pv.batch = hc;
      pv.stride_a = T_ * T_;
      pv.stride_b = dh;
      pv.stride_c = dh;
      pv.dtype = dtype_;
      const T* qh = q + h0 * dh;
      AttentionChunk chunk;
      chunk.heads = hc;
      chunk.qk = std::make_unique<cuda::GemmPlan>(blas_, qk, qh, qh + D, scores_.data());
      chunk.pv = std::make_unique<cuda::GemmPlan>(blas_, pv, scores_.data(), qh + 2 * D, out + h0 * dh);
      attention_.push_back(std::move(chunk));
    }
  }

  void attention() {
    for (const auto& c : attention_) {
      c.qk->run(stream());
      launch_causal_softmax<T>(p(scores_), c.heads, d_.tokens, stream());
      c.pv->run(stream());
    }
  }

  void rms(const cuda::DeviceTensor& in, const cuda::DeviceTensor& gamma) {
    norm::cuda_fused_norm<T>(norm::Kind::rmsnorm, {d_.tokens, d_.d_model}, p(in), p(gamma), nullptr, p(n_),
                             stream());
  }

  // Closes the current phase (if any) as `cls` and opens the next.
  void mark(const char* cls = nullptr) {
    if (cls) phase_classes_.push_back(cls);
    if (next_event_ == events_.size()) events_.emplace_back();
    events_[next_event_++].record(stream());
  }

  void run_serial() {
    const int64_t T_ = d_.tokens, D = d_.d_model, F = d_.d_ff;
    rms(x_, gamma1_);
    mark(kClassNormalization);
    gemm_qkv_->run(stream());
    mark(kClassMatmul);
    launch_rope<T>(d_, p(qkv_), 3 * D, cos_.data(), sin_.data(), stream());
    mark(kClassElementwise);
    attention();
    mark(kClassAttention);
    gemm_o_->run(stream());
    mark(kClassMatmul);
    launch_add<T>(p(x_), p(m_), p(h_), T_ * D, stream());
    mark(kClassElementwise);
    rms(h_, gamma2_);
    mark(kClassNormalization);
    gemm_gu_->run(stream());
    mark(kClassMatmul);
    launch_swiglu<T>(p(gu_), p(gu_) + F, 2 * F, p(act_), F, T_, F, stream());
    mark(kClassElementwise);
    gemm_down_->run(stream());
    mark(kClassMatmul);
    launch_add<T>(p(h_), p(m_), p(y_), T_ * D, stream());
    mark(kClassElementwise);
  }

  void run_parallel() {
    const int64_t T_ = d_.tokens, D = d_.d_model, F = d_.d_ff, ld = 3 * D + 2 * F;
    T* z = p(qkv_);
    T* cat = p(attn_);
    rms(x_, gamma1_);
    mark(kClassNormalization);
    gemm_qkv_->run(stream());
    mark(kClassMatmul);
    launch_rope<T>(d_, z, ld, cos_.data(), sin_.data(), stream());
    mark(kClassElementwise);
    attention();
    mark(kClassAttention);
    launch_swiglu<T>(z + 3 * D, z + 3 * D + F, ld, cat + D, D + F, T_, F, stream());
    mark(kClassElementwise);
    gemm_o_->run(stream());
    mark(kClassMatmul);
    launch_add<T>(p(x_), p(m_), p(y_), T_ * D, stream());
    mark(kClassElementwise);
  }

  // The CPU workload's inputs and weights, rounded to the storage dtype and uploaded.
  std::pair<std::vector<float>, std::unique_ptr<HostWeights>> randomize(uint64_t seed) {
    std::vector<float> x(x_.size());
    fill_uniform(span_of(x), seed, -1.f, 1.f);
    auto w = std::make_unique<HostWeights>(variant_, d_);
    w->randomize(seed + 10);
    for (std::span<float> v : {span_of(x), span_of(w->gamma1), span_of(w->gamma2), span_of(w->w_in),
                               span_of(w->w_out), span_of(w->w_down)})
      cuda::round_to_dtype(dtype_, v);
    x_.upload(span_of(x), stream());
    gamma1_.upload(span_of(w->gamma1), stream());
    w_in_.upload(span_of(w->w_in), stream());
    w_out_.upload(span_of(w->w_out), stream());
    if (variant_ == Variant::serial) {
      gamma2_.upload(span_of(w->gamma2), stream());
      w_down_.upload(span_of(w->w_down), stream());
    }
    return {std::move(x), std::move(w)};
  }

  struct AttentionChunk {
    int64_t heads = 0;
    std::unique_ptr<cuda::GemmPlan> qk, pv;
  };

  Variant variant_;
  DType dtype_;
  Dims d_;
  cuda::DeviceTensor x_, y_, n_, m_, gamma1_, gamma2_, w_in_, w_out_, w_down_;
  cuda::DeviceTensor qkv_, attn_, h_, gu_, act_, scores_;
  cuda::DeviceBuffer<float> cos_, sin_;
  int64_t head_chunk_ = 1;
  cuda::BlasContext blas_;
  std::unique_ptr<cuda::GemmPlan> gemm_qkv_, gemm_o_, gemm_gu_, gemm_down_;
  std::vector<AttentionChunk> attention_;
  std::vector<cuda::Event> events_;
  size_t next_event_ = 0;
  std::vector<const char*> phase_classes_;
};

}  // namespace

std::unique_ptr<Workload> make_cuda(const RunSpec& spec) {
  if (spec.impl != "fused")
    throw std::invalid_argument("block: the CUDA backend has the 'fused' implementation level only (unfused: CPU)");
  const Dims d = dims_of(spec.shape);
  if (d.qk_norm || d.softcap > 0)
    throw std::invalid_argument("block: qk_norm and softcap run on the CPU backend only");
  return cuda::with_storage_type(spec.dtype, [&]<typename T>() -> std::unique_ptr<Workload> {
    return std::make_unique<CudaBlockWorkload<T>>(spec);
  });
}

}  // namespace lmroof::block
