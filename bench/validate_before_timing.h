#pragma once
// Every kernel `lmroof run` times is first checked against its float64 reference
// (Workload::validate) on small fresh inputs of the same pair, variant, impl, backend
// and dtype, as llm.c's dev/cuda does: a kernel that computes the wrong thing is not
// timed, and every timed run records what it was validated on (bench.json counters
// model::counter::kValidated*, results.json runs[].validated).
#include <string>
#include <vector>

#include "kernels/run_names/shape.h"
#include "kernels/run_names/workload.h"

namespace benchmark {
class State;
}

namespace lmroof::bench {

struct KernelValidation {
  bool passed = false;
  // The worst of the validation shapes, by error over tolerance (the failing one when
  // it failed): norm-wise relative error against float64, and its tolerance.
  double error = 0;
  double tolerance = 0;
  Shape shape;
  int shapes_checked = 0;
  // One line when it failed: the shape, the error against its tolerance and the seed.
  std::string failure;
};

// The shapes a kernel is validated on: the smallest and the largest (by footprint) of
// the pair's --quick shapes that the combination runs, which span the regimes the pair's
// own small suite distinguishes (attention's prefill and decode by the combination,
// window's contexts below and above W, decode's short and long contexts), completed for
// the variant, plus the smallest with every dimension one smaller where the pair
// accepts that (odd sizes exercise vector tails and uneven thread splits the suite's
// round sizes never reach). Small by construction: the float64 reference stays cheap.
std::vector<Shape> validation_shapes(const RunSpec& spec);

// Validates spec's kernel on validation_shapes(spec) with a fresh seed, once per
// (pair, variant, impl, backend, dtype): later calls return the first result. The
// kernel code a run executes depends on those five and on the shape only through its
// sizes, which the shapes above cover in both round and odd forms.
const KernelValidation& validate_before_timing(const RunSpec& spec);

// The validation's counters on a timed run (model::counter::kValidated*).
void publish_validation(benchmark::State& state, const KernelValidation& validation);

}  // namespace lmroof::bench
