#pragma once
// One attention layer with its projections, in the two phases of inference:
//
//   prefill  every sequence's `context` tokens at once, causal:
//              [q | k | v] = x · [Wq; Wk; Wv]ᵀ          one GEMM, x [B·n, d]
//              K, V written into the cache [B, Hkv, n, dh] (the cache prefill leaves)
//              o = softmax(q kᵀ / √dh, causal) v          per query head
//              y = o · Woᵀ                                 y [B·n, d]
//   decode   one new token per sequence, the cache holding `context` = n positions
//            of which the last (n − 1) is the new token's:
//              q = x·Wqᵀ, k = x·Wkᵀ, v = x·Wvᵀ            x [B, d]
//              k, v written into the cache at position n − 1
//              o = softmax(q Kᵀ / √dh) V over the n positions (decode's kernel)
//              y = o · Woᵀ                                 y [B, d]
//
// Shapes: d_model = d, q_heads = Hq, kv_heads = Hkv, head_dim = dh (q_heads·head_dim
// need not equal d_model, as in Gemma), batch = B, context = n. Weights in nn.Linear
// layout: w_qkv = [Wq; Wk; Wv] ([Hq·dh + 2·Hkv·dh, d], one matrix), w_o [d, Hq·dh].
// No biases and no positional encoding (RoPE is element-wise on q and k and not part
// of Shazeer's counts). Query head h reads kv head h / (Hq/Hkv), as in decode.
// Variants: mha / gqa / mqa, kv_heads as decode fills it. Implementation levels: the
// phases, "prefill" and "decode". Cost formulas: docs/cost-model.md#attention.
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/run_names/cost.h"
#include "common/host_buffer.h"
#include "kernels/run_names/workload.h"
#include "decode/decode.h"

namespace lmroof::attention {

enum class Phase { prefill, decode };
Phase parse_phase(std::string_view impl);
decode::Kind parse_kind(std::string_view variant);

struct Dims {
  int64_t batch;
  int64_t d_model;
  int64_t q_heads;
  int64_t kv_heads;
  int64_t head_dim;
  int64_t context;
  int64_t q_dim() const { return q_heads * head_dim; }
  int64_t kv_dim() const { return kv_heads * head_dim; }
  int64_t qkv_dim() const { return q_dim() + 2 * kv_dim(); }
  // The attention over the cache as decode's kernels see it (decode phase).
  decode::Dims decode_dims() const { return {batch, q_heads, kv_heads, head_dim, context}; }
};
Dims dims_of(const Shape& shape);  // a completed shape

// head_dim defaults to d_model / q_heads (which must then divide), kv_heads as
// decode::complete_shape fills and checks it. Returns batch, d_model, q_heads,
// kv_heads, head_dim, context. Throws std::invalid_argument with a one-line reason.
Shape complete_shape(decode::Kind kind, const Shape& shape);

// Element bytes s; the backend changes the model bytes only (CUDA materialises the
// scores in memory, the CPU keeps a score tile in cache; CPU decode may split the
// context as decode's CPU kernel does).
Cost cost(Phase phase, Dims d, int element_bytes, Backend backend);

// Host data of one layer: weights, input, and for decode the cache's first n − 1
// positions (position n − 1 is the kernel's to write).
struct HostLayer {
  Dims dims;
  // (HostVector: the weights and the cache stream, so they take host_buffer.h's page
  // policy; on std::vector they sat on 4 KiB pages wherever THP is "madvise")
  HostVector<float> w_qkv, w_o;  // [qkv_dim, d], [d, q_dim]
  HostVector<float> x;           // prefill [B·n, d]; decode [B, d]
  HostVector<float> k_cache, v_cache;  // decode only: [B, Hkv, n, dh]
  HostLayer(Phase phase, Dims d);
  // Weights uniform in ±1/√fan_in (activations stay O(1)), x and the cache in [-1, 1).
  void randomize(uint64_t seed);
};

// float64 reference: y [B·n, d] (prefill) or [B, d] (decode).
void reference(Phase phase, Dims d, const HostLayer& in, std::span<double> y);

std::unique_ptr<Workload> make_cpu(const RunSpec& spec);
std::unique_ptr<Workload> make_cuda(const RunSpec& spec);  // kernels/attention/attention_cuda.cu

}  // namespace lmroof::attention
