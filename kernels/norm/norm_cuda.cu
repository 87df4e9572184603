// CUDA kernels for the norm pair (bf16 or fp32 storage, fp32 arithmetic).
//
// fused: one kernel, x read once and y written once. Each row lives in registers
//   between the statistics and the output: 16-byte vector loads (8 bf16 / 4 fp32),
//   a warp per row for short rows (no barrier, 4 rows per 128-thread block) and a
//   block per row for long ones, so that every thread holds at most 4 vectors
//   (32 bf16 values) whatever d is. LayerNorm takes two passes over the registers
//   (mean, then sum of squared deviations): no E[x²] - mean² cancellation. The row
//   is kept as loaded (packed bf16 pairs) and widened to fp32 in each pass, which
//   halves its registers for bf16.
//   When d is not a multiple of the vector width, rows start at unaligned
//   addresses: each row is split into a scalar head (up to the next 16-byte
//   boundary), the vector body and a scalar tail. Rows longer than the register
//   budget (d > 32768 bf16 / 16384 fp32) or unaligned tensors take a streaming
//   block-per-row kernel that reads the row from memory in each pass.
//
// unfused: one kernel per entry of norm::unfused_passes(), in order, each a full
//   pass over memory with its result stored in the storage dtype, as eager PyTorch
//   runs F.layer_norm's decomposition (x.mean, sub, mul, mean, add, rsqrt, mul, mul,
//   add). The pass list is interpreted, not transcribed, so the kernels launched
//   are exactly the passes the cost model counts.
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/cuda_buffer.h"
#include "common/cuda_device.cuh"
#include "common/cuda_workload.h"
#include "common/host_data.h"
#include "norm/norm.h"
#include "norm/norm_cuda.cuh"

namespace lmroof::norm {

namespace {

using cuda::bf16;
using cuda::from_float;
using cuda::group_sum;
using cuda::kVec;
using cuda::load_vec;
using cuda::store_vec;
using cuda::to_float;

// ---------------------------------------------------------------------------
// fused, row in registers
// ---------------------------------------------------------------------------

// TPR threads per row (32: a warp; 128..1024: the whole block), VPT 16-byte vectors
// per thread: rows of up to TPR * VPT vectors (plus the scalar head and tail).
template <typename T, Kind K, int TPR, int VPT>
__global__ void __launch_bounds__(TPR < 128 ? 128 : TPR)
    fused_norm_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                      T* __restrict__ y, int64_t rows, int D, float eps) {
  constexpr int V = kVec<T>;
  constexpr int kRowsPerBlock = TPR < 128 ? 128 / TPR : 1;
  __shared__ float scratch[2][TPR / 32];

  const int lane = static_cast<int>(threadIdx.x) % TPR;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / TPR;
  if (row >= rows) return;  // uniform per row group: a whole warp, or the whole block (kRowsPerBlock = 1)

  const int64_t offset = row * D;
  const T* xr = x + offset;
  T* yr = y + offset;
  // x and y are 16-byte aligned (the launcher checks), so row alignment depends on the offset only.
  const int mis = static_cast<int>(offset % V);
  const int head = mis == 0 ? 0 : min(V - mis, D);
  const int nvec = (D - head) / V;
  const int tail_start = head + nvec * V;
  const int tail = D - tail_start;

  // the row's vectors stay in registers as loaded (bf16: 4 registers per 8 values);
  // unused slots hold zero bits, i.e. 0.0f
  uint4 raw[VPT];
#pragma unroll
  for (int k = 0; k < VPT; ++k) {
    const int idx = lane + k * TPR;
    raw[k] = idx < nvec ? cuda::load_raw_stream(xr + head + idx * V) : make_uint4(0, 0, 0, 0);
  }
  // head and tail are shorter than V <= 8 <= TPR: one element per thread at most
  const float hv = lane < head ? to_float(xr[lane]) : 0.f;
  const float tv = lane < tail ? to_float(xr[tail_start + lane]) : 0.f;

  const float inv_d = 1.0f / static_cast<float>(D);
  float mean = 0.f, ss = 0.f;
  if constexpr (K == Kind::layernorm) {
    float s = hv + tv;
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
      float v[V];
      cuda::unpack(raw[k], v);
#pragma unroll
      for (int j = 0; j < V; ++j) s += v[j];  // unused slots hold 0
    }
    mean = group_sum<TPR>(s, scratch[0]) * inv_d;
    // second pass over the registers: squared deviations, valid slots only
#pragma unroll
    for (int k = 0; k < VPT; ++k)
      if (lane + k * TPR < nvec) {
        float v[V];
        cuda::unpack(raw[k], v);
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const float dv = v[j] - mean;
          ss += dv * dv;
        }
      }
    if (lane < head) ss += (hv - mean) * (hv - mean);
    if (lane < tail) ss += (tv - mean) * (tv - mean);
  } else {
    ss = hv * hv + tv * tv;
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
      float v[V];
      cuda::unpack(raw[k], v);
#pragma unroll
      for (int j = 0; j < V; ++j) ss += v[j] * v[j];
    }
  }
  ss = group_sum<TPR>(ss, scratch[1]);
  const float rstd = rsqrtf(ss * inv_d + eps);

  // gamma/beta of the body are 16-byte aligned only when the row has no head
  const bool affine_vec = head == 0;
