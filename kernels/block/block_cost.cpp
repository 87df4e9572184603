// Shape completion and cost model for the block pair; formulas in docs/cost-model.md#block.
#include <fmt/format.h>

#include <stdexcept>

#include "block/block.h"
#include "norm/norm.h"

namespace lmroof::block {

Variant parse_variant(std::string_view variant) {
  if (variant == "serial") return Variant::serial;
  if (variant == "parallel") return Variant::parallel;
  throw std::invalid_argument(fmt::format("block has no variant '{}' (known: serial, parallel)", variant));
}

Dims dims_of(const Shape& shape) {
  return {shape["tokens"],
          shape["d_model"],
          shape["d_ff"],
          shape["q_heads"],
          shape["head_dim"],
          shape.has("qk_norm") && shape["qk_norm"] != 0,
          shape.has("softcap") ? shape["softcap"] : 0};
}

int64_t default_d_ff(int64_t d_model) { return (8 * d_model + 191) / 192 * 64; }

Shape complete_shape(const Shape& s) {
  require_dims(s, {"tokens", "d_model"});
  const int64_t T = s["tokens"], D = s["d_model"];
  for (const char* name : {"d_ff", "q_heads", "head_dim"})
    if (s.has(name)) require_dims(s, {name});
  const int64_t qk_norm = s.has("qk_norm") ? s["qk_norm"] : 0, softcap = s.has("softcap") ? s["softcap"] : 0;
  if (qk_norm != 0 && qk_norm != 1)
    throw std::invalid_argument(fmt::format("block: qk_norm={} must be 0 or 1", qk_norm));
  if (softcap < 0 || softcap > kMaxDim)
    throw std::invalid_argument(fmt::format("block: softcap={} must be 0 (off) or a positive cap", softcap));

  int64_t dh = kDefaultHeadDim;
  if (s.has("head_dim")) {
    dh = s["head_dim"];
  } else if (s.has("q_heads")) {
    if (D % s["q_heads"] != 0)
      throw std::invalid_argument(
          fmt::format("block: d_model={} is not divisible by q_heads={}", D, s["q_heads"]));
    dh = D / s["q_heads"];
  }
  if (D % dh != 0)
    throw std::invalid_argument(fmt::format("block: d_model={} is not a multiple of head_dim={}", D, dh));
  const int64_t H = D / dh;
  if (s.has("q_heads") && s["q_heads"] != H)
    throw std::invalid_argument(fmt::format("block: q_heads={} * head_dim={} != d_model={}", s["q_heads"], dh, D));
  if (dh % 2 != 0)
    throw std::invalid_argument(fmt::format("block: head_dim={} must be even (RoPE rotates pairs)", dh));
  const int64_t F = s.has("d_ff") ? s["d_ff"] : default_d_ff(D);

  Shape out{{"tokens", T}, {"d_model", D}, {"d_ff", F}, {"q_heads", H}, {"head_dim", dh}};
  require_dims(out, {"tokens", "d_model", "d_ff", "q_heads", "head_dim"});
  const double Td = static_cast<double>(T), Dd = static_cast<double>(D), Fd = static_cast<double>(F);
  // The largest tensors: the fused input weights and the parallel block's fused GEMM output.
  require_elements(out, "w_in", (3 * Dd + 2 * Fd) * Dd);
  require_elements(out, "w_out", Dd * (Dd + Fd));
  require_elements(out, "qkv|gate|up", Td * (3 * Dd + 2 * Fd));
  if (qk_norm) out.set("qk_norm", 1);
  if (softcap) out.set("softcap", softcap);
  return out;
}

Cost cost(Variant variant, Dims d, int element_bytes, Backend backend, bool unfused) {
  const double T = static_cast<double>(d.tokens), D = static_cast<double>(d.d_model),
               F = static_cast<double>(d.d_ff), H = static_cast<double>(d.q_heads),
               dh = static_cast<double>(d.head_dim), s = element_bytes;
  const double TD = T * D, TF = T * F;
  const double P = T * (T + 1) / 2;  // causal (query, key) pairs per head
  const bool serial = variant == Variant::serial;
  const double norms = serial ? 2 : 1, residuals = serial ? 2 : 1;

  Cost c;
  // normalization: the fused RMSNorm of kernels/norm, once (parallel) or twice (serial).
  const Cost rms = norm::cost(norm::Kind::rmsnorm, /*fused=*/true, {d.tokens, d.d_model}, element_bytes);
  FlopCount& fn = c.flops_by_class[kClassNormalization];
  fn.vector = norms * rms.flops.vector;
  fn.special = norms * rms.flops.special;
  c.bytes_by_class[kClassNormalization] = norms * rms.bytes_model;
  // QK-norm: the same RMSNorm over the T·H head rows of q and of k (2·T·d elements).
  const Cost qk = norm::cost(norm::Kind::rmsnorm, /*fused=*/true, {d.tokens * d.q_heads, d.head_dim}, element_bytes);
  if (d.qk_norm) {
    fn.vector += 2 * qk.flops.vector;
    fn.special += 2 * qk.flops.special;
    // fused into the RoPE pass: only the two gammas are new bytes
    c.bytes_by_class[kClassNormalization] += 2 * dh * s;
  }

  // matrix: 2·T·in·out per projection; the same total for both variants,
  // 2T(3D·D + D·D + 2F·D + F·D) = 2T(4D² + 3DF).
  c.flops_by_class[kClassMatmul].matrix = 2 * T * (4 * D * D + 3 * D * F);
  // Each GEMM reads its activation input and its weights once and writes its output.
  const double weights = 4 * D * D + 3 * D * F;
  c.bytes_by_class[kClassMatmul] =
      s * (serial ? (TD + 3 * TD) + (TD + TD) + (TD + 2 * TF) + (TF + TD) + weights  // qkv, o, gate|up, down
                  : (TD + T * (3 * D + 2 * F)) + (T * (D + F) + TD) + weights);     // in, out

  // attention: QKᵀ and PV over the causal half only, 2·dh·P each per head.
  // softmax per score: scale, max, subtract, sum (vector) and exp (special);
  // per row: one reciprocal of the sum and dh multiplies normalising the output row.
  FlopCount& fa = c.flops_by_class[kClassAttention];
  fa.matrix = H * 2 * (2 * dh * P);
  fa.vector = H * 4 * P + H * T + TD;
  fa.special = H * P;
  if (d.softcap > 0) {  // per score: / cap, · cap and one tanh
    fa.vector += 2 * H * P;
    fa.special += H * P;
  }
  // Per head: read q, k, v and write the output once (4·T·D over the heads).
  //   cpu:  the score tile (64 queries × keys) and the head's k, v stay in cache between
  //         query tiles, so the scores add nothing.
  //   cuda: the scores are materialised (block_cuda.cu): per head the QKᵀ GEMM writes the
  //         full T×T square, the softmax reads the causal half (T(T+1)/2) and writes the
  //         full square (masked keys as 0), and the P·V GEMM reads the full square, all in
  //         the storage dtype. A chunk of heads holds up to 256 MiB of scores, far more
  //         than L2 (50 MB on H200) at the suite shapes, so each of these passes goes to
  //         DRAM: H·(3·T² + T(T+1)/2) more elements. (FLOPs stay the useful causal ones,
  //         although the GEMMs compute the full square: see docs/cost-model.md#block.)
  const double scores = backend == Backend::cuda ? H * (3 * T * T + P) : 0.0;
  c.bytes_by_class[kClassAttention] = s * (4 * TD + scores);

  // elementwise: RoPE on q and k (per rotated pair 4 mul + 2 add = 3 per element),
  // SwiGLU (sigmoid = 1 special, × g and × u = 2 vector per element), residual adds.
  FlopCount& fe = c.flops_by_class[kClassElementwise];
  fe.vector = 3 * (2 * TD) + 2 * TF + residuals * TD;
  fe.special = TF;
  // RoPE reads q, k and the cos/sin tables (T·dh/2 each) and writes q, k in place;
  // SwiGLU reads g, u and writes the product; each residual add reads two and writes one.
  // The tables are fp32 on both backends whatever the storage dtype: 4 bytes each.
  c.bytes_by_class[kClassElementwise] = s * (4 * TD + 3 * TF + residuals * 3 * TD) + 4.0 * T * dh;

  if (unfused) {
    // Eager: the FLOPs above, every step its own pass (docs/cost-model.md#block, unfused).
    const double TT = T * T, HTT = H * TT, Tdh = T * dh;
    const Cost rms_eager = norm::cost(norm::Kind::rmsnorm, /*fused=*/false, {d.tokens, d.d_model}, element_bytes);
    const Cost qk_eager =
        norm::cost(norm::Kind::rmsnorm, /*fused=*/false, {d.tokens * d.q_heads, d.head_dim}, element_bytes);
    c.bytes_by_class[kClassNormalization] = norms * rms_eager.bytes_model + (d.qk_norm ? 2 * qk_eager.bytes_model : 0);
    // QKᵀ 2TD + HT², ·scale 2HT², [/cap, tanh, ·cap 6HT²], +mask HT² + T² + HT²,
    // softmax 2HT², ·V HT² + 2TD
    c.bytes_by_class[kClassAttention] = s * (4 * TD + (8 + (d.softcap > 0 ? 6 : 0)) * HTT + TT);
    // RoPE per tensor (q, k): neg(x2) TD, cat 2TD, x·cos 2TD + table, rot·sin 2TD + table,
    // + 3TD; the full-width tables are fp32 [T, dh]. SwiGLU: silu 2TF, ·up 3TF.
    c.bytes_by_class[kClassElementwise] = s * (2 * 10 * TD + 5 * TF + residuals * 3 * TD) + 2 * 2 * 4.0 * Tdh;
  }
  for (const auto& [cls, f] : c.flops_by_class) c.flops += f;
  for (const auto& [cls, b] : c.bytes_by_class) c.bytes_model += b;
  // x in, y out, every weight once (serial has one more gamma than parallel).
  c.bytes_minimum = s * (2 * TD + weights + norms * D + (d.qk_norm ? 2 * dh : 0));
  if (backend == Backend::cpu) {
    // What CpuBlockWorkload allocates beyond x, y and the weights (block_cpu.cpp, its
    // constructor and allocate_eager), in fp32: the normed input and the projection
    // output, the projections' and attention's outputs, SwiGLU's; unfused also every
    // head's T×T scores, the T×T causal mask, the eager norm's and RoPE's intermediates,
    // silu(gate) and the full-width RoPE tables. The per-thread score tiles of the fused
    // attention (kQueryTile·T per thread) are left out: under 1% of the rest at any T.
    constexpr double f = 4;
    double held = f * (2 * TD + (serial ? 5 * TD : 4 * TD) + 3 * TF);
    if (unfused) {
      const double TT = T * T;
      held += f * (H * TT + TT + static_cast<double>(norm::cpu_unfused_scratch_floats({d.tokens, d.d_model})) +
                   3 * T * H + TD / 2 + 3 * TD + TF + 2 * T * dh);
    }
    c.resident_bytes = c.bytes_minimum + held;
  }
  return c;
}

}  // namespace lmroof::block
