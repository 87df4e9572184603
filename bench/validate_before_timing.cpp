#include "bench/validate_before_timing.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

#include "analysis/model/schema.h"
#include "bench/suite.h"
#include "registry.h"

namespace lmroof::bench {

namespace {

void push_unique(std::vector<Shape>& shapes, const Shape& s) {
  for (const auto& t : shapes)
    if (t == s) return;
  shapes.push_back(s);
}

// Every dimension above 1 made one smaller: 64 -> 63, 4096 -> 4095. Flags (qk_norm = 1)
// stay as they are.
Shape odd_sized(const Shape& s) {
  Shape out;
  for (const auto& [name, value] : s.dims()) out.set(name, value > 1 ? value - 1 : value);
  return out;
}

// How far past its tolerance an error is; NaN (an unwritten or poisoned output) is the worst.
double badness(const Validation& v) {
  if (std::isnan(v.rel_error)) return INFINITY;
  return v.tolerance > 0 ? v.rel_error / v.tolerance : INFINITY;
}

struct ShapesToValidate {
  std::vector<Shape> round;  // the pair's --quick shapes this combination runs
  std::vector<Shape> odd;    // each with every dimension one smaller, where the pair accepts it
};

ShapesToValidate shapes_to_validate(const RunSpec& spec) {
  const PairDef& pair = find_pair(spec.pair);
  const VariantImpl combo{spec.variant, spec.impl};
  std::vector<std::pair<double, Shape>> sized;  // the quick shapes this combination runs, by footprint
  for (const auto& s : pair.quick_shapes) {
    if (pair.runs_shape && !pair.runs_shape(combo, s)) continue;
    RunSpec small = spec;
    small.shape = pair.complete_shape(spec.variant, s);
    sized.emplace_back(footprint_bytes(small), small.shape);
  }
  ShapesToValidate out;
  if (sized.empty()) return out;
  std::stable_sort(sized.begin(), sized.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // The smallest and the largest span the regimes the pair's quick suite has (window:
  // contexts below and above W; decode: short and long contexts, batch 1 and many);
  // the ones between repeat them at a cost (the float64 reference of every decode
  // shape took 3 s of a loaded machine for one kernel).
  push_unique(out.round, sized.front().second);
  push_unique(out.round, sized.back().second);
  try {
    const Shape odd = pair.complete_shape(spec.variant, odd_sized(sized.front().second));
    if (std::find(out.round.begin(), out.round.end(), odd) == out.round.end()) out.odd.push_back(odd);
  } catch (const std::invalid_argument&) {
    // The pair's own constraints (heads dividing d_model, ...) refuse odd sizes here.
  }
  return out;
}

uint64_t fresh_seed() {
  static std::random_device device;
  return device();  // 32 bits: printable, and exact in a double if ever recorded
}

KernelValidation validate(const RunSpec& spec) {
  KernelValidation result;
  result.passed = true;
  const uint64_t seed = fresh_seed();
  std::vector<Shape> shapes;
  size_t round_shapes = 0;
  try {
    const ShapesToValidate both = shapes_to_validate(spec);
    shapes = both.round;
    round_shapes = shapes.size();
    shapes.insert(shapes.end(), both.odd.begin(), both.odd.end());
  } catch (const std::exception& e) {
    result.passed = false;
    result.failure = fmt::format("validation could not run: {}", e.what());
    return result;
  }
  double worst = -1;
  for (size_t i = 0; i < shapes.size(); ++i) {
    RunSpec small = spec;
    small.shape = shapes[i];
    Validation v;
    try {
      v = make_workload(small)->validate(seed);
    } catch (const std::invalid_argument& e) {
      // An odd size this backend's kernel refuses (e.g. a head_dim it needs a multiple
      // of): the round sizes still validate it. A round size it refuses is a failure.
      if (i >= round_shapes) continue;
      result = {false, NAN, tolerance_for(spec.dtype), small.shape, result.shapes_checked,
                fmt::format("validation could not run at {}: {}", small.shape.label(), e.what())};
      return result;
    } catch (const std::exception& e) {
      result = {false, NAN, tolerance_for(spec.dtype), small.shape, result.shapes_checked,
                fmt::format("validation could not run at {}: {}", small.shape.label(), e.what())};
      return result;
    }
    ++result.shapes_checked;
    if (badness(v) > worst) {
      worst = badness(v);
      result.error = v.rel_error, result.tolerance = v.tolerance, result.shape = small.shape;
    }
    if (!v.passed()) {
      result.passed = false;
      result.failure = fmt::format("failed validation: error {:.3g} against float64 > tolerance {:.3g} at {} (seed {})",
                                   v.rel_error, v.tolerance, small.shape.label(), seed);
      return result;
    }
  }
  if (result.shapes_checked == 0) {
    result.passed = false;
    result.failure = "not validated: the pair has no --quick shape this combination runs";
  }
  return result;
}

}  // namespace

std::vector<Shape> validation_shapes(const RunSpec& spec) {
  ShapesToValidate both = shapes_to_validate(spec);
  for (const auto& s : both.odd) push_unique(both.round, s);
  return both.round;
}

const KernelValidation& validate_before_timing(const RunSpec& spec) {
  static std::map<std::string, KernelValidation> cache;
  const std::string key = fmt::format("{}/{}/{}/{}/{}", spec.pair, spec.variant, spec.impl, to_string(spec.backend),
                                      to_string(spec.dtype));
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, validate(spec)).first;
  return it->second;
}

void publish_validation(benchmark::State& state, const KernelValidation& validation) {
  namespace c = model::counter;
  state.counters[std::string(c::kValidatedError)] = benchmark::Counter(validation.error);
  state.counters[std::string(c::kValidatedTolerance)] = benchmark::Counter(validation.tolerance);
  state.counters[std::string(c::kValidatedShapes)] = benchmark::Counter(validation.shapes_checked);
  for (const auto& [name, value] : validation.shape.dims())
    state.counters[std::string(c::kValidatedShapePrefix) + name] = benchmark::Counter(static_cast<double>(value));
}

}  // namespace lmroof::bench
