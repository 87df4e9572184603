#pragma once
// The catalogue of paired operators. Each pair registers its variants,
// implementation levels, suite shapes, cost model and a factory per backend;
// the benchmarks, the analysis and the CLI all read this one list.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/cost.h"
#include "common/workload.h"

namespace lmroof {

struct VariantImpl {
  std::string variant;
  std::string impl;
  bool operator==(const VariantImpl&) const = default;
};

// "candidate is speedup x faster than baseline": one row of results.json's comparisons.
struct ComparisonDef {
  VariantImpl baseline;
  VariantImpl candidate;
  std::string question;  // e.g. "RMSNorm vs LayerNorm, both fused"
};

struct PairDef {
  std::string name;
  std::string title;  // the report's heading for the pair ("Norm pair: LayerNorm vs RMSNorm")
  std::string summary;
  std::vector<VariantImpl> combos;
  std::vector<Shape> default_shapes;  // the default suite
  std::vector<Shape> quick_shapes;    // --quick: small, for tests and smoke runs
  // The default suite on the GPU, when it needs larger shapes than the CPU's to
  // fill the device (empty: default_shapes).
  std::vector<Shape> cuda_shapes;
  std::vector<ComparisonDef> comparisons;
  // Dimensions the variant decides (decode's kv_heads): two runs of different
  // variants are compared when their shapes agree on every other dimension.
  std::vector<std::string> variant_dims;
  // Completes a user or suite shape for one variant (e.g. decode fills kv_heads,
  // block fills d_ff) and validates it; throws std::invalid_argument with a reason.
  std::function<Shape(const std::string& variant, const Shape& shape)> complete_shape;
  std::function<Cost(const RunSpec&)> cost;
  std::function<std::unique_ptr<Workload>(const RunSpec&)> make_cpu;
  std::function<std::unique_ptr<Workload>(const RunSpec&)> make_cuda;  // empty without CUDA
};

const std::vector<PairDef>& all_pairs();
// Throws std::invalid_argument("unknown pair 'x' (known: norm, bias, block, decode)").
const PairDef& find_pair(std::string_view name);
// Throws when the pair has no such variant/impl.
void check_combo(const PairDef& pair, std::string_view variant, std::string_view impl);

// Builds the workload for spec on its backend, after completing and checking the shape.
std::unique_ptr<Workload> make_workload(const RunSpec& spec);
Cost cost_of(const RunSpec& spec);

// One pair per operator family, defined in kernels/<family>/<family>_pair.cpp.
PairDef norm_pair();
PairDef bias_pair();
PairDef block_pair();
PairDef decode_pair();
PairDef mlp_pair();

}  // namespace lmroof