#pragma unroll
  for (int k = 0; k < VPT; ++k) {
    const int idx = lane + k * TPR;
    if (idx >= nvec) continue;
    const int col = head + idx * V;
    float v[V], g[V], b[V];
    cuda::unpack(raw[k], v);
    if (affine_vec) {
      load_vec(gamma + col, g);
      if constexpr (K == Kind::layernorm) load_vec(beta + col, b);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        g[j] = to_float(gamma[col + j]);
        if constexpr (K == Kind::layernorm) b[j] = to_float(beta[col + j]);
      }
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      v[j] = (v[j] - mean) * rstd * g[j];
      if constexpr (K == Kind::layernorm) v[j] += b[j];
    }
    store_vec(yr + col, v);
  }
  if (lane < head) {
    float o = (hv - mean) * rstd * to_float(gamma[lane]);
    if constexpr (K == Kind::layernorm) o += to_float(beta[lane]);
    yr[lane] = from_float<T>(o);
  }
  if (lane < tail) {
    const int c = tail_start + lane;
    float o = (tv - mean) * rstd * to_float(gamma[c]);
    if constexpr (K == Kind::layernorm) o += to_float(beta[c]);
    yr[c] = from_float<T>(o);
  }
}

// Any d, any alignment: a block per row, every pass reads the row from memory (L2 for
// rows this long would not fit registers anyway). Scalar accesses.
constexpr int kStreamThreads = 512;

template <typename T, Kind K>
__global__ void __launch_bounds__(kStreamThreads)
    streaming_norm_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                          T* __restrict__ y, int D, float eps) {
  __shared__ float scratch[2][kStreamThreads / 32];
  const int64_t offset = static_cast<int64_t>(blockIdx.x) * D;
  const T* xr = x + offset;
  T* yr = y + offset;
  const float inv_d = 1.0f / static_cast<float>(D);
  float mean = 0.f;
  if constexpr (K == Kind::layernorm) {
    float s = 0.f;
    for (int i = threadIdx.x; i < D; i += kStreamThreads) s += to_float(xr[i]);
    mean = group_sum<kStreamThreads>(s, scratch[0]) * inv_d;
  }
  float ss = 0.f;
  for (int i = threadIdx.x; i < D; i += kStreamThreads) {
    const float dv = to_float(xr[i]) - mean;
    ss += dv * dv;
  }
  const float rstd = rsqrtf(group_sum<kStreamThreads>(ss, scratch[1]) * inv_d + eps);
  for (int i = threadIdx.x; i < D; i += kStreamThreads) {
    float o = (to_float(xr[i]) - mean) * rstd * to_float(gamma[i]);
    if constexpr (K == Kind::layernorm) o += to_float(beta[i]);
    yr[i] = from_float<T>(o);
  }
}

