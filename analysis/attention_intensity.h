#pragma once
// Shazeer's (2019) prediction of an attention layer's arithmetic intensity during
// incremental decoding, Θ(1/(n/d + 1/b)), with the constants of lmroof's cost model
// kept (docs/cost-model.md#attention): per decoded token the projections do
// 2·W matrix FLOPs over W weight elements (W = (Dq + 2·Dkv)·d + d·Dq), read once per
// step for all b tokens, and the token's cache is 2·n·Dkv elements. Keeping only those
// two byte terms and the projection FLOPs,
//
//   bytes / FLOP ≈ s·(1/(2b) + n·Dkv/W)   and   I ≈ 1 / (s·(1/(2b) + n·Dkv/W)),
//
// which for MHA (Dkv = d, W = 4d²) is (4/s) / (2/b + n/d): rising with b while 1/b
// dominates, flat once n/d does. The report draws it beside each decode run's
// intensity (cost model, or measured bytes where counters exist).
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace lmroof {

struct DecodeLayerDims {
  double batch, context, d_model, q_dim, kv_dim;
};

// FLOPs per byte; element_bytes s = 4 (fp32) or 2 (bf16).
double shazeer_decode_intensity(const DecodeLayerDims& d, double element_bytes);

// The prediction for one results.json run of the attention pair's decode level
// (shape batch, context, d_model, q_heads, kv_heads, head_dim; dtype): nullopt for
// any other run or a shape missing a dimension.
std::optional<double> shazeer_decode_intensity(const nlohmann::json& run);

}  // namespace lmroof
