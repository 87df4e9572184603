#include "common/shape.h"

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
  if (elements > static_cast<double>(kMaxTensorElements))
    throw std::invalid_argument(fmt::format("{} would hold {:.3g} elements at {} (limit {})", tensor, elements,
                                            shape.label(), kMaxTensorElements));
}

}  // namespace lmroof
