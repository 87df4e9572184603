// CUDA side of the window pair: each layer of the stack is decode's CUDA workload
// (decode::make_cuda, grouped level) over that layer's cache, n rows (global) or the
// rolling buffer's min(n, W) rows (local). The layers' workloads each enqueue on their
// own stream; run() chains them with events (this workload's stream -> layer 0 -> ...
// -> this stream), so the timer's events on this workload's stream bracket the whole
// stack and the layers run one after another, as in a model.
//
// Validation runs every layer's own validate() (decode's float64 reference over the
// layer's cache); the rolling buffer's slot mapping is a host-side copy checked by the
// CPU validation (tests/test_window.cpp).
#include <algorithm>
#include <memory>
#include <vector>

#include "common/cuda_workload.h"
#include "window/window.h"

namespace lmroof::window {

namespace {

class CudaWindowWorkload final : public cuda::CudaWorkload {
 public:
  explicit CudaWindowWorkload(const RunSpec& spec) {
    const Kind kind = parse_kind(spec.variant);
    const Dims d = dims_of(spec.shape);
    for (int64_t i = 0; i < d.layers; ++i) {
      const decode::Dims ld = layer_dims(d, layer_is_global(kind, i));
      RunSpec layer{"decode", "gqa", "grouped", Backend::cuda, spec.dtype,
                    Shape{{"batch", ld.batch},
                          {"q_heads", ld.q_heads},
                          {"kv_heads", ld.kv_heads},
                          {"head_dim", ld.head_dim},
                          {"context", ld.context}}};
      layer.shape = decode::complete_shape(decode::Kind::gqa, layer.shape);
      layers_.push_back(decode::make_cuda(layer));
      if (!cuda::as_cuda(*layers_.back())) throw std::runtime_error("window: decode's CUDA workload has no stream");
    }
    events_.resize(layers_.size() + 1);
  }

  void run() override {
    cudaStream_t prev = stream();
    for (size_t i = 0; i < layers_.size(); ++i) {
      cudaStream_t s = cuda::as_cuda(*layers_[i])->stream();
      events_[i].record(prev);
      CUDA_CHECK(cudaStreamWaitEvent(s, events_[i].get(), 0));
      layers_[i]->run();
      prev = s;
    }
    events_.back().record(prev);
    CUDA_CHECK(cudaStreamWaitEvent(stream(), events_.back().get(), 0));
  }

  Validation validate(uint64_t seed) override {
    Validation worst;
    for (size_t i = 0; i < layers_.size(); ++i) {
      const Validation v = layers_[i]->validate(seed + 3 * i);
      if (i == 0 || !(v.rel_error <= worst.rel_error)) worst = v;  // NaN wins
    }
    return worst;
  }

 private:
  std::vector<std::unique_ptr<Workload>> layers_;
  std::vector<cuda::Event> events_;
};

}  // namespace

std::unique_ptr<Workload> make_cuda(const RunSpec& spec) { return std::make_unique<CudaWindowWorkload>(spec); }

}  // namespace lmroof::window