template <typename T, Kind K, int TPR, int VPT>
void launch_fused(Dims d, const T* x, const T* gamma, const T* beta, T* y, cudaStream_t stream) {
  constexpr int kRowsPerBlock = TPR < 128 ? 128 / TPR : 1;
  const unsigned grid = cuda::blocks_for(d.tokens, kRowsPerBlock);
  fused_norm_kernel<T, K, TPR, VPT><<<grid, TPR * kRowsPerBlock, 0, stream>>>(
      x, gamma, beta, y, d.tokens, static_cast<int>(d.d_model), kEps);
  CUDA_CHECK_LAUNCH();
}

template <typename T, Kind K>
void fused_dispatch(Dims d, const T* x, const T* gamma, const T* beta, T* y, cudaStream_t stream) {
  const int64_t nv = d.d_model / kVec<T>;  // the body never has more vectors than this
  const bool aligned = cuda::aligned16(x) && cuda::aligned16(y) && cuda::aligned16(gamma) &&
                       (K == Kind::rmsnorm || cuda::aligned16(beta));
  if (aligned && nv <= 32) return launch_fused<T, K, 32, 1>(d, x, gamma, beta, y, stream);
  if (aligned && nv <= 64) return launch_fused<T, K, 32, 2>(d, x, gamma, beta, y, stream);
  if (aligned && nv <= 128) return launch_fused<T, K, 32, 4>(d, x, gamma, beta, y, stream);
  if (aligned && nv <= 256) return launch_fused<T, K, 128, 2>(d, x, gamma, beta, y, stream);
  if (aligned && nv <= 512) return launch_fused<T, K, 128, 4>(d, x, gamma, beta, y, stream);
  if (aligned && nv <= 1024) return launch_fused<T, K, 256, 4>(d, x, gamma, beta, y, stream);
  if (aligned && nv <= 2048) return launch_fused<T, K, 512, 4>(d, x, gamma, beta, y, stream);
  if (aligned && nv <= 4096) return launch_fused<T, K, 1024, 4>(d, x, gamma, beta, y, stream);
  streaming_norm_kernel<T, K><<<static_cast<unsigned>(d.tokens), kStreamThreads, 0, stream>>>(
      x, gamma, beta, y, static_cast<int>(d.d_model), kEps);
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------
// unfused primitives
// ---------------------------------------------------------------------------

// out[r] = mean(in[r, :]); a warp per row for short rows, a block of 256 for long ones.
template <typename T, int TPR, bool VECTOR>
__global__ void __launch_bounds__(TPR < 128 ? 128 : TPR)
    row_mean_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows, int D) {
  constexpr int kRowsPerBlock = TPR < 128 ? 128 / TPR : 1;
  __shared__ float scratch[TPR / 32];
  const int lane = static_cast<int>(threadIdx.x) % TPR;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / TPR;
  if (row >= rows) return;
  const T* r = in + row * D;
  float s = 0.f;
  if constexpr (VECTOR) {  // D % kVec == 0: every row is 16-byte aligned
    constexpr int V = kVec<T>;
    const int nvec = D / V;
#pragma unroll 4
    for (int i = lane; i < nvec; i += TPR) {
      float v[V];
      load_vec(r + i * V, v);
#pragma unroll
      for (int j = 0; j < V; ++j) s += v[j];
    }
  } else {
#pragma unroll 4
    for (int i = lane; i < D; i += TPR) s += to_float(r[i]);
  }
  s = group_sum<TPR>(s, scratch);
  if (lane == 0) out[row] = from_float<T>(s / static_cast<float>(D));
}

enum class Ew { sub_row, mul_row, square, mul_full, add_scalar, rsqrt, mul_col, add_col };

