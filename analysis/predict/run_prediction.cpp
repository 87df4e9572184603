#include "analysis/predict/run_prediction.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/text/numbers.h"
#include "analysis/predict/measured_device.h"
#include "analysis/predict/step_cost.h"

namespace lmroof::predict {

namespace {

int64_t dim(const model::Run& run, const char* name) {
  const auto it = run.shape.find(name);
  return it == run.shape.end() ? 0 : it->second;
}

// The model, reduced to the one layer a run measures: no sliding window (the pairs run
// full attention), the run's own sizes in place of the model's.
ModelConfig one_layer(const ModelConfig& model) {
  ModelConfig m = model;
  m.layers = 1;
  m.sliding_window.reset();
  m.sliding_layers = {false};
  return m;
}

std::vector<OpCost> only(std::vector<OpCost> ops, std::initializer_list<std::string_view> names) {
  std::erase_if(ops, [&](const OpCost& op) { return std::find(names.begin(), names.end(), op.name) == names.end(); });
  return ops;
}

std::string joined_names(const std::vector<OpCost>& ops) {
  std::string out;
  for (const auto& op : ops) out += (out.empty() ? "" : "+") + op.name;
  return out;
}

}  // namespace

std::optional<model::PredictedTime> predict_run(const model::Run& run, const ModelConfig& model, const Device& device) {
  const Dtype dtype = run.dtype == "fp32" ? Dtype::fp32 : run.dtype == "fp16" ? Dtype::fp16 : Dtype::bf16;
  const auto peak = device.dense_peak_flops.find(to_string(dtype));
  if (peak == device.dense_peak_flops.end()) return std::nullopt;
  const Roof roof{.peak_flops = peak->second, .bandwidth_bytes_per_s = device.bandwidth_bytes_per_s, .launch_s = device.launch_s};
  ModelConfig m = one_layer(model);
  std::vector<OpCost> ops;
  if (run.pair == "mlp") {
    // The pair's two MLPs at the run's d_ff: SwiGLU (gated, SiLU) or a plain GeLU one.
    m.hidden = dim(run, "d_model");
    m.d_ff = dim(run, "d_ff");
    m.gated_mlp = run.variant == "swiglu";
    m.activation = m.gated_mlp ? "silu" : "gelu";
    ops = only(prefill_layer_ops(m, 1, dim(run, "tokens"), dtype, roof), {"mlp_up", "mlp_act", "mlp_down"});
  } else if (run.pair == "attention") {
    // One attention layer with its projections and no RoPE (kernels/attention/attention.h).
    m.hidden = dim(run, "d_model");
    m.q_heads = dim(run, "q_heads");
    m.kv_heads = dim(run, "kv_heads");
    m.head_dim = dim(run, "head_dim");
    const int64_t batch = dim(run, "batch"), context = dim(run, "context");
    ops = run.impl == "decode" ? decode_layer_ops(m, batch, context, dtype, roof)
                               : prefill_layer_ops(m, batch, context, dtype, roof);
    ops = only(std::move(ops), {"qkv", "attention", "o_proj"});
  } else if (run.pair == "block") {
    // The whole pre-norm block the pair runs: RMSNorm, MHA with RoPE, SwiGLU, serial or
    // parallel (kernels/block/block.h), one sequence of `tokens`.
    m.hidden = dim(run, "d_model");
    m.d_ff = dim(run, "d_ff");
    m.q_heads = m.kv_heads = dim(run, "q_heads");
    m.head_dim = dim(run, "head_dim");
    m.norm = NormKind::rmsnorm;
    m.gated_mlp = true;
    m.activation = "silu";
    m.parallel_block = run.variant == "parallel";
    if (m.family == "gpt2" || m.family == "opt" || m.family == "bloom") m.family = "llama";  // the block runs RoPE
    if (m.family == "gemma2") m.family = "llama";  // and no post-norms
    ops = prefill_layer_ops(m, 1, dim(run, "tokens"), dtype, roof);
  } else {
    return std::nullopt;
  }
  if (ops.empty()) return std::nullopt;
  const std::string names = joined_names(ops);
  const StepCost step = sum_ops(std::move(ops));
  if (!(step.time_s > 0)) return std::nullopt;
  model::PredictedTime p;
  p.time_s = step.time_s;
  p.bound = std::string(to_string(step.bound));
  p.error = (step.time_s - run.time_s.median) / run.time_s.median;
  p.ops = names;
  p.basis = fmt::format("lmroof predict's per-op model, one launch per op: max(F/P, B/W) + t0 with P {}, W {}, t0 {}",
                        numbers::si(roof.peak_flops, "FLOP/s"), numbers::si(roof.bandwidth_bytes_per_s, "B/s"),
                        device.launch_s > 0 ? numbers::si(device.launch_s, "s") : std::string("0 (") + device.launch_source + ")");
  return p;
}

std::optional<std::string> predict_runs(model::Results& results, const ModelConfig& model) {
  Device device;
  try {
    device = device_from_results(results, "results.json", std::nullopt);
  } catch (const model::InputError& e) {
    return std::string(e.what());
  }
  for (auto& run : results.runs) run.predicted = predict_run(run, model, device);
  return std::nullopt;
}

}  // namespace lmroof::predict
