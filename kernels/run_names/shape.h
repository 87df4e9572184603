#pragma once
// A run's problem size as named dimensions ("tokens", "d_model", ...). The names are
// the ones results.json uses, so a shape travels unchanged from registry to report.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lmroof {

class Shape {
 public:
  using Dim = std::pair<std::string, int64_t>;

  Shape() = default;
  Shape(std::initializer_list<Dim> dims) : dims_(dims) {}

  // Throws std::invalid_argument naming the dimension when it is absent.
  int64_t operator[](std::string_view name) const;
  bool has(std::string_view name) const;
  void set(const std::string& name, int64_t value);  // adds or replaces
  const std::vector<Dim>& dims() const { return dims_; }

  std::string label() const;         // "tokens=8192 d_model=4096"
  std::string bench_suffix() const;  // "tokens:8192/d_model:4096"
  bool operator==(const Shape& other) const;

 private:
  std::vector<Dim> dims_;
};

// Largest value any single dimension may take, and the most elements any one
// tensor may hold (the kernels index a buffer with int32: a count, not memory; the
// memory check is bench::check_footprint): beyond these a shape is refused.
inline constexpr int64_t kMaxDim = int64_t{1} << 24;
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 31;

// Throws std::invalid_argument with a one-line reason when a dimension is missing,
// non-positive or absurdly large.
void require_dims(const Shape& shape, std::initializer_list<std::string_view> names);
void require_elements(const Shape& shape, std::string_view tensor, double elements);

}  // namespace lmroof
