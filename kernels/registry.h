#pragma once
// The catalogue of paired operators. Each pair registers its variants,
// implementation levels, suite shapes, cost model and a factory per backend;
// the benchmarks, the analysis and the CLI all read this one list.
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/run_names/cost.h"
#include "kernels/run_names/op_class.h"
#include "kernels/run_names/pair_catalogue.h"
#include "kernels/run_names/workload.h"
#include "kernels/model_config/model_config.h"

namespace lmroof {

// A fragment of a pair's CUDA kernel names and the operator class a composite run's
// kernel breakdown files those kernels under (kernels/run_names/op_class.h). The table of
// library kernels (cuBLAS, FlashAttention, ...: kernels/run_names/kernel_names.h) comes
// after every pair's own names, so a pair that names its kernels here needs no edit
// elsewhere.
struct KernelClassName {
  std::string pattern;  // lower case; matched as a substring of the lower-cased demangled name
  OpClass op_class = OpClass::other;
  std::string why;      // what it catches, for docs and the tests
};

// What a pair derives its shapes from when the user names a model (`--model`, docs/models.md).
struct ModelShapeInputs {
  const ModelConfig& model;
  int64_t tokens = 0;             // rows through the token-parallel pairs (norm, bias, block, mlp)
  int64_t batch = 0;              // sequences decoded at once
  std::vector<int64_t> contexts;  // decode's context sweep
};

// One variant's shapes for a model, uncompleted (the suite calls complete_shape on each).
struct ModelShapes {
  std::vector<Shape> shapes;       // empty: the pair's kernels cannot represent this model (notes say why)
  std::vector<std::string> notes;  // what of the model these shapes keep or leave out, one line each
};

// Whether this build compiles the CUDA workloads (kernels/<family>/*_cuda.cu). A pair
// names its make_cuda under `if constexpr (built_with_cuda)`: a discarded statement needs
// no definition, so a CPU build links without the .cu files.
inline constexpr bool built_with_cuda =
#ifdef LMROOF_WITH_CUDA
    true;
#else
    false;
#endif

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
  // Which suite shapes a combination runs (empty: every combination runs every
  // shape). The attention pair's prefill and decode phases take different sizes.
  std::function<bool(const VariantImpl& combo, const Shape& suite_shape)> runs_shape;
  std::vector<ComparisonDef> comparisons;
  // Dimensions the variant decides (decode's kv_heads): two runs of different
  // variants are compared when their shapes agree on every other dimension.
  std::vector<std::string> variant_dims;
  // Completes a user or suite shape for one variant (e.g. decode fills kv_heads,
  // block fills d_ff) and validates it; throws std::invalid_argument with a reason.
  std::function<Shape(const std::string& variant, const Shape& shape)> complete_shape;
  // Optional: the shapes of one variant for a model. This is the one place a pair maps
  // a config's dimensions onto its own; a pair opts in by setting it in its
  // <family>_pair.cpp (see docs/models.md). Without it, `--model` runs the pair's usual
  // suite shapes and says so (bench::suite_runs).
  std::function<ModelShapes(const std::string& variant, const ModelShapeInputs& in)> shapes_for_model;
  // Implementation levels with no CUDA kernel (decode's blas, an OpenBLAS peer; the
  // block's unfused level): the CUDA suite leaves them out and make_workload refuses
  // them on CUDA.
  std::vector<std::string> cpu_only_impls;
  // Optional: the pair's CUDA kernel names and their operator classes (see KernelClassName).
  std::vector<KernelClassName> kernel_classes;
  // Optional: an analytic intensity prediction the report draws beside one
  // implementation level's runs. Recorded in the catalogue; the models the analysis
  // knows are listed in analysis/roofs/attention_intensity.h ("shazeer-decode").
  std::vector<IntensityPrediction> intensity_predictions;
  // How a run stands for part of a model's layer, for `lmroof predict`'s per-op model
  // (model_config.h); none: the pair's runs are not predicted (norm, bias, ...).
  std::optional<PairModelMapping> model_mapping;
  bool runs_on(Backend backend, const std::string& impl) const {
    return backend == Backend::cpu ||
           std::find(cpu_only_impls.begin(), cpu_only_impls.end(), impl) == cpu_only_impls.end();
  }
  std::function<Cost(const RunSpec&)> cost;
  std::function<std::unique_ptr<Workload>(const RunSpec&)> make_cpu;
  std::function<std::unique_ptr<Workload>(const RunSpec&)> make_cuda;  // empty without CUDA
};

const std::vector<PairDef>& all_pairs();
// A pair defined outside kernels/ (a test binary's toy pair, tests/toy_pair/): called
// during static initialization, it is appended after the built-in pairs the first
// time all_pairs() runs. Every surface then shows it with no other edit.
bool register_extra_pair(std::function<PairDef()> make);
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
PairDef attention_pair();
PairDef window_pair();
PairDef stability_pair();

}  // namespace lmroof
