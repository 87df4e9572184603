#pragma once
// `lmroof predict`'s answer for one model on one or more devices: memory (weights, KV
// cache per context, the largest batch that fits), the MHA/GQA/MQA variants of the
// model's KV cache, and the speed of light of prefill and of one decode step per
// batch and context. to_json writes the format docs/predict.schema.json describes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/predict/devices.h"
#include "analysis/predict/dtype.h"
#include "analysis/predict/model_memory.h"
#include "analysis/predict/step_cost.h"
#include "kernels/model_config/model_config.h"

namespace lmroof::predict {

struct KvVariant {
  std::string name;  // "MHA", "GQA", "MQA"
  int64_t kv_heads = 0;
  bool models_own = false;  // the model's own attention
  int64_t kv_bytes_per_token = 0;
  std::vector<int64_t> kv_bytes_per_sequence;  // one per context
};

struct ContextMemory {
  int64_t context = 0;
  int64_t kv_bytes_per_sequence = 0;
  std::optional<int64_t> max_batch;  // absent when the device's memory is not known
};

struct DecodePoint {
  int64_t batch = 0, context = 0;
  double step_s = 0;
  double tokens_per_s = 0;               // aggregate: batch / step
  double tokens_per_s_per_sequence = 0;  // 1 / step
  StepBound bound = StepBound::memory;
  std::optional<bool> fits;  // batch <= max_batch at this context
};

struct PrefillPoint {
  int64_t tokens = 0;
  double time_s = 0, tokens_per_s = 0;
  StepBound bound = StepBound::memory;
};

struct DevicePrediction {
  Device device;
  std::optional<bool> fits_weights;
  std::vector<ContextMemory> contexts;
  std::vector<DecodePoint> decode;
  std::vector<PrefillPoint> prefill;
  // Per context: the smallest batch (searched up to 2^20) whose decode step is
  // compute-bound, absent when none is.
  std::vector<std::optional<int64_t>> compute_bound_from_batch;
  // One decode step at the first batch and the last context, op by op.
  std::optional<StepCost> decode_step_ops;
  int64_t decode_step_batch = 0, decode_step_context = 0;
  std::optional<std::string> missing;  // why there are no timings (no peak for the dtype)
};

struct Prediction {
  ModelConfig model;
  Dtype dtype = Dtype::bf16;
  ModelMemory memory;
  std::vector<int64_t> contexts, batches;
  std::vector<KvVariant> variants;
  std::vector<DevicePrediction> devices;
};

// contexts and batches: each >= 1 (the CLI checks). Throws model::InputError when the
// KV arithmetic overflows 64 bits.
Prediction predict(const ModelConfig& model, Dtype dtype, const std::vector<int64_t>& contexts,
                   const std::vector<int64_t>& batches, const std::vector<Device>& devices);

nlohmann::json to_json(const Prediction& prediction);

}  // namespace lmroof::predict
