#include "registry.h"

#include <fmt/format.h>

#include <stdexcept>

namespace lmroof {

namespace {
std::vector<std::function<PairDef()>>& extra_pair_makers() {
  static std::vector<std::function<PairDef()>> makers;
  return makers;
}
}  // namespace

bool register_extra_pair(std::function<PairDef()> make) {
  extra_pair_makers().push_back(std::move(make));
  return true;
}

const std::vector<PairDef>& all_pairs() {
  static const std::vector<PairDef> pairs = [] {
    std::vector<PairDef> v = {norm_pair(),      bias_pair(),      block_pair(),  decode_pair(),
                              mlp_pair(),       attention_pair(), window_pair(), stability_pair()};
    for (const auto& make : extra_pair_makers()) v.push_back(make());
    return v;
  }();
  return pairs;
}

const PairDef& find_pair(std::string_view name) {
  std::string known;
  for (const auto& p : all_pairs()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument(fmt::format("unknown pair '{}' (known: {})", name, known));
}

void check_combo(const PairDef& pair, std::string_view variant, std::string_view impl) {
  for (const auto& c : pair.combos)
    if (c.variant == variant && c.impl == impl) return;
  std::string known;
  for (const auto& c : pair.combos) known += fmt::format("{}{}/{}", known.empty() ? "" : ", ", c.variant, c.impl);
  throw std::invalid_argument(
      fmt::format("pair '{}' has no variant/impl '{}/{}' (known: {})", pair.name, variant, impl, known));
}

namespace {
RunSpec completed(const RunSpec& spec) {
  const auto& pair = find_pair(spec.pair);
  check_combo(pair, spec.variant, spec.impl);
  RunSpec out = spec;
  out.shape = pair.complete_shape(spec.variant, spec.shape);
  return out;
}
}  // namespace

std::unique_ptr<Workload> make_workload(const RunSpec& spec) {
  const RunSpec full = completed(spec);
  const auto& pair = find_pair(spec.pair);
  if (spec.backend == Backend::cpu) {
    if (spec.dtype != DType::fp32) throw std::invalid_argument("the CPU backend runs fp32 only");
    return pair.make_cpu(full);
  }
#ifndef LMROOF_WITH_CUDA
  throw std::invalid_argument("this build has no CUDA backend (configure with nvcc present)");
#endif
  if (!pair.make_cuda) throw std::invalid_argument(fmt::format("pair '{}' has no CUDA implementation yet", pair.name));
  if (!pair.runs_on(Backend::cuda, spec.impl))
    throw std::invalid_argument(fmt::format("{}/{} runs on the CPU only", pair.name, spec.impl));
  return pair.make_cuda(full);
}

Cost cost_of(const RunSpec& spec) { return find_pair(spec.pair).cost(completed(spec)); }

}  // namespace lmroof
