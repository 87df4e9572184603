#pragma once
// A pre-norm decoder block, forward over one sequence of `tokens` tokens, no biases:
//
//   serial   (GPT-2 / Llama order):
//     h = x + Wo · Attn(RoPE(Wqkv · RMSNorm1(x)))
//     y = h + Wdown · (silu(Wgate · RMSNorm2(h)) ⊙ Wup · RMSNorm2(h))
//   parallel (GPT-J / PaLM):
//     n = RMSNorm(x)
//     [q|k|v|g|u] = n · [Wq|Wk|Wv|Wgate|Wup]ᵀ            one GEMM, N = 3d + 2 d_ff
//     y = x + [Attn(RoPE(q,k), v) | silu(g) ⊙ u] · [Wo|Wdown]ᵀ   one GEMM, K = d + d_ff
//
// The two variants compute different functions; each has its own float64 reference.
// Pieces shared by both:
//   RMSNorm   gamma only, eps = norm::kEps (1e-5), the fused kernel of kernels/norm.
//   RoPE      "rotate-half" (GPT-NeoX / Hugging Face Llama) on q and k of every head:
//             for i < head_dim/2, with θ_i = 10000^(-2i/head_dim) and angle = t·θ_i,
//               out[i]        = x[i]·cos − x[i + head_dim/2]·sin
//               out[i + h/2]  = x[i + head_dim/2]·cos + x[i]·sin
//             positions t = 0 .. tokens−1; cos/sin tables are precomputed (like weights).
//   Attention causal, softmax(q kᵀ / sqrt(head_dim)) v per head, q_heads = kv heads.
//   SwiGLU    silu(g) ⊙ u with silu(g) = g · sigmoid(g); d_ff defaults to 8/3·d_model
//             rounded up to a multiple of 64.
// The serial block runs four GEMMs: QKV (one GEMM, N = 3d), O, gate|up (one GEMM,
// N = 2·d_ff, as fused gate_up projections do), down. The parallel block runs two.
//
// Options (shape dimensions, absent = 0):
//   qk_norm=1   RMSNorm of every q and k head (gamma_q, gamma_k of head_dim) before
//               RoPE (Dehghani et al. 2023; OLMo 2; per head as Gemma 3 and Qwen 3).
//   softcap=c   attention scores soft-capped to c·tanh(s/c) before the softmax
//               (Gemma 2: c = 50).
//   Both run on the CPU backend; the CUDA factory refuses them (and the CUDA suite
//   shapes leave them off).
// Implementation levels:
//   fused    the RMSNorm is one pass, attention keeps its score tile in cache (CPU),
//            SwiGLU is one pass; QK-norm runs inside the RoPE pass, the soft-cap inside
//            the softmax.
//   unfused  (CPU only) every norm, RoPE, activation and softmax step its own pass over
//            memory, as eager PyTorch (Hugging Face Llama / Gemma 2) runs them: RMSNorm
//            and QK-norm as the norm pair's six primitive passes, RoPE as
//            neg/cat/·cos/·sin/+ passes, attention with the full T×T scores per head
//            in memory (QKᵀ, ·scale, [/cap, tanh, ·cap], +mask, softmax, ·V), SwiGLU
//            as silu then ·up. The GEMMs are the fused level's.
// Cost formulas: docs/cost-model.md#block.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/run_names/cost.h"
#include "common/host_buffer.h"
#include "kernels/run_names/workload.h"

namespace lmroof::block {

inline constexpr double kRopeBase = 10000.0;
inline constexpr int64_t kDefaultHeadDim = 64;

enum class Variant { serial, parallel };
Variant parse_variant(std::string_view variant);

struct Dims {
  int64_t tokens;
  int64_t d_model;
  int64_t d_ff;
  int64_t q_heads;
  int64_t head_dim;
  bool qk_norm = false;
  int64_t softcap = 0;  // 0: no soft-cap
};
// Reads a completed shape (see complete_shape).
Dims dims_of(const Shape& shape);

// ceil(8·d_model / 3 / 64) · 64
int64_t default_d_ff(int64_t d_model);

// Fills d_ff (when absent), head_dim (64, or d_model / q_heads when only q_heads is
// given) and q_heads (d_model / head_dim), then validates: every dimension positive,
// d_model = q_heads · head_dim, head_dim even (RoPE rotates pairs), tensors within
// the element limit, qk_norm 0 or 1, softcap >= 0. Returns tokens, d_model, d_ff,
// q_heads, head_dim in that order, then qk_norm and softcap when they are not 0.
// Throws std::invalid_argument with a one-line reason.
Shape complete_shape(const Shape& shape);

// The backends differ only in attention bytes: the CUDA path materialises the T×T scores
// of every head in memory, the CPU path keeps a score tile in cache.
Cost cost(Variant variant, Dims d, int element_bytes, Backend backend = Backend::cpu, bool unfused = false);

// The eager RoPE's passes read full-width fp32 cos/sin tables [tokens, head_dim] (as
// Hugging Face builds them); the fused level reads the half-width ones below.

// A row-major [out, in] weight matrix whose rows are `ld` floats apart.
struct Linear {
  const float* w = nullptr;
  int64_t ld = 0;
};

// The block's parameters by their logical names, whatever the storage layout.
struct WeightsView {
  const float* gamma1 = nullptr;  // the (first) RMSNorm
  const float* gamma2 = nullptr;  // serial only: RMSNorm before the MLP
  const float* gamma_q = nullptr;  // QK-norm: [head_dim] each
  const float* gamma_k = nullptr;
  Linear wqkv;                    // [3d, d]: rows Wq, Wk, Wv
  Linear wgate, wup;              // [d_ff, d]
  Linear wo;                      // [d, d]
  Linear wdown;                   // [d, d_ff]
};

// Host storage of the weights. Both variants keep w_in = [Wq; Wk; Wv; Wgate; Wup]
// ([3d + 2 d_ff, d], one matrix; serial uses rows 0..3d and 3d..3d+2d_ff as its QKV and
// gate|up GEMMs). The output side differs: serial keeps Wo [d, d] and Wdown [d, d_ff]
// apart; parallel keeps them side by side as w_out = [Wo | Wdown] ([d, d + d_ff]).
struct HostWeights {
  Variant variant;
  Dims dims;
  std::vector<float> gamma1, gamma2;  // gamma2 empty for parallel
  std::vector<float> gamma_q, gamma_k;  // QK-norm, [head_dim] each (drawn whether used or not)
  HostVector<float> w_in;     // (the matrices stream: host_buffer.h's page policy)
  HostVector<float> w_out;    // serial: Wo [d, d]; parallel: [Wo | Wdown] [d, d + d_ff]
  HostVector<float> w_down;   // serial: Wdown [d, d_ff]; parallel: empty

  HostWeights(Variant v, Dims d);
  // gamma uniform in [0.5, 1.5]; each matrix uniform in ±1/sqrt(fan_in), so that
  // activations stay O(1) through the block.
  void randomize(uint64_t seed);
  WeightsView view() const;
};

// RoPE tables [tokens, head_dim/2] in fp32, angle t·10000^(-2i/head_dim).
void rope_tables(Dims d, std::vector<float>& cos_table, std::vector<float>& sin_table);

// float64 reference: y [tokens, d_model] from x [tokens, d_model].
void reference(Variant variant, Dims d, const WeightsView& w, std::span<const float> x, std::span<double> y);

std::unique_ptr<Workload> make_cpu(const RunSpec& spec);
std::unique_ptr<Workload> make_cuda(const RunSpec& spec);  // kernels/block/block_cuda.cu

}  // namespace lmroof::block
