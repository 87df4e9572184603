#include "analysis/predict/prediction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/model/input_error.h"

namespace lmroof::predict {

namespace {

constexpr int64_t kLargestBatchSearched = int64_t{1} << 20;

std::vector<KvVariant> kv_variants(const ModelConfig& m, Dtype dtype, const std::vector<int64_t>& contexts) {
  std::vector<KvVariant> out;
  const std::pair<const char*, int64_t> kinds[] = {
      {"MHA", m.q_heads},
      {"GQA", m.attention_kind() == "GQA" ? m.kv_heads : default_gqa_kv_heads(m.q_heads)},
      {"MQA", 1},
  };
  for (const auto& [name, kv_heads] : kinds) {
    KvVariant v;
    v.name = name;
    v.kv_heads = kv_heads;
    v.models_own = m.attention_kind() == name;
    v.kv_bytes_per_token = kv_bytes_per_sequence(m, kv_heads, 1, dtype);
    for (int64_t c : contexts) v.kv_bytes_per_sequence.push_back(kv_bytes_per_sequence(m, kv_heads, c, dtype));
    out.push_back(std::move(v));
  }
  return out;
}

// The device's dense peak for `dtype` (fp16 and bf16 stand in for each other).
std::optional<double> peak_for(const Device& d, Dtype dtype) {
  const auto it = d.dense_peak_flops.find(to_string(dtype));
  if (it != d.dense_peak_flops.end()) return it->second;
  if (dtype == Dtype::bf16 || dtype == Dtype::fp16) {
    const auto other = d.dense_peak_flops.find(dtype == Dtype::bf16 ? "fp16" : "bf16");
    if (other != d.dense_peak_flops.end()) return other->second;
  }
  return std::nullopt;
}

bool decode_compute_bound(const ModelConfig& m, int64_t batch, int64_t context, Dtype dtype, const Roof& roof) {
  const StepCost s = decode_step(m, batch, context, dtype, roof);
  return s.compute_s > s.memory_s;
}

// Compute time grows with the batch faster than memory time (the weights are read
// once per step), so the first compute-bound batch is found by doubling then bisecting.
std::optional<int64_t> first_compute_bound_batch(const ModelConfig& m, int64_t context, Dtype dtype, const Roof& roof) {
  int64_t hi = 1;
  while (!decode_compute_bound(m, hi, context, dtype, roof)) {
    if (hi >= kLargestBatchSearched) return std::nullopt;
    hi *= 2;
  }
  int64_t lo = hi / 2;  // not compute-bound (or 0)
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (decode_compute_bound(m, mid, context, dtype, roof) ? hi : lo) = mid;
  }
  return hi;
}

// Every time the page and the JSON show is a positive finite number (predict.schema.json
// has no null time): a device whose figures would give another is refused by name.
void require_finite(const Device& device, std::string_view what, double time_s) {
  if (!(std::isfinite(time_s) && time_s > 0))
    throw model::InputError(fmt::format("--device {}: its figures give {} a time of {}: outside any physical range",
                                        device.name, what, time_s));
}

DevicePrediction on_device(const Prediction& p, const Device& device) {
  DevicePrediction out;
  out.device = device;
  if (device.memory_bytes) out.fits_weights = static_cast<double>(p.memory.weight_bytes) <= *device.memory_bytes;
  for (size_t i = 0; i < p.contexts.size(); ++i) {
    ContextMemory c;
    c.context = p.contexts[i];
    c.kv_bytes_per_sequence = p.variants[0].kv_bytes_per_sequence[i];
    for (const auto& v : p.variants)
      if (v.models_own) c.kv_bytes_per_sequence = v.kv_bytes_per_sequence[i];
    if (device.memory_bytes) {
      const double free_bytes = *device.memory_bytes - static_cast<double>(p.memory.weight_bytes);
      // Capped below 2^62 so the conversion stays defined whatever memory a results file claims.
      const double fit = std::min(free_bytes / static_cast<double>(c.kv_bytes_per_sequence), 4.0e18);
      c.max_batch = free_bytes <= 0 ? 0 : static_cast<int64_t>(fit);
    }
    out.contexts.push_back(c);
  }
  const auto peak = peak_for(device, p.dtype);
  if (!peak) {
    out.missing = device.peaks_measured.empty()
                      ? fmt::format("{} lists no dense {} peak: no timings", device.name, to_string(p.dtype))
                      : fmt::format("no {} peak was measured on {} ({}): no timings; --dtype names a measured one",
                                    to_string(p.dtype), device.name, device.peaks_measured);
    return out;
  }
  const Roof roof{.peak_flops = *peak, .bandwidth_bytes_per_s = device.bandwidth_bytes_per_s, .launch_s = device.launch_s};
  for (size_t ci = 0; ci < p.contexts.size(); ++ci) {
    const int64_t context = p.contexts[ci];
    const StepCost prefill = prefill_step(p.model, context, p.dtype, roof);
    out.prefill.push_back({.tokens = context, .time_s = prefill.time_s,
                           .tokens_per_s = static_cast<double>(context) / prefill.time_s, .bound = prefill.bound});
    require_finite(device, "prefill", prefill.time_s);
    for (int64_t batch : p.batches) {
      const StepCost step = decode_step(p.model, batch, context, p.dtype, roof);
      require_finite(device, "a decode step", step.time_s);
      DecodePoint d;
      d.batch = batch;
      d.context = context;
      d.step_s = step.time_s;
      d.tokens_per_s = static_cast<double>(batch) / step.time_s;
      d.tokens_per_s_per_sequence = 1.0 / step.time_s;
      d.bound = step.bound;
      if (out.contexts[ci].max_batch) d.fits = batch <= *out.contexts[ci].max_batch;
      out.decode.push_back(d);
    }
    out.compute_bound_from_batch.push_back(first_compute_bound_batch(p.model, context, p.dtype, roof));
  }
  out.decode_step_batch = p.batches.front();
  out.decode_step_context = p.contexts.back();
  out.decode_step_ops = decode_step(p.model, out.decode_step_batch, out.decode_step_context, p.dtype, roof);
  return out;
}

nlohmann::json optional_json(const auto& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); }

