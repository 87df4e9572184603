#pragma once
// The memory the DRAM roofs are measured on (the read, copy, copy_nt and triad
// ceilings, the probes taken next to runs, and the bandwidth curve's points): kSegments
// segments of dram_array_bytes(), swept in turn, so that each sweep reads memory that a
// whole other segment has streamed through the caches since it was last touched.
// The triad's three arrays are carved from the same memory (triad_arrays()).
//
// Why fresh segments: sweeping one array again and again, as the ceilings and the
// probes did until session 11, lets AMD's victim L3 serve part of each sweep from the
// previous one. On the Zen 5 guest, when its two vCPUs had an L3 each (64 MiB in all),
// a 128 MiB array read at 95 GB/s where 256 MiB read at 80 (tests/test_dram_probe.cpp,
// LastLevelIsWhereTheRateDropsMost); in one process (2026-12-02), the best of two
// sweeps of one 128 MiB array read 43-50 GB/s where two fresh 128 MiB segments read
// 37-51 and a 1 GiB sweep 35-41, and the second of two back-to-back sweeps of one
// 128 MiB region beat the first by up to 17% (74.1 against 63.5 GB/s, best of 20).
//
// Why two (six until issue #34): a segment is at least 2x the outermost cache
// (bench/memory_budget.h), so one other segment's sweep between two uses already
// streams more than the cache holds; six held 17.9 GB on a VM with a 480 MiB L3.
#include <cstdint>
#include <memory>

namespace lmroof::bench {

class DramSegments {
 public:
  // A copy takes two segments per sweep: two is the fewest that serve
  // (bench/memory_budget.h counts them as kDramArrays).
  static constexpr int kSegments = 2;

  // The process's segments: allocated on first use with the workloads' page policy
  // and first touched by the threads that sweep them (as the sweeps split them).
  static DramSegments& shared();

  // Floats per segment: dram_array_bytes() / 4, a multiple of 128 per thread.
  int64_t floats() const { return floats_; }

  // The segment swept least recently; the next call returns the one after it.
  float* next();

  // The first floats() * kSegments floats of the segments, contiguous: the bandwidth
  // curve sweeps working sets of up to all of it.
  float* all() { return base_.get(); }

  // Three arrays of triad_floats() each carved from the segments, for the triad
  // (a = b + s * c; a is never fed back, so the values stay bounded).
  int64_t triad_floats() const;
  float* triad_array(int k);

  DramSegments(const DramSegments&) = delete;
  DramSegments& operator=(const DramSegments&) = delete;

 private:
  DramSegments();
  int64_t floats_ = 0;
  std::unique_ptr<float, void (*)(void*) noexcept> base_;  // kSegments x floats_
  int at_ = 0;
};

}  // namespace lmroof::bench
