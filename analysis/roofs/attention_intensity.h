#pragma once
// Shazeer's (2019) prediction of an attention layer's arithmetic intensity during
// incremental decoding, Θ(1/(n/d + 1/b)), with the constants of lmroof's cost model
// kept (docs/cost-model.md#attention). Per decoded token: the projections do 2·W
// matrix FLOPs (W = (Dq + 2·Dkv)·d + d·Dq weight elements, read once per step for all
// b tokens) and the attention 4·n·Dq; the token's cache is 2·n·Dkv elements. Keeping
// only these (no activations, no softmax),
//
//   I ≈ (2·W + 4·n·Dq) / (s·(W/b + 2·n·Dkv)),
//
// which for MHA (Dq = Dkv = d, W = 4d²) is (8d² + 4nd) / (s·(4d²/b + 2nd)) ≈
// (4/s) / (2/b + n/d) for n ≪ d: rising with b while the weights dominate, flat once
// the cache does. The report draws it beside each decode run's intensity (cost
// model, or measured bytes where counters exist).
#include <cstdint>
#include <optional>

#include "analysis/model/results_model.h"

namespace lmroof {

struct DecodeLayerDims {
  double batch, context, d_model, q_dim, kv_dim;
};

// FLOPs per byte; element_bytes s = 4 (fp32) or 2 (bf16).
double shazeer_decode_intensity(const DecodeLayerDims& d, double element_bytes);

// The prediction the catalogue declares for a run's pair and implementation level
// (CataloguePair::intensity_predictions, from the PairDef): nullopt where it declares
// none or the shape lacks a dimension the model needs. Analysis stores it as
// Run::predicted_intensity. The one model known today, model::kShazeerDecodeModel,
// reads the shape's batch, context, d_model, q_heads, kv_heads and head_dim, and the
// dtype (the attention pair's decode level declares it).
std::optional<double> predicted_intensity(const model::Run& run, const model::Catalogue& catalogue);

}  // namespace lmroof
