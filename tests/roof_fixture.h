#pragma once
// Shared by the roof tests (test_roof_choice.cpp, test_roof_curve.cpp): one small machine
// with round roofs and a stream of traffic, so that every expected figure can be worked
// out by hand.
#include "analysis/roofs/roof_choice.h"
#include "kernels/run_names/cost.h"

namespace lmroof::test {

inline constexpr double KiB = 1024;
inline constexpr double MiB = 1 << 20;
inline constexpr double G = 1e9;

// DRAM read 40 GB/s, copy 30, copy_nt 36; L1 64 KiB at 800 GB/s, L2 2 MiB at 400, L3
// 32 MiB at 200; FP32 FMA 200 GFLOP/s; two threads.
inline MachineRoofs nominal_machine() {
  MachineRoofs r;
  r.read = 40 * G;
  r.copy = 30 * G;
  r.copy_nt = 36 * G;
  r.fp32_fma = 200 * G;
  r.caches = {{"l1_read", 64 * KiB, 800 * G}, {"l2_read", 2 * MiB, 400 * G}, {"l3_read", 32 * MiB, 200 * G}};
  r.threads = 2;
  return r;
}

// `read` bytes read and `written` written over a working set of `working_set` bytes.
inline Traffic stream(double read, double written, double working_set) {
  Traffic t;
  t.bytes_read = read;
  t.bytes_written = written;
  t.working_set_bytes = working_set;
  return t;
}

}  // namespace lmroof::test
