// A toy pair registered from outside kernels/ (kernels/registry.h register_extra_pair),
// linked only into build/lmroof_with_toy_pair: tests/e2e/toy_pair.sh shows that a pair
// added to the registry appears in `lmroof list`, the report and the claims with its
// title, and no other edit, and that its own model mapping is all `lmroof run --model`
// needs to predict its runs. Its name has CSS- and path-special characters on purpose.
// Its impl "broken" is a fault injected only here: a scale that multiplies by 2.002,
// which `lmroof run` must refuse to time (bench/validate_before_timing.h).
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/host_data.h"
#include "registry.h"

namespace lmroof {
namespace {

// y = x (copy) or y = 2·x (scale): one read and one write of n floats. `broken`
// computes the scale with a wrong constant (a relative error of 1e-3, far above fp32's
// tolerance) and is validated against the true one.
class ToyWorkload : public Workload {
 public:
  ToyWorkload(bool scale, bool broken, int64_t n) : scale_(scale), broken_(broken), x_(n), y_(n) { fill_uniform(x_, 1); }
  void run() override {
    const float a = broken_ ? 2.002f : scale_ ? 2.f : 1.f;
#pragma omp parallel for
    for (size_t i = 0; i < x_.size(); ++i) y_[i] = a * x_[i];
  }
  Validation validate(uint64_t seed) override {
    fill_uniform(x_, seed);
    std::fill(y_.begin(), y_.end(), NAN);  // poisoned: an unwritten element fails
    run();
    double err = 0, ref = 0;
    for (size_t i = 0; i < x_.size(); ++i) {
      const double want = (scale_ ? 2.0 : 1.0) * static_cast<double>(x_[i]);
      err += (y_[i] - want) * (y_[i] - want), ref += want * want;
    }
    return {std::sqrt(err / (ref > 0 ? ref : 1)), tolerance_for(DType::fp32)};
  }

 private:
  bool scale_, broken_;
  std::vector<float> x_, y_;
};

PairDef toy_pair() {
  PairDef p;
  p.name = "toy(v2)";
  p.title = "Toy pair: scale vs copy";
  p.summary = "y = 2·x vs y = x: a pair registered from a test, never in the built-in suite";
  p.combos = {{"copy", "plain"}, {"scale", "plain"}, {"scale", "broken"}};
  p.default_shapes = {{{"n", 1 << 20}}};
  p.quick_shapes = {{{"n", 1 << 16}}};
  p.comparisons = {{{"copy", "plain"}, {"scale", "plain"}, "scale vs copy"}};
  p.complete_shape = [](const std::string&, const Shape& s) {
    if (!s.has("n") || s["n"] <= 0) throw std::invalid_argument("toy(v2) needs n > 0");
    return s;
  };
  p.cost = [](const RunSpec& spec) {
    const double n = static_cast<double>(spec.shape["n"]);
    Cost c;
    c.flops.vector = spec.variant == "scale" ? n : 0;
    c.bytes_minimum = c.bytes_model = 8 * n;
    c.bytes_read = c.bytes_written = 4 * n;
    return c;
  };
  // Its model mapping (`lmroof run --model`): the toy stands for the MLP activation of `n`
  // tokens. Any op would do; the e2e test checks that a pair's own declaration is all
  // that a prediction needs.
  p.model_mapping = PairModelMapping{.tokens_dim = "n", .ops = {"mlp_act"}};
  p.make_cpu = [](const RunSpec& spec) -> std::unique_ptr<Workload> {
    return std::make_unique<ToyWorkload>(spec.variant == "scale", spec.impl == "broken", spec.shape["n"]);
  };
  return p;
}

const bool registered = register_extra_pair(toy_pair);

}  // namespace
}  // namespace lmroof
