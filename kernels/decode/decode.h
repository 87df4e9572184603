#pragma once
// Decode attention: one new token per sequence attends over a KV cache of
// `context` tokens. q [batch, q_heads, head_dim]; K and V caches
// [batch, kv_heads, context, head_dim]; out [batch, q_heads, head_dim]; fp32;
// scores scaled by 1/sqrt(head_dim). Query head h reads kv head h / group, with
// group = q_heads / kv_heads (consecutive query heads share a kv head).
// Variants: "mha" (kv_heads = q_heads), "gqa" (a group of query heads shares a kv
// head), "mqa" (kv_heads = 1).
// Implementation levels: "naive" (each query head streams its K and V rows itself,
// so a group of g query heads reads the same K/V g times) and "grouped" (each K/V
// row is loaded once and used by all g query heads of its group). Both use an
// online (flash-decoding style) softmax and, when there are too few
// (batch, head) work items to fill the threads, split the context and combine.
// "blas" (CPU only) is the formulation a framework runs: per (sequence, kv head),
// scores = Q·Kᵀ and out = P·V as two OpenBLAS sgemm calls with the group's query
// heads folded into M, a row softmax between them over scores kept in memory.
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "kernels/run_names/cost.h"
#include "kernels/run_names/workload.h"

namespace lmroof::decode {

enum class Kind { mha, gqa, mqa };
Kind parse_kind(std::string_view variant);
enum class Impl { naive, grouped, blas };
Impl parse_impl(std::string_view impl);

struct Dims {
  int64_t batch;
  int64_t q_heads;
  int64_t kv_heads;
  int64_t head_dim;
  int64_t context;
  int64_t group() const { return q_heads / kv_heads; }
};
Dims dims_of(const Shape& shape);  // a completed shape (kv_heads present)

// The GQA group size used when the shape gives no kv_heads: the largest divisor of
// q_heads that is at most 8 (8 whenever q_heads is a multiple of 8, as in
// Llama-2-70B; q_heads = 4 gives one kv head; a prime q_heads above 8 gives
// group 1). mha: q_heads; mqa: 1.
int64_t default_kv_heads(Kind kind, int64_t q_heads);

// Fills kv_heads when absent and validates the shape: batch, q_heads, head_dim and
// context positive; a given kv_heads must equal q_heads for mha, 1 for mqa, and
// divide q_heads for gqa. Returns {batch, q_heads, kv_heads, head_dim, context}.
Shape complete_shape(Kind kind, const Shape& shape);

// How many pieces each (batch, head) work item's context is split into (split-K,
// combined afterwards). A function of the shape only, so the cost model knows it:
// on the CPU, split only while there are fewer than kTargetItems work items
// (batch × q_heads for naive, batch × kv_heads for grouped), and never into pieces
// shorter than kMinChunk positions. For CUDA it returns 1, although the CUDA kernels
// do split (up to 64 pieces, a count that depends on the SM count and occupancy, so
// it is not a function of the shape). Their partials are therefore left out of
// bytes_model. Computed (not measured) from the split heuristic with an H200's 132 SMs:
// under 1 % for MHA and naive, but ~4-6 % (GQA) and 13-51 % (MQA, 16k down to 4k
// context) for the GPU suite's grouped runs. The partials are a few MB and should
// mostly stay in L2.
inline constexpr int64_t kTargetItems = 32;
inline constexpr int64_t kMinChunk = 512;
int64_t context_splits(Backend backend, Impl impl, Dims d);

// `splits` as context_splits gives it; each split beyond one writes and the combine
// reads back head_dim + 2 floats (unnormalised output, running max, running sum)
// per query head. blas never splits; its scores make a round trip through memory.
Cost cost(Impl impl, Dims d, int64_t splits, int element_bytes);

// float64 reference: two-pass softmax per (batch, query head).
void reference(Dims d, std::span<const float> q, std::span<const float> k, std::span<const float> v,
               std::span<double> out);

// CPU kernel. `partials` must hold cpu_partial_floats(impl, d) floats (none without a
// split; for blas, the scores of one (sequence, kv head) per thread).
size_t cpu_partial_floats(Impl impl, Dims d);
void cpu_decode(Impl impl, Dims d, const float* q, const float* k, const float* v, float* out, float* partials);

// The blas level (decode_blas_cpu.cpp): `scores` holds blas_score_floats(d) floats.
size_t blas_score_floats(Dims d);
void cpu_decode_blas(Dims d, const float* q, const float* k, const float* v, float* out, float* scores);

// The inputs of one workload's validation, drawn from a seed, all uniform in ±1: the one
// recipe the CPU and CUDA workloads share (the CUDA one rounds them to its dtype after;
// its benchmark inputs are filled on the device, cuda::fill_uniform_on_device).
void fill_inputs(uint64_t seed, std::span<float> q, std::span<float> k, std::span<float> v);

std::unique_ptr<Workload> make_cpu(const RunSpec& spec);
std::unique_ptr<Workload> make_cuda(const RunSpec& spec);  // kernels/decode/decode_cuda.cu

}  // namespace lmroof::decode
