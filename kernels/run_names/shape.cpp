#include "kernels/run_names/shape.h"

#include <fmt/format.h>

#include <stdexcept>

namespace lmroof {

int64_t Shape::operator[](std::string_view name) const {
  for (const auto& [key, value] : dims_)
    if (key == name) return value;
  throw std::invalid_argument(fmt::format("shape has no dimension '{}'", name));
}

bool Shape::has(std::string_view name) const {
  for (const auto& dim : dims_)
    if (dim.first == name) return true;
  return false;
}

void Shape::set(const std::string& name, int64_t value) {
  for (auto& [key, v] : dims_)
    if (key == name) {
      v = value;
      return;
    }
  dims_.emplace_back(name, value);
}

std::string Shape::label() const {
  std::string out;
  for (const auto& [key, value] : dims_) out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, value);
  return out;
}

std::string Shape::bench_suffix() const {
  std::string out;
  for (const auto& [key, value] : dims_) out += fmt::format("{}{}:{}", out.empty() ? "" : "/", key, value);
  return out;
}

bool Shape::operator==(const Shape& other) const {
  if (dims_.size() != other.dims_.size()) return false;
  for (const auto& [key, value] : dims_)
    if (!other.has(key) || other[key] != value) return false;
  return true;
}

void require_dims(const Shape& shape, std::initializer_list<std::string_view> names) {
  for (auto name : names) {
    if (!shape.has(name)) throw std::invalid_argument(fmt::format("shape is missing dimension '{}'", name));
    const int64_t v = shape[name];
    if (v <= 0) throw std::invalid_argument(fmt::format("dimension {}={} must be positive", name, v));
    if (v > kMaxDim)
      throw std::invalid_argument(fmt::format("dimension {}={} is larger than the limit {}", name, v, kMaxDim));
  }
}

void require_elements(const Shape& shape, std::string_view tensor, double elements) {
  if (elements <= static_cast<double>(kMaxTensorElements)) return;
  // What the user can lower: the sizes the CLI sets (--batch, --context, --tokens).
  std::vector<std::string> options;
  for (const char* dim : {"batch", "context", "tokens"})
    if (shape.has(dim)) options.push_back(fmt::format("--{}", dim));
  std::string lower;
  for (size_t i = 0; i < options.size(); ++i)
    lower += (i == 0 ? "" : i + 1 == options.size() ? " or " : ", ") + options[i];
  throw std::invalid_argument(fmt::format(
      "{} would hold {:.3g} elements at {}, more than the {} (2^31) one buffer may hold: kernels index a buffer with "
      "32-bit integers, so this limits one tensor's element count, not memory; lower {}",
      tensor, elements, shape.label(), kMaxTensorElements,
      options.empty() ? std::string("the shape's dimensions (--shape)") : lower + " (or the --shape dimensions)"));
}

}  // namespace lmroof
