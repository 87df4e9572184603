#include "analysis/predict/model_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/model/input_error.h"

namespace lmroof::predict {

Dtype parse_dtype(std::string_view text) {
  if (text == "bf16") return Dtype::bf16;
  if (text == "fp16") return Dtype::fp16;
  if (text == "fp8") return Dtype::fp8;
  if (text == "fp32") return Dtype::fp32;
  throw model::InputError(fmt::format("--dtype: '{}' is not one of bf16, fp16, fp8, fp32", text));
}

int64_t checked_mul(int64_t a, int64_t b, const std::string& what) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    throw model::InputError(fmt::format("{}: overflows 64-bit arithmetic ({} x {})", what, a, b));
  return out;
}

int64_t checked_add(int64_t a, int64_t b, const std::string& what) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    throw model::InputError(fmt::format("{}: overflows 64-bit arithmetic ({} + {})", what, a, b));
  return out;
}

namespace {

// Weights of one layer's norms: RMSNorm has a scale, LayerNorm a scale and a shift.
int64_t norm_parameters(const ModelConfig& m) { return (m.norm == NormKind::layernorm ? 2 : 1) * m.hidden; }

}  // namespace

ModelMemory model_memory(const ModelConfig& m, Dtype dtype) {
  const std::string what = fmt::format("--model {}: parameter count", m.name);
  auto mul = [&](int64_t a, int64_t b) { return checked_mul(a, b, what); };
  auto add = [&](int64_t a, int64_t b) { return checked_add(a, b, what); };
  const int64_t q = mul(m.q_heads, m.head_dim), kv = mul(m.kv_heads, m.head_dim);
  int64_t layer = mul(m.hidden, add(add(q, kv), kv));       // Q, K, V projections
  layer = add(layer, mul(q, m.hidden));                     // O projection
  layer = add(layer, mul(mul(m.gated_mlp ? 3 : 2, m.hidden), m.d_ff));  // up (and gate), down
  const int64_t norms_per_layer = m.parallel_block ? 1 : m.family == "gemma2" ? 4 : 2;  // Gemma 2 adds post-norms
  layer = add(layer, mul(norms_per_layer, norm_parameters(m)));
  const int64_t embedding = mul(m.vocab, m.hidden);
  int64_t total = add(mul(layer, m.layers), embedding);
  if (!m.tied_embeddings) total = add(total, embedding);   // a separate LM head
  if (m.family == "gpt2" && m.max_context) total = add(total, mul(*m.max_context, m.hidden));  // learned positions
  total = add(total, norm_parameters(m));                  // final norm
  ModelMemory out;
  out.parameters = total;
  out.weight_bytes = checked_mul(total, bytes_per_element(dtype), fmt::format("--model {}: weight bytes", m.name));
  out.kv_bytes_per_token = kv_bytes_per_sequence(m, m.kv_heads, 1, dtype);
  return out;
}

int64_t kv_bytes_per_sequence(const ModelConfig& m, int64_t kv_heads, int64_t context, Dtype dtype) {
  const std::string what = fmt::format("--model {}: KV cache bytes at context {}", m.name, context);
  const int64_t per_position_per_layer =
      checked_mul(checked_mul(2 * bytes_per_element(dtype), kv_heads, what), m.head_dim, what);
  const int64_t windowed = m.sliding_window ? std::count(m.sliding_layers.begin(), m.sliding_layers.end(), true) : 0;
  const int64_t full_layers_positions = checked_mul(m.layers - windowed, context, what);
  const int64_t windowed_positions = windowed ? checked_mul(windowed, std::min(context, *m.sliding_window), what) : 0;
  const int64_t total =
      checked_mul(per_position_per_layer, checked_add(full_layers_positions, windowed_positions, what), what);
  return total;
}

}  // namespace lmroof::predict