nlohmann::json step_json(const StepCost& s) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& op : s.ops)
    ops.push_back({{"op", op.name}, {"flops", op.flops}, {"bytes", op.bytes}, {"launches", op.launches},
                   {"compute_s", op.compute_s}, {"memory_s", op.memory_s}, {"launch_s", op.launch_s},
                   {"time_s", op.time_s}, {"bound", to_string(op.bound)}});
  return {{"flops", s.flops}, {"bytes", s.bytes}, {"time_s", s.time_s}, {"bound", to_string(s.bound)}, {"ops", ops}};
}

}  // namespace

Prediction predict(const ModelConfig& model, Dtype dtype, const std::vector<int64_t>& contexts,
                   const std::vector<int64_t>& batches, const std::vector<Device>& devices) {
  Prediction p;
  p.model = model;
  p.dtype = dtype;
  p.memory = model_memory(model, dtype);
  p.contexts = contexts;
  p.batches = batches;
  p.variants = kv_variants(model, dtype, contexts);
  // A batch's KV cache must fit 64 bits too (max_batch can never exceed it otherwise).
  for (int64_t b : batches)
    for (const auto& v : p.variants)
      for (size_t i = 0; i < contexts.size(); ++i)
        checked_mul(v.kv_bytes_per_sequence[i], b,
                    fmt::format("--model {}: KV cache bytes at batch {} and context {}", model.name, b, contexts[i]));
  for (const auto& d : devices) p.devices.push_back(on_device(p, d));
  return p;
}

nlohmann::json to_json(const Prediction& p) {
  nlohmann::json j;
  j["schema"] = "lmroof.predict/1";
  j["model"] = {{"name", p.model.name}, {"source", p.model.source}, {"attention", p.model.attention_kind()},
                {"layers", p.model.layers}, {"hidden", p.model.hidden}, {"q_heads", p.model.q_heads},
                {"kv_heads", p.model.kv_heads}, {"head_dim", p.model.head_dim},
                {"sliding_window", optional_json(p.model.sliding_window)}, {"tied_embeddings", p.model.tied_embeddings}};
  j["dtype"] = to_string(p.dtype);
  j["parameters"] = p.memory.parameters;
  j["weight_bytes"] = p.memory.weight_bytes;
  j["kv_bytes_per_token"] = p.memory.kv_bytes_per_token;
  j["contexts"] = p.contexts;
  j["batches"] = p.batches;
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& v : p.variants)
    variants.push_back({{"attention", v.name}, {"kv_heads", v.kv_heads}, {"models_own", v.models_own},
                        {"kv_bytes_per_token", v.kv_bytes_per_token}, {"kv_bytes_per_sequence", v.kv_bytes_per_sequence}});
  j["kv_variants"] = variants;
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : p.devices) {
    nlohmann::json dj;
    dj["name"] = d.device.name;
    dj["architecture"] = d.device.architecture;
    dj["source"] = d.device.source;
    dj["memory_bytes"] = optional_json(d.device.memory_bytes);
    dj["bandwidth_bytes_per_s"] = d.device.bandwidth_bytes_per_s;
    dj["dense_peak_flops"] = d.device.dense_peak_flops;
    if (!d.device.peak_sources.empty()) dj["peak_sources"] = d.device.peak_sources;
    dj["launch_s"] = d.device.launch_s;
    dj["launch_source"] = d.device.launch_source;
    dj["fits_weights"] = optional_json(d.fits_weights);
    nlohmann::json contexts = nlohmann::json::array();
    for (size_t i = 0; i < d.contexts.size(); ++i) {
      const auto& c = d.contexts[i];
      contexts.push_back({{"context", c.context}, {"kv_bytes_per_sequence", c.kv_bytes_per_sequence},
                          {"max_batch", optional_json(c.max_batch)},
                          {"compute_bound_from_batch",
                           i < d.compute_bound_from_batch.size() ? optional_json(d.compute_bound_from_batch[i]) : nullptr}});
    }
    dj["contexts"] = contexts;
    nlohmann::json decode = nlohmann::json::array();
    for (const auto& x : d.decode)
      decode.push_back({{"batch", x.batch}, {"context", x.context}, {"step_s", x.step_s}, {"tokens_per_s", x.tokens_per_s},
                        {"tokens_per_s_per_sequence", x.tokens_per_s_per_sequence}, {"bound", to_string(x.bound)},
                        {"fits", optional_json(x.fits)}});
    dj["decode"] = decode;
    nlohmann::json prefill = nlohmann::json::array();
    for (const auto& x : d.prefill)
      prefill.push_back({{"tokens", x.tokens}, {"time_s", x.time_s}, {"tokens_per_s", x.tokens_per_s}, {"bound", to_string(x.bound)}});
    dj["prefill"] = prefill;
    if (d.decode_step_ops) {
      dj["decode_step"] = step_json(*d.decode_step_ops);
      dj["decode_step"]["batch"] = d.decode_step_batch;
      dj["decode_step"]["context"] = d.decode_step_context;
    } else {
      dj["decode_step"] = nullptr;
    }
    dj["missing"] = optional_json(d.missing);
    devices.push_back(dj);
  }
  j["devices"] = devices;
  return j;
}

}  // namespace lmroof::predict
