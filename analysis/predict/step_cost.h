#pragma once
// One whole step of a model on the roofline, op by op: a prefill of n tokens (one
// sequence) or one decode step of b sequences at context n. Every op is one kernel
// per layer (final norm and LM head once); its speed-of-light time per launch is
//   max(F / P, B / W) + t0
// (F FLOPs, B bytes moved to and from memory, P the dense peak, W the bandwidth, t0
// the launch overhead). docs/predict.md lists the formulas and what they leave out.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/predict/dtype.h"
#include "kernels/model_config/model_config.h"

namespace lmroof::predict {

enum class StepBound { memory, compute, latency };
std::string_view to_string(StepBound bound);

struct Roof {
  double peak_flops = 0;         // P
  double bandwidth_bytes_per_s = 0;  // W
  double launch_s = 0;           // t0
};

struct OpCost {
  std::string name;    // "attn_norm", "qkv", "rope", "attention", "o_proj", "residual", "mlp_norm", "mlp_up", "mlp_act", "mlp_down", "final_norm", "lm_head", "embedding"
  double flops = 0;    // over all its launches
  double bytes = 0;
  int64_t launches = 0;
  double compute_s = 0, memory_s = 0, launch_s = 0;  // Σ F/P, Σ B/W, launches · t0
  double time_s = 0;   // Σ per launch max(F/P, B/W) + t0
  StepBound bound = StepBound::memory;  // the largest of the three terms
};

struct StepCost {
  std::vector<OpCost> ops;
  double flops = 0, bytes = 0, time_s = 0;
  double compute_s = 0, memory_s = 0, launch_s = 0;  // the ops' terms where each op is bound
  StepBound bound = StepBound::memory;  // whose share of the time is largest
};

StepCost prefill_step(const ModelConfig& model, int64_t tokens, Dtype dtype, const Roof& roof);
StepCost decode_step(const ModelConfig& model, int64_t batch, int64_t context, Dtype dtype, const Roof& roof);

// The ops of the model's layers alone (no embedding, final norm or LM head): a prefill
// of `batch` sequences of `tokens` each, or one decode step of `batch` sequences at
// `context`. `lmroof run --model` predicts its measured layer, MLP and block runs from
// these (analysis/predict/run_prediction.h), so both answers come from one model.
std::vector<OpCost> prefill_layer_ops(const ModelConfig& model, int64_t batch, int64_t tokens, Dtype dtype, const Roof& roof);
std::vector<OpCost> decode_layer_ops(const ModelConfig& model, int64_t batch, int64_t context, Dtype dtype, const Roof& roof);

// A step made of these ops: the totals, each op's bound and the step's (the term that
// holds most of the time).
StepCost sum_ops(std::vector<OpCost> ops);

}  // namespace lmroof::predict
