#pragma once
// The DRAM roofs measured next to a run: after every repetition of a CPU run that
// streams from DRAM, two read sweeps and two streaming copies (the loops of the
// read and copy_nt ceilings, bench/stream_kernels.h) over fresh segments of
// dram_array_bytes() (bench/dram_segments.h, as the ceilings), the faster of each
// kept. A shared VM's bandwidth moves within
// seconds (the development machine's read roof flips between about 30 and 60
// GB/s), so a roof measured minutes before or after a run can misjudge it by that
// much; analysis judges each such run a second time against the medians of its own
// probes (results.json: dram_probe, judged_against_probe). A probe costs ~10 ms.
#include <cstdint>

namespace lmroof::bench {

struct DramProbe {
  double read_bytes_per_s = 0;
  double copy_nt_bytes_per_s = 0;
};

// Whether a run whose working set is `working_set_bytes` streams from DRAM: over
// twice the outermost cache the threads use (the rule analysis/roofs/roof_choice.cpp
// applies before it takes a run's bytes at the DRAM roofs alone). False when the OS
// reports no cache sizes.
bool streams_from_dram(double working_set_bytes);

// The size of each array the DRAM roofs (ceilings and probes) stream: 4x the
// outermost cache the threads use, 128 MiB at least, within the memory budget
// (bench/memory_budget.h: at most max(1 GiB, 2x the outermost cache) and a share of
// the memory available). STREAM's rule: with arrays of
// twice a 32 MiB L3, a victim L3 (AMD) still served part of the reads, and the
// streaming copy measured 99-108 GB/s against 93-101 at 128 MiB and 88-95 at
// 512 MiB (Zen 5 VM, one sitting, session 8).
int64_t dram_array_bytes();

// Two read sweeps and two streaming copies, timed on the steady clock; the faster
// of each (the ceilings keep their best repetition too).
DramProbe probe_dram();

}  // namespace lmroof::bench
