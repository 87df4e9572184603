#pragma once
// Sliding-window vs full attention decode, one token per sequence, over a stack of
// `layers` decode-attention layers:
//
//   full            every layer global: attends all `context` = n positions
//   sliding         every layer local: attends the last W = `window` positions
//   interleave_1_1  1 global : 1 local (alternating; Gemma-2)
//   interleave_1_5  1 global : 5 local (Gemma-3)
//
// A local layer keeps a rolling buffer of min(n, W) positions per kv head (Mistral's
// "rolling buffer cache": position p lives in slot p mod W), so its decode step is
// decode's attention over a cache of min(n, W) rows; a global layer's is decode's
// over n rows. Softmax is order-free, so the slots' rotation does not matter (the
// float64 reference attends the last W positions of the full history, and the CPU
// validation builds the rolling buffer from that history, so the slot mapping is
// checked). Attention per layer: decode's grouped level (kernels/decode), q
// [B, Hq, dh] per layer, K/V caches [B, Hkv, rows, dh] per layer.
//
// Every variant runs the same number of layers (default 6, a multiple of both mixes'
// periods), so runs compare like for like; a run's time, FLOPs and bytes are the
// stack's, and per layer they are 1/layers of that. The stack runs its layers one
// after another (measured as a stack, not derived from single-layer runs).
// Cost formulas: docs/cost-model.md#window.
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "kernels/run_names/cost.h"
#include "kernels/run_names/workload.h"
#include "decode/decode.h"

namespace lmroof::window {

enum class Kind { full, sliding, interleave_1_1, interleave_1_5 };
Kind parse_kind(std::string_view variant);

inline constexpr int64_t kDefaultLayers = 6;

struct Dims {
  int64_t batch;
  int64_t q_heads;
  int64_t kv_heads;
  int64_t head_dim;
  int64_t context;
  int64_t window;
  int64_t layers;
};
Dims dims_of(const Shape& shape);  // a completed shape

// Global layers of the stack: all (full), none (sliding), layers/2, layers/6.
int64_t global_layers(Kind kind, int64_t layers);
bool layer_is_global(Kind kind, int64_t layer);  // layer 0, 2, 4 ... (1:1); 0, 6, ... (1:5)
// Cache rows a layer attends: n (global) or min(n, W) (local).
decode::Dims layer_dims(Dims d, bool global);

// Fills kv_heads (decode's GQA rule) and layers (6) when absent and validates:
// every dimension positive, kv_heads divides q_heads, layers a multiple of the
// variant's period (2 for 1:1, 6 for 1:5). Returns batch, q_heads, kv_heads,
// head_dim, context, window, layers. Throws std::invalid_argument.
Shape complete_shape(Kind kind, const Shape& shape);

// The stack's cost: the sum of decode's grouped cost over its layers. A stack of global
// and local layers declares them as its steps (Cost::steps: the global layers, then the
// local ones), judged by the sum of their roof times; an all-global or all-local stack
// has one kind of layer, whose roof times sum to the whole stack's.
Cost cost(Kind kind, Dims d, int element_bytes, Backend backend);

// float64 reference of one layer: q [B, Hq, dh] attends positions
// [max(0, n − W), n) of the full history K/V [B, Hkv, n, dh]; out [B, Hq, dh].
void reference(decode::Dims history, int64_t window, std::span<const float> q, std::span<const float> k,
               std::span<const float> v, std::span<double> out);

// The rolling buffer of a local layer: rows [B, Hkv, min(n, W), dh], position p in slot p mod W.
void to_rolling_buffer(decode::Dims history, int64_t window, std::span<const float> full, std::span<float> ring);

std::unique_ptr<Workload> make_cpu(const RunSpec& spec);
std::unique_ptr<Workload> make_cuda(const RunSpec& spec);  // kernels/window/window_cuda.cu

}  // namespace lmroof::window
