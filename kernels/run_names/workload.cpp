#include "kernels/run_names/workload.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>
#include <vector>

namespace lmroof {

const char* to_string(Backend b) { return b == Backend::cpu ? "cpu" : "cuda"; }
const char* to_string(DType d) { return d == DType::fp32 ? "fp32" : "bf16"; }

Backend parse_backend(std::string_view s) {
  if (s == "cpu") return Backend::cpu;
  if (s == "cuda") return Backend::cuda;
  throw std::invalid_argument(fmt::format("unknown backend '{}' (expected cpu or cuda)", s));
}

DType parse_dtype(std::string_view s) {
  if (s == "fp32") return DType::fp32;
  if (s == "bf16") return DType::bf16;
  throw std::invalid_argument(fmt::format("unknown dtype '{}' (expected fp32 or bf16)", s));
}

int dtype_bytes(DType d) { return d == DType::fp32 ? 4 : 2; }

std::string RunSpec::bench_name() const {
  return fmt::format("{}/{}/{}/{}/{}/{}", pair, variant, impl, to_string(backend), to_string(dtype),
                     shape.bench_suffix());
}

namespace {
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

bool is_google_benchmark_suffix(std::string_view token) {
  for (std::string_view known : {"real_time", "manual_time", "process_time", "min_time:", "repeats:",
                                 "iterations:", "threads:", "min_warmup_time:"})
    if (token.starts_with(known)) return true;
  return false;
}
}  // namespace

RunSpec RunSpec::parse_bench_name(std::string_view name) {
  const auto parts = split(name, '/');
  if (parts.size() < 6)
    throw std::invalid_argument(fmt::format("benchmark name '{}' is not pair/variant/impl/backend/dtype/dims", name));
  RunSpec spec;
  spec.pair = parts[0];
  spec.variant = parts[1];
  spec.impl = parts[2];
  spec.backend = parse_backend(parts[3]);
  spec.dtype = parse_dtype(parts[4]);
  for (size_t i = 5; i < parts.size(); ++i) {
    const auto token = parts[i];
    if (is_google_benchmark_suffix(token)) continue;
    const auto colon = token.find(':');
    if (colon == std::string_view::npos || colon == 0)
      throw std::invalid_argument(fmt::format("benchmark name '{}': '{}' is not dim:value", name, token));
    int64_t value = 0;
    const auto digits = token.substr(colon + 1);
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size())
      throw std::invalid_argument(fmt::format("benchmark name '{}': '{}' has no integer value", name, token));
    spec.shape.set(std::string(token.substr(0, colon)), value);
  }
  return spec;
}

}  // namespace lmroof
