#pragma once
// The DRAM roofs measured next to a run: after every repetition of a CPU run that
// streams from DRAM, one short read sweep and one streaming copy (the loops of the
// read and copy_nt ceilings, bench/stream_kernels.h) over arrays twice the
// outermost cache. A shared VM's bandwidth moves within seconds (the development
// machine's read roof flips between about 30 and 55 GB/s), so a roof measured
// minutes before or after a run can misjudge it by that much; analysis judges each
// such run a second time against the medians of its own probes
// (results.json: dram_probe, judged_against_probe). Each probe costs a few ms.
#include <cstdint>

namespace lmroof::bench {

struct DramProbe {
  double read_bytes_per_s = 0;
  double copy_nt_bytes_per_s = 0;
};

// Whether a run whose working set is `working_set_bytes` streams from DRAM: over
// twice the outermost cache the threads use (the rule analysis/roof_choice.cpp
// applies before it takes a run's bytes at the DRAM roofs alone). False when the OS
// reports no cache sizes.
bool streams_from_dram(double working_set_bytes);

// One read sweep and one streaming copy, timed on the steady clock.
DramProbe probe_dram();

}  // namespace lmroof::bench
