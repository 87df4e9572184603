#pragma once
// What the training-stability tricks cost. Each variant is one trick on the tensor it
// touches, beside the neighbouring pass it would be fused into:
//
//   qknorm         RMSNorm of every q and k head (head_dim elements, gamma per head_dim,
//                  eps = norm::kEps) before RoPE (Dehghani et al. 2023; OLMo 2). The
//                  neighbour: the RoPE pass over the projection output, rotate-half as in
//                  kernels/block, fp32 cos/sin tables [tokens, head_dim/2].
//                  q [tokens, q_heads, head_dim], k [tokens, kv_heads, head_dim] in,
//                  rotated q and k out (separate buffers).
//   zloss          z-loss = kZLossCoef · logsumexp(logits)² per token, added to the
//                  cross-entropy (PaLM). The neighbour: the cross-entropy forward over the
//                  output logits [tokens, vocab], which computes the logsumexp anyway.
//                  loss[t] = lse_t − logits[t, target_t] (+ kZLossCoef · lse_t²), fp32.
//   logit_softcap  cap·tanh(x/cap) on the output logits, cap = kLogitCap (Gemma 2's
//                  final_logit_softcapping), before the same cross-entropy.
//   attn_softcap   cap·tanh(x/cap) on the attention scores, cap = kAttnCap (Gemma 2's
//                  attn_logit_softcapping), before the softmax over the keys. Scores
//                  [q_heads·tokens, context] in (as eager attention materialises them),
//                  probabilities of the same shape out.
//
// Implementation levels:
//   without  the neighbouring pass alone: the baseline each trick is measured against.
//   unfused  the trick as its own pass over memory, then the neighbour (as a separate
//            kernel or module runs it).
//   fused    the trick inside the neighbour's pass: no extra bytes.
// Each variant has its own dimensions; a suite shape names them all (a model
// configuration) and complete_shape keeps the variant's own. Formulas:
// docs/cost-model.md#stability.
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/run_names/cost.h"
#include "common/host_buffer.h"
#include "kernels/run_names/workload.h"

namespace lmroof::stability {

inline constexpr double kZLossCoef = 1e-4;  // PaLM (Chowdhery et al. 2022)
inline constexpr float kLogitCap = 30.f;    // Gemma 2 final_logit_softcapping
inline constexpr float kAttnCap = 50.f;     // Gemma 2 attn_logit_softcapping

enum class Trick { qknorm, zloss, logit_softcap, attn_softcap };
enum class Level { without, unfused, fused };
Trick parse_trick(std::string_view variant);
Level parse_level(std::string_view impl);
float cap_of(Trick trick);  // kLogitCap or kAttnCap; 0 for the others

struct Dims {
  int64_t tokens = 0;
  int64_t q_heads = 0, kv_heads = 0, head_dim = 0;  // qknorm; q_heads also attn_softcap
  int64_t vocab = 0;                                // zloss, logit_softcap
  int64_t context = 0;                              // attn_softcap
  // Rows and width of the tensor the trick touches: (tokens·(q_heads + kv_heads),
  // head_dim), (tokens, vocab) or (q_heads·tokens, context).
  int64_t rows(Trick trick) const;
  int64_t width(Trick trick) const;
};
Dims dims_of(Trick trick, const Shape& shape);

// Keeps the variant's dimensions of `shape` (qknorm: tokens, q_heads, kv_heads,
// head_dim; zloss, logit_softcap: tokens, vocab; attn_softcap: tokens, q_heads,
// context), in that order, and validates them. Throws std::invalid_argument.
Shape complete_shape(Trick trick, const Shape& shape);

// One pass over memory: its bytes read and written and its FLOPs (the cost model sums
// them, and a level of two or more passes declares each as a step of a composite run,
// judged by the sum of their roof times; the kernels of each level follow the same list).
struct Pass {
  const char* what;
  double read_bytes;
  double write_bytes;
  FlopCount flops;
};
std::vector<Pass> passes(Trick trick, Level level, Dims d, int element_bytes);
Cost cost(Trick trick, Level level, Dims d, int element_bytes);

// Host inputs of one workload, drawn from a seed; the CPU and CUDA workloads and the
// tests share them.
struct HostInputs {
  // (HostVector: the inputs stream, so they take host_buffer.h's page policy; on
  // std::vector they sat on 4 KiB pages wherever THP is "madvise")
  HostVector<float> a, b;        // qknorm: q, k; logits / scores: a only
  HostVector<float> gamma_q, gamma_k;  // qknorm
  std::vector<float> cos_table, sin_table;  // qknorm, [tokens, head_dim/2] (L2-sized, filled by block::rope_tables)
  std::vector<int32_t> targets;   // zloss, logit_softcap
  void randomize(Trick trick, Dims d, uint64_t seed);
};

// float64 reference of the with-trick (with_trick) or baseline output: qknorm the
// rotated q then k, concatenated; zloss/logit_softcap the loss per token;
// attn_softcap the probabilities.
std::vector<double> reference(Trick trick, bool with_trick, Dims d, const HostInputs& in);
size_t output_size(Trick trick, Dims d);

// The RMS below which validation holds an output to an absolute error
// (relative_error's floor_rms): 1 nat for the per-token losses, which vanish when a
// token's target is its largest logit by a wide margin (in float, a loss of e^-12
// next to logits of 45 is noise: tokens of 5, all on their argmax, once every
// ~20000 fresh seeds), none for the others.
inline double validation_floor(Trick trick) {
  return trick == Trick::zloss || trick == Trick::logit_softcap ? 1.0 : 0.0;
}

std::unique_ptr<Workload> make_cpu(const RunSpec& spec);
std::unique_ptr<Workload> make_cuda(const RunSpec& spec);  // kernels/stability/stability_cuda.cu

}  // namespace lmroof::stability
