// Cost model for the norm pair; formulas in docs/cost-model.md#norm.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "norm/norm.h"
#include "run_names/op_formulas.h"

namespace lmroof::norm {

Kind parse_kind(std::string_view variant) {
  if (variant == "layernorm") return Kind::layernorm;
  if (variant == "rmsnorm") return Kind::rmsnorm;
  throw std::invalid_argument(fmt::format("norm has no variant '{}'", variant));
}

Dims dims_of(const Shape& shape) { return {shape["tokens"], shape["d_model"]}; }

std::vector<Pass> unfused_passes(Kind kind, Dims d) {
  const double T = static_cast<double>(d.tokens), D = static_cast<double>(d.d_model), TD = T * D;
  if (kind == Kind::layernorm)
    return {
        {"mean = x.mean(-1)", TD, T},
        {"xc = x - mean", TD + T, TD},
        {"sq = xc * xc", TD, TD},
        {"var = sq.mean(-1)", TD, T},
        {"v = var + eps", T, T},
        {"rstd = rsqrt(v)", T, T},
        {"xn = xc * rstd", TD + T, TD},
        {"yg = xn * gamma", TD + D, TD},
        {"y = yg + beta", TD + D, TD},
    };
  return {
      {"sq = x * x", TD, TD},
      {"ms = sq.mean(-1)", TD, T},
      {"v = ms + eps", T, T},
      {"rstd = rsqrt(v)", T, T},
      {"xn = x * rstd", TD + T, TD},
      {"y = xn * gamma", TD + D, TD},
  };
}

Cost cost(Kind kind, bool fused, Dims d, int element_bytes) {
  const double T = static_cast<double>(d.tokens), D = static_cast<double>(d.d_model), TD = T * D;
  const double s = element_bytes;
  Cost c;
  // FLOPs from the one formula every surface uses (run_names/op_formulas.h).
  const formulas::Flops f = kind == Kind::layernorm ? formulas::layernorm_flops(T, D) : formulas::rmsnorm_flops(T, D);
  c.flops.vector = f.vector;
  c.flops.special = f.special;
  c.bytes_minimum = formulas::norm_bytes(T, D, kind == Kind::layernorm ? 2 : 1, s);
  const double params = kind == Kind::layernorm ? 2 * D : D;
  if (fused) {
    c.bytes_model = c.bytes_minimum;
    c.bytes_read = (TD + params) * s;  // x, gamma (and beta)
    c.bytes_written = TD * s;          // y
    c.bytes_streamed_out = TD * s;     // y with streaming stores (cpu_fused, AVX-512)
  } else {
    double reads = 0, writes = 0;
    for (const auto& p : unfused_passes(kind, d)) reads += p.read_elements, writes += p.write_elements;
    c.bytes_model = (reads + writes) * s;
    c.bytes_read = reads * s;
    c.bytes_written = writes * s;
    // every pass writes a tensor of its own: x, the parameters and all of those
    c.working_set_bytes = (TD + params + writes) * s;
    // Every read but the first of x and of the parameters is of a tensor an earlier
    // pass touched: one pass earlier (the reuse distance is one pass, not the whole
    // working set). Between the write and that read a pass touches its input and its
    // output, 2·T·d elements split among the threads: when that fits a cache (the
    // 32 MiB L3 holds it at T·d = 4 Mi elements) the re-reads come from there.
    c.bytes_reread = std::max(0.0, reads - TD - params) * s;
    c.reread_set_bytes = 2 * TD * s;
    c.reread_set_shared = true;
  }
  return c;
}

}  // namespace lmroof::norm