// One element-wise pass: out = a (op) b over n elements; "row" operands are per row of
// D elements ([n / D]), "col" operands per column ([D]), "full" operands [n].
// V elements per thread: 16-byte vectors when every vector stays inside one row.
template <typename T, int V, Ew OP>
__global__ void __launch_bounds__(256)
    ew_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, int64_t n, int64_t D,
              float scalar) {
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
  if (i >= n) return;
  float va[V], vb[V], vo[V];
  if constexpr (V == 1) {
    va[0] = to_float(a[i]);
  } else {
    load_vec(a + i, va);
  }
  if constexpr (OP == Ew::sub_row || OP == Ew::mul_row) {
    const float s = to_float(b[i / D]);
#pragma unroll
    for (int j = 0; j < V; ++j) vb[j] = s;
  } else if constexpr (OP == Ew::mul_col || OP == Ew::add_col || OP == Ew::mul_full) {
    const int64_t c = OP == Ew::mul_full ? i : i % D;
    if constexpr (V == 1) {
      vb[0] = to_float(b[c]);
    } else {
      load_vec(b + c, vb);
    }
  }
#pragma unroll
  for (int j = 0; j < V; ++j) {
    if constexpr (OP == Ew::sub_row) vo[j] = va[j] - vb[j];
    if constexpr (OP == Ew::mul_row || OP == Ew::mul_col || OP == Ew::mul_full) vo[j] = va[j] * vb[j];
    if constexpr (OP == Ew::square) vo[j] = va[j] * va[j];
    if constexpr (OP == Ew::add_col) vo[j] = va[j] + vb[j];
    if constexpr (OP == Ew::add_scalar) vo[j] = va[j] + scalar;
    if constexpr (OP == Ew::rsqrt) vo[j] = rsqrtf(va[j]);
  }
  if constexpr (V == 1) {
    out[i] = from_float<T>(vo[0]);
  } else {
    store_vec(out + i, vo);
  }
}

