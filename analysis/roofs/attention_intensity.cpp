#include "analysis/roofs/attention_intensity.h"

namespace lmroof {

double shazeer_decode_intensity(const DecodeLayerDims& d, double s) {
  const double weights = (d.q_dim + 2 * d.kv_dim) * d.d_model + d.d_model * d.q_dim;
  const double flops = 2 * weights + 4 * d.context * d.q_dim;
  return flops / (s * (weights / d.batch + 2 * d.context * d.kv_dim));
}

namespace {

std::optional<double> shazeer_decode_intensity_of(const model::Run& run) {
  auto dim = [&](const char* name) -> std::optional<double> {
    const auto it = run.shape.find(name);
    if (it == run.shape.end() || it->second <= 0) return std::nullopt;
    return static_cast<double>(it->second);
  };
  const auto b = dim("batch"), n = dim("context"), d = dim("d_model"), hq = dim("q_heads"), hkv = dim("kv_heads"),
             dh = dim("head_dim");
  if (!b || !n || !d || !hq || !hkv || !dh) return std::nullopt;
  const double s = run.dtype == "bf16" ? 2 : 4;
  return shazeer_decode_intensity({*b, *n, *d, *hq * *dh, *hkv * *dh}, s);
}

}  // namespace

std::optional<double> predicted_intensity(const model::Run& run, const model::Catalogue& catalogue) {
  const model::CataloguePair* pair = catalogue.find(run.pair);
  if (!pair) return std::nullopt;
  for (const auto& p : pair->intensity_predictions)
    if (p.impl == run.impl && p.model == model::kShazeerDecodeModel) return shazeer_decode_intensity_of(run);
  return std::nullopt;
}

}  // namespace lmroof
