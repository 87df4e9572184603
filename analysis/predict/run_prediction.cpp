#include "analysis/predict/run_prediction.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/results/findings.h"
#include "analysis/numbers/numbers.h"
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

std::string joined_names(const std::vector<OpCost>& ops) {
  std::string out;
  for (const auto& op : ops) out += (out.empty() ? "" : "+") + op.name;
  return out;
}

// The run's own sizes and its pair's settings in place of the model's
// (PairModelMapping, kernels/model_config.h).
void apply(const ModelSettings& s, ModelConfig& m) {
  if (s.family) m.family = *s.family;
  if (s.activation) m.activation = *s.activation;
  if (s.gated_mlp) m.gated_mlp = *s.gated_mlp;
  if (s.parallel_block) m.parallel_block = *s.parallel_block;
  if (s.norm) m.norm = *s.norm;
}

int64_t* field_of(ModelConfig& m, std::string_view field) {
  if (field == "hidden") return &m.hidden;
  if (field == "q_heads") return &m.q_heads;
  if (field == "kv_heads") return &m.kv_heads;
  if (field == "head_dim") return &m.head_dim;
  if (field == "d_ff") return &m.d_ff;
  return nullptr;  // (the reader allows kMappedModelFields only)
}

}  // namespace

std::optional<model::PredictedTime> predict_run(const model::Run& run, const PairModelMapping* mapping,
                                                const ModelConfig& model, const Device& device) {
  if (!mapping) return std::nullopt;
  const Dtype dtype = run.dtype == "fp32" ? Dtype::fp32 : run.dtype == "fp16" ? Dtype::fp16 : Dtype::bf16;
  const auto peak = device.dense_peak_flops.find(to_string(dtype));
  if (peak == device.dense_peak_flops.end()) return std::nullopt;
  const Roof roof{.peak_flops = peak->second, .bandwidth_bytes_per_s = device.bandwidth_bytes_per_s, .launch_s = device.launch_s};
  ModelConfig m = one_layer(model);
  for (const auto& [field, d] : mapping->dims)
    if (int64_t* f = field_of(m, field)) *f = dim(run, d.c_str());
  apply(mapping->settings, m);
  for (const auto& [variant, settings] : mapping->variant_settings)
    if (variant == run.variant) apply(settings, m);
  const int64_t batch = mapping->batch_dim.empty() ? 1 : dim(run, mapping->batch_dim.c_str());
  const int64_t tokens = dim(run, mapping->tokens_dim.c_str());
  const bool decode =
      std::find(mapping->decode_impls.begin(), mapping->decode_impls.end(), run.impl) != mapping->decode_impls.end();
  std::vector<OpCost> ops =
      decode ? decode_layer_ops(m, batch, tokens, dtype, roof) : prefill_layer_ops(m, batch, tokens, dtype, roof);
  if (!mapping->ops.empty())
    std::erase_if(ops, [&](const OpCost& op) {
      return std::find(mapping->ops.begin(), mapping->ops.end(), op.name) == mapping->ops.end();
    });
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
  for (auto& run : results.runs) {
    const model::CataloguePair* pair = results.catalogue.find(run.pair);
    run.predicted = predict_run(run, pair && pair->model_mapping ? &*pair->model_mapping : nullptr, model, device);
  }
  // The one summary of how far off they are (Findings::prediction_errors), now they exist.
  if (results.findings)
    results.findings->prediction_errors = prediction_errors(results);
  else
    decide(results);
  return std::nullopt;
}

}  // namespace lmroof::predict
