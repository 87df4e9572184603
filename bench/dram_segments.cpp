#include "bench/dram_segments.h"

#include <omp.h>

#include "bench/dram_probe.h"
#include "bench/memory_budget.h"
#include "common/host_buffer.h"

namespace lmroof::bench {

static_assert(DramSegments::kSegments == kDramArrays, "the memory budget counts every segment");

DramSegments& DramSegments::shared() {
  static DramSegments segments;
  return segments;
}

DramSegments::DramSegments() : base_(nullptr, free_host) {
  const int threads = omp_get_max_threads();
  floats_ = dram_array_bytes() / 4 / (128 * threads) * (128 * threads);
  base_.reset(static_cast<float*>(allocate_host(static_cast<size_t>(kSegments * floats_) * sizeof(float))));
  // Sweeps only read and copy, so these values are all the segments ever hold.
  for (int s = 0; s < kSegments; ++s) {
    float* seg = base_.get() + s * floats_;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < floats_; ++i) seg[i] = 1e-3f * static_cast<float>(1 + i % 97);
  }
}

int64_t DramSegments::triad_floats() const {
  const int64_t step = 128 * static_cast<int64_t>(omp_get_max_threads());
  return kSegments * floats_ / 3 / step * step;
}

float* DramSegments::triad_array(int k) { return base_.get() + k * triad_floats(); }

float* DramSegments::next() {
  float* seg = base_.get() + at_ * floats_;
  at_ = (at_ + 1) % kSegments;
  return seg;
}

}  // namespace lmroof::bench
