// Cost model for the decode pair; formulas in docs/cost-model.md#decode.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "decode/decode.h"

#include "kernels/model_config/model_config.h"

namespace lmroof::decode {

Kind parse_kind(std::string_view variant) {
  if (variant == "mha") return Kind::mha;
  if (variant == "gqa") return Kind::gqa;
  if (variant == "mqa") return Kind::mqa;
  throw std::invalid_argument(fmt::format("decode has no variant '{}'", variant));
}

Impl parse_impl(std::string_view impl) {
  if (impl == "naive") return Impl::naive;
  if (impl == "grouped") return Impl::grouped;
  if (impl == "blas") return Impl::blas;
  throw std::invalid_argument(fmt::format("decode has no implementation '{}'", impl));
}

Dims dims_of(const Shape& shape) {
  return {shape["batch"], shape["q_heads"], shape["kv_heads"], shape["head_dim"], shape["context"]};
}

int64_t default_kv_heads(Kind kind, int64_t q_heads) {
  switch (kind) {
    case Kind::mha:
      return q_heads;
    case Kind::mqa:
      return 1;
    case Kind::gqa:
      break;
  }
  return default_gqa_kv_heads(q_heads);
}

Shape complete_shape(Kind kind, const Shape& s) {
  require_dims(s, {"batch", "q_heads", "head_dim", "context"});
  const int64_t hq = s["q_heads"];
  int64_t hkv = 0;
  if (s.has("kv_heads")) {
    require_dims(s, {"kv_heads"});
    hkv = s["kv_heads"];
    if (kind == Kind::mha && hkv != hq)
      throw std::invalid_argument(
          fmt::format("decode/mha needs kv_heads = q_heads (got kv_heads={}, q_heads={})", hkv, hq));
    if (kind == Kind::mqa && hkv != 1)
      throw std::invalid_argument(fmt::format("decode/mqa needs kv_heads = 1 (got kv_heads={})", hkv));
    if (hq % hkv != 0)
      throw std::invalid_argument(fmt::format("decode/gqa: kv_heads={} does not divide q_heads={}", hkv, hq));
  } else {
    hkv = default_kv_heads(kind, hq);
  }
  const double B = static_cast<double>(s["batch"]), dh = static_cast<double>(s["head_dim"]),
               L = static_cast<double>(s["context"]);
  require_elements(s, "q", B * hq * dh);
  require_elements(s, "the K cache", B * hkv * L * dh);
  // the naive level's per-head scores are not stored, but a split's partials are:
  // at most kTargetItems pieces of head_dim + 2 floats per query head
  require_elements(s, "the split partials", B * hq * (dh + 2) * kTargetItems);
  return Shape{{"batch", s["batch"]},
               {"q_heads", hq},
               {"kv_heads", hkv},
               {"head_dim", s["head_dim"]},
               {"context", s["context"]}};
}

int64_t context_splits(Backend backend, Impl impl, Dims d) {
  if (backend == Backend::cuda || impl == Impl::blas) return 1;
  const int64_t items = d.batch * (impl == Impl::naive ? d.q_heads : d.kv_heads);
  if (items >= kTargetItems) return 1;
  const int64_t wanted = (kTargetItems + items - 1) / items;
  const int64_t most = (d.context + kMinChunk - 1) / kMinChunk;
  return std::max<int64_t>(1, std::min(wanted, most));
}

Cost cost(Impl impl, Dims d, int64_t splits, int element_bytes) {
  const double B = static_cast<double>(d.batch), Hq = static_cast<double>(d.q_heads),
               Hkv = static_cast<double>(d.kv_heads), dh = static_cast<double>(d.head_dim),
               L = static_cast<double>(d.context);
  const double s = element_bytes;
  const double heads = B * Hq;  // (batch, query head) pairs, one output row each
  Cost c;
  // per query head: L dot products of length dh for the scores, L·dh multiply-adds for P·V
  c.flops.matrix = heads * 4 * L * dh;
  // per query head: q scaled by 1/sqrt(dh) (dh), max over the scores (L), subtract the
  // max (L), sum of the exponentials (L), output divided by the sum (dh). The online
  // softmax's rescaling and the split combine are not counted (a few per block of
  // positions and per split, against 4·L·dh).
  c.flops.vector = heads * (3 * L + 2 * dh);
  c.flops.special = heads * L;  // one exp per score
  // q read and out written once; each kv head's K and V rows read once
  c.bytes_minimum = (2 * heads * dh + 2 * B * Hkv * L * dh) * s;
  // split-K: each piece writes head_dim + 2 fp32 values per query head and the combine reads them back
  const double partial = splits > 1 ? 2 * heads * static_cast<double>(splits) * (dh + 2) * 4 : 0;
  // blas: the scores (fp32) are written by the first GEMM, read and rewritten by the
  // softmax, read by the second GEMM
  const double scores = impl == Impl::blas ? 4 * heads * L * 4 : 0;
  if (impl == Impl::naive)  // every query head streams the K and V rows of its kv head itself
    c.bytes_model = (2 * heads * dh + 2 * heads * L * dh) * s + partial;
  else
    c.bytes_model = c.bytes_minimum + partial + scores;
  // Decode only reads, but for out, half the partials and half the scores' round trip.
  c.bytes_written = heads * dh * s + partial / 2 + scores / 2;
  c.bytes_read = c.bytes_model - c.bytes_written;
  if (impl == Impl::blas) c.working_set_bytes = c.bytes_minimum + heads * L * 4;
  if (impl == Impl::naive) {
    // the g query heads of a group run one after the other on the same thread (the
    // items are scheduled in order), so a kv head's K and V are re-read g - 1 times
    // while they may still sit in a cache
    c.bytes_reread = 2 * (heads - B * Hkv) * L * dh * s;
    c.reread_set_bytes = c.bytes_reread > 0 ? 2 * L * dh * s : 0;
  }
  return c;
}

}  // namespace lmroof::decode
