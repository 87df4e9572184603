#pragma once
// The memory the DRAM roofs are measured on (the read, copy and copy_nt ceilings and
// the probes taken next to runs): kSegments segments of dram_array_bytes(), swept in
// turn, so that each sweep reads memory that at least kSegments - 2 other segments
// have streamed through the caches since it was last touched. (The triad ceiling,
// which no run is judged against, keeps its own three arrays: its output fed back
// as input would grow without bound.)
//
// Why: sweeping one array again and again, as the ceilings and the probes did until
// session 11, lets AMD's victim L3 serve part of each sweep from the previous one.
// On the Zen 5 guest, when its two vCPUs had an L3 each (64 MiB in all), a 128 MiB
// array read at 95 GB/s where 256 MiB read at 80 (tests/test_dram_probe.cpp,
// LastLevelIsWhereTheRateDropsMost); in one process (2026-12-02), the best of two
// sweeps of one 128 MiB array read 43-50 GB/s where two fresh 128 MiB segments read
// 37-51 and a 1 GiB sweep 35-41, and the second of two back-to-back sweeps of one
// 128 MiB region beat the first by up to 17% (74.1 against 63.5 GB/s, best of 20).
// Such a roof is partly an L3 roof; a run that streams 0.5-1 GB (decode) can never
// reach it. With fresh segments the DRAM roofs measure DRAM alone.
#include <cstdint>
#include <memory>

namespace lmroof::bench {

class DramSegments {
 public:
  // A copy takes two segments per sweep; six leave every segment at least four
  // segments (16x the outermost cache) of other traffic between two uses.
  static constexpr int kSegments = 6;
  static_assert(kSegments - 2 >= 4, "a copy's segments at least 16x the outermost cache apart");

  // The process's segments: allocated on first use with the workloads' page policy
  // and first touched by the threads that sweep them (as the sweeps split them).
  static DramSegments& shared();

  // Floats per segment: dram_array_bytes() / 4, a multiple of 128 per thread.
  int64_t floats() const { return floats_; }

  // The segment swept least recently; the next call returns the one after it.
  float* next();

  DramSegments(const DramSegments&) = delete;
  DramSegments& operator=(const DramSegments&) = delete;

 private:
  DramSegments();
  int64_t floats_ = 0;
  std::unique_ptr<float, void (*)(void*) noexcept> base_;  // kSegments x floats_
  int at_ = 0;
};

}  // namespace lmroof::bench
