// CPU kernels of the window pair: each layer of the stack is decode's grouped CPU
// kernel (decode::cpu_decode) over that layer's cache, n rows (global) or the
// rolling buffer's min(n, W) rows (local); the layers run one after another.
#include <algorithm>
#include <vector>

#include "common/host_buffer.h"
#include "common/host_data.h"
#include "window/window.h"

namespace lmroof::window {

namespace {

struct Layer {
  bool global;
  decode::Dims dims;  // context = the rows this layer attends
  HostVector<float> q, k, v, out, partials;
};

class CpuWindowWorkload final : public Workload {
 public:
  explicit CpuWindowWorkload(const RunSpec& spec) : kind_(parse_kind(spec.variant)), d_(dims_of(spec.shape)) {
    for (int64_t i = 0; i < d_.layers; ++i) {
      Layer l;
      l.global = layer_is_global(kind_, i);
      l.dims = layer_dims(d_, l.global);
      l.q.resize(l.dims.batch * l.dims.q_heads * l.dims.head_dim);
      l.k.resize(l.dims.batch * l.dims.kv_heads * l.dims.context * l.dims.head_dim);
      l.v.resize(l.k.size());
      l.out.resize(l.q.size());
      l.partials.resize(decode::cpu_partial_floats(decode::Impl::grouped, l.dims));
      fill_uniform(l.q, 3 * i + 1);
      fill_uniform(l.k, 3 * i + 2);
      fill_uniform(l.v, 3 * i + 3);
      layers_.push_back(std::move(l));
    }
  }

  void run() override {
    for (auto& l : layers_)
      decode::cpu_decode(decode::Impl::grouped, l.dims, l.q.data(), l.k.data(), l.v.data(), l.out.data(),
                         l.partials.data());
  }

  // Every layer gets a fresh full history of n positions; a local layer's cache is
  // the rolling buffer built from it, and the reference attends the history's last
  // W positions (all n for a global layer). The norm-wise error is over all layers.
  Validation validate(uint64_t seed) override {
    const decode::Dims history = layer_dims(d_, true);
    HostVector<float> k_full(history.batch * history.kv_heads * history.context * history.head_dim);
    HostVector<float> v_full(k_full.size());
    std::vector<std::vector<double>> refs;
    for (size_t i = 0; i < layers_.size(); ++i) {
      Layer& l = layers_[i];
      const uint64_t s = seed + 3 * i;
      fill_uniform(l.q, s);
      fill_uniform(k_full, s + 1);
      fill_uniform(v_full, s + 2);
      if (l.global) {
        l.k = k_full;
        l.v = v_full;
      } else {
        to_rolling_buffer(history, d_.window, k_full, l.k);
        to_rolling_buffer(history, d_.window, v_full, l.v);
      }
      poison(l.out);
      poison(l.partials);
      refs.emplace_back(l.out.size());
      reference(history, l.global ? history.context : d_.window, l.q, k_full, v_full, refs.back());
    }
    run();
    std::vector<float> got;
    std::vector<double> want;
    for (size_t i = 0; i < layers_.size(); ++i) {
      got.insert(got.end(), layers_[i].out.begin(), layers_[i].out.end());
      want.insert(want.end(), refs[i].begin(), refs[i].end());
    }
    return {relative_error<float>(got, want), tolerance_for(DType::fp32)};
  }

 private:
  Kind kind_;
  Dims d_;
  std::vector<Layer> layers_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) { return std::make_unique<CpuWindowWorkload>(spec); }

}  // namespace lmroof::window
