#pragma once
// A model's memory: parameters and weight bytes (tied embeddings counted once), and
// the KV cache per token and per sequence, layer by layer (a sliding-window layer
// holds at most W positions). The lecture's formula per token:
//   2 (K and V) · layers · kv_heads · head_dim · bytes per element.
// All arithmetic is checked: a product that overflows 64 bits throws model::InputError.
#include <cstdint>
#include <string>

#include "analysis/predict/dtype.h"
#include "kernels/model_config/model_config.h"

namespace lmroof::predict {

struct ModelMemory {
  int64_t parameters = 0;
  int64_t weight_bytes = 0;
  // Every layer holding every position (a sliding-window layer's rate until its
  // window fills; kv_bytes_per_sequence caps it).
  int64_t kv_bytes_per_token = 0;
};

// Biases are not counted (the presets' families have none, GPT-2's are 0.1% of it).
ModelMemory model_memory(const ModelConfig& model, Dtype dtype);

// One sequence's KV cache at `context` positions with `kv_heads` heads per layer
// (the model's own, or a variant's: MHA = q_heads, MQA = 1), layer by layer.
int64_t kv_bytes_per_sequence(const ModelConfig& model, int64_t kv_heads, int64_t context, Dtype dtype);

// a · b, or model::InputError naming `what` when it overflows int64.
int64_t checked_mul(int64_t a, int64_t b, const std::string& what);
int64_t checked_add(int64_t a, int64_t b, const std::string& what);

}  // namespace lmroof::predict
