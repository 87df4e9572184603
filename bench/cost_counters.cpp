#include "bench/cost_counters.h"

#include <string_view>
#include <utility>

#include "analysis/model/schema.h"

namespace lmroof::bench {

std::map<std::string, double> cost_counters(const Cost& cost) {
  namespace c = model::counter;
  std::map<std::string, double> out;
  auto set = [&](std::string_view name, double value) { out[std::string(name)] = value; };
  set(c::kFlops, cost.flops.total());
  set(c::kFlopsMatrix, cost.flops.matrix);
  set(c::kFlopsVector, cost.flops.vector);
  set(c::kFlopsSpecial, cost.flops.special);
  set(c::kBytesMinimum, cost.bytes_minimum);
  set(c::kBytesModel, cost.bytes_model);
  const std::pair<std::string_view, double> split[] = {{c::kBytesRead, cost.bytes_read},
                                                       {c::kBytesWritten, cost.bytes_written},
                                                       {c::kWorkingSetBytes, cost.working_set_bytes},
                                                       {c::kBytesReread, cost.bytes_reread},
                                                       {c::kRereadSetBytes, cost.reread_set_bytes},
                                                       {c::kBytesStreamedOut, cost.bytes_streamed_out}};
  for (const auto& [name, value] : split)
    if (value > 0) set(name, value);
  if (cost.reread_set_shared) set(c::kRereadSetShared, 1);
  for (const auto& [cls, flops] : cost.flops_by_class) {
    out[std::string(c::kClassFlopsPrefix) + cls] = flops.total();
    out[std::string(c::kClassFlopsMatrixPrefix) + cls] = flops.matrix;
  }
  for (const auto& [cls, bytes] : cost.bytes_by_class) out[std::string(c::kClassBytesModelPrefix) + cls] = bytes;
  for (const auto& step : cost.steps) {
    out[std::string(c::kStepFlopsPrefix) + step.name] = step.flops.total();
    out[std::string(c::kStepBytesModelPrefix) + step.name] = step.bytes;
  }
  return out;
}

}  // namespace lmroof::bench