template <typename T, Ew OP>
void launch_ew(const T* a, const T* b, T* out, int64_t n, int64_t D, float scalar, cudaStream_t stream) {
  constexpr int V = kVec<T>;
  constexpr int kThreads = 256;
  // Vectors must not straddle rows (row and column operands) nor run past n.
  const bool rowwise = OP == Ew::sub_row || OP == Ew::mul_row || OP == Ew::mul_col || OP == Ew::add_col;
  if (n % V == 0 && (!rowwise || D % V == 0)) {
    ew_kernel<T, V, OP><<<cuda::blocks_for(n / V, kThreads), kThreads, 0, stream>>>(a, b, out, n, D, scalar);
  } else {
    ew_kernel<T, 1, OP><<<cuda::blocks_for(n, kThreads), kThreads, 0, stream>>>(a, b, out, n, D, scalar);
  }
  CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_row_mean(const T* in, T* out, int64_t rows, int64_t D, cudaStream_t stream) {
  const bool vector = D % kVec<T> == 0;
  const int d = static_cast<int>(D);
  if (D / kVec<T> <= 256) {  // a warp per row, 4 rows per block
    const unsigned grid = cuda::blocks_for(rows, 4);
    if (vector)
      row_mean_kernel<T, 32, true><<<grid, 128, 0, stream>>>(in, out, rows, d);
    else
      row_mean_kernel<T, 32, false><<<grid, 128, 0, stream>>>(in, out, rows, d);
  } else {
    const auto grid = static_cast<unsigned>(rows);
    if (vector)
      row_mean_kernel<T, 256, true><<<grid, 256, 0, stream>>>(in, out, rows, d);
    else
      row_mean_kernel<T, 256, false><<<grid, 256, 0, stream>>>(in, out, rows, d);
  }
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------
// The unfused pass list, interpreted
// ---------------------------------------------------------------------------

// Tensors a pass can name: the input x, the output y, the parameters gamma/beta
// ([D]), the scalar eps, and intermediates (per element [T, D] or per row [T]).
enum class Extent { full, row, col, scalar };

struct Operand {
  void* ptr = nullptr;
  Extent extent = Extent::full;
};

template <typename T>
class UnfusedPlan {
 public:
  UnfusedPlan(Kind kind, Dims d, const T* x, const T* gamma, const T* beta, T* y) : d_(d) {
    const int64_t TD = d.tokens * d.d_model;
    std::map<std::string, Operand> named = {
        {"x", {const_cast<T*>(x), Extent::full}},
        {"gamma", {const_cast<T*>(gamma), Extent::col}},
        {"beta", {const_cast<T*>(beta), Extent::col}},
        {"eps", {nullptr, Extent::scalar}},
    };
    for (const auto& pass : unfused_passes(kind, d)) {
      const std::string what = pass.what;
      const auto eq = what.find(" = ");
      if (eq == std::string::npos) fail(what);
      const std::string dst = what.substr(0, eq), expr = what.substr(eq + 3);
      if (named.count(dst)) fail(what);  // every pass writes a new tensor
      auto operand = [&](const std::string& name) {
        auto it = named.find(name);
        if (it == named.end()) fail(what);
        return it->second;
      };
      Step step;
      Extent out_extent = Extent::full;
      if (expr.ends_with(".mean(-1)")) {
        step.a = operand(expr.substr(0, expr.size() - 9));
        if (step.a.extent != Extent::full) fail(what);
        step.op = Step::mean;
        out_extent = Extent::row;
      } else if (expr.starts_with("rsqrt(") && expr.ends_with(")")) {
        step.a = operand(expr.substr(6, expr.size() - 7));
        step.op = Step::rsqrt;
        out_extent = step.a.extent;
      } else {
        const auto s1 = expr.find(' '), s2 = expr.rfind(' ');
        if (s1 == std::string::npos || s2 != s1 + 2) fail(what);
        step.a = operand(expr.substr(0, s1));
        step.b = operand(expr.substr(s2 + 1));
        const char op = expr[s1 + 1];
        const Extent ea = step.a.extent, eb = step.b.extent;
        if (ea == Extent::full && eb == Extent::full && op == '*') {
          step.op = Step::mul_full;
        } else if (ea == Extent::full && eb == Extent::row && (op == '-' || op == '*')) {
          step.op = op == '-' ? Step::sub_row : Step::mul_row;
        } else if (ea == Extent::full && eb == Extent::col && (op == '*' || op == '+')) {
          step.op = op == '*' ? Step::mul_col : Step::add_col;
        } else if (ea == Extent::row && eb == Extent::scalar && op == '+') {
          step.op = Step::add_scalar;
        } else {
          fail(what);
        }
        out_extent = ea;
      }
      const int64_t count = out_extent == Extent::full ? TD : d.tokens;
      if (count != static_cast<int64_t>(pass.write_elements)) fail(what);
      if (dst == "y") {
        if (out_extent != Extent::full) fail(what);
        step.out = y;
      } else {
        scratch_.emplace_back(sizeof(T) * count);
        step.out = scratch_.back().data();
      }
      step.n = count;
      named[dst] = {step.out, out_extent};
      steps_.push_back(step);
    }
    if (steps_.empty() || steps_.back().out != y) throw std::logic_error("norm: the unfused passes do not end in y");
  }

  void run(cudaStream_t stream) const {
    const int64_t D = d_.d_model;
    for (const Step& s : steps_) {
      const T* a = static_cast<const T*>(s.a.ptr);
      const T* b = static_cast<const T*>(s.b.ptr);
      T* out = static_cast<T*>(s.out);
      switch (s.op) {
        case Step::mean: launch_row_mean<T>(a, out, d_.tokens, D, stream); break;
        case Step::sub_row: launch_ew<T, Ew::sub_row>(a, b, out, s.n, D, 0.f, stream); break;
        case Step::mul_row: launch_ew<T, Ew::mul_row>(a, b, out, s.n, D, 0.f, stream); break;
        case Step::mul_full:  // x * x reads x once
          if (a == b)
            launch_ew<T, Ew::square>(a, nullptr, out, s.n, D, 0.f, stream);
          else
            launch_ew<T, Ew::mul_full>(a, b, out, s.n, D, 0.f, stream);
          break;
        case Step::mul_col: launch_ew<T, Ew::mul_col>(a, b, out, s.n, D, 0.f, stream); break;
        case Step::add_col: launch_ew<T, Ew::add_col>(a, b, out, s.n, D, 0.f, stream); break;
        case Step::add_scalar: launch_ew<T, Ew::add_scalar>(a, nullptr, out, s.n, D, kEps, stream); break;
        case Step::rsqrt: launch_ew<T, Ew::rsqrt>(a, nullptr, out, s.n, D, 0.f, stream); break;
      }
    }
  }

  size_t kernels() const { return steps_.size(); }

 private:
  struct Step {
    enum Op { mean, sub_row, mul_row, mul_full, mul_col, add_col, add_scalar, rsqrt } op = mean;
    Operand a, b;
    void* out = nullptr;
    int64_t n = 0;
  };
  [[noreturn]] static void fail(const std::string& what) {
    throw std::logic_error("norm: the CUDA unfused level cannot run the pass '" + what + "'");
  }

  Dims d_;
  std::vector<Step> steps_;
  std::vector<cuda::DeviceBuffer<std::byte>> scratch_;
};

// ---------------------------------------------------------------------------
// Workload
// ---------------------------------------------------------------------------

template <typename T>
class CudaNormWorkload final : public cuda::CudaWorkload {
 public:
  explicit CudaNormWorkload(const RunSpec& spec)
      : kind_(parse_kind(spec.variant)),
        fused_(spec.impl == "fused"),
        dtype_(spec.dtype),
        dims_(dims_of(spec.shape)),
        x_(dtype_, dims_.tokens * dims_.d_model),
        y_(dtype_, x_.size()),
        gamma_(dtype_, dims_.d_model),
        beta_(dtype_, dims_.d_model) {
    if (!fused_)
      unfused_ = std::make_unique<UnfusedPlan<T>>(kind_, dims_, x_.as<T>(), gamma_.as<T>(), beta_.as<T>(),
                                                  y_.as<T>());
    randomize(1);
  }

  void run() override {
    if (fused_)
      cuda_fused_norm<T>(kind_, dims_, x_.as<T>(), gamma_.as<T>(), beta_.as<T>(), y_.as<T>(), stream());
    else
      unfused_->run(stream());
  }

  Validation validate(uint64_t seed) override {
    const auto [x, gamma, beta] = randomize(seed);
    return run_against_reference(y_, tolerance_for(dtype_), [&](std::span<double> ref) {
      reference(kind_, dims_, cuda::span_of(x), cuda::span_of(gamma), cuda::span_of(beta), ref);
    });
  }

 private:
  // Draws the CPU workload's inputs (norm::fill_inputs), uploads them and returns them
  // rounded to the storage dtype (what the kernels read).
  std::tuple<std::vector<float>, std::vector<float>, std::vector<float>> randomize(uint64_t seed) {
    std::vector<float> x(x_.size()), gamma(dims_.d_model), beta(dims_.d_model);
    fill_inputs(seed, cuda::span_of(x), cuda::span_of(gamma), cuda::span_of(beta));
    for (auto* v : {&x, &gamma, &beta}) {
      cuda::round_to_dtype(dtype_, cuda::span_of(*v));
    }
    x_.upload(cuda::span_of(x), stream());
    gamma_.upload(cuda::span_of(gamma), stream());
    beta_.upload(cuda::span_of(beta), stream());
    return {std::move(x), std::move(gamma), std::move(beta)};
  }

  Kind kind_;
  bool fused_;
  DType dtype_;
  Dims dims_;
  cuda::DeviceTensor x_, y_, gamma_, beta_;
  std::unique_ptr<UnfusedPlan<T>> unfused_;
};

}  // namespace

template <typename T>
void cuda_fused_norm(Kind kind, Dims d, const T* x, const T* gamma, const T* beta, T* y, cudaStream_t stream) {
  if (d.tokens <= 0 || d.d_model <= 0) return;
  if (kind == Kind::layernorm)
    fused_dispatch<T, Kind::layernorm>(d, x, gamma, beta, y, stream);
  else
    fused_dispatch<T, Kind::rmsnorm>(d, x, gamma, beta, y, stream);
}

template void cuda_fused_norm<float>(Kind, Dims, const float*, const float*, const float*, float*, cudaStream_t);
template void cuda_fused_norm<cuda::bf16>(Kind, Dims, const cuda::bf16*, const cuda::bf16*, const cuda::bf16*,
                                          cuda::bf16*, cudaStream_t);

std::unique_ptr<Workload> make_cuda(const RunSpec& spec) {
  return cuda::with_storage_type(spec.dtype, [&]<typename T>() -> std::unique_ptr<Workload> {
    return std::make_unique<CudaNormWorkload<T>>(spec);
  });
}

}  // namespace lmroof::norm
