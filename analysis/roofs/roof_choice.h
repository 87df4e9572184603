#pragma once
// Which measured roof a run is judged against ("speed of light"): a pure function
// of the run's traffic (from the cost model) and the machine's measured ceilings.
// The rule, in docs/cost-model.md#which-roof-a-run-is-judged-against:
//  1. Compute: all FLOPs at the FP32 FMA peak.
//  2. Memory, when the run's working set fits a cache level (the innermost one that
//     holds it, with every thread's share of the private levels): all its bytes at
//     that level's read roof, but for bytes re-read by design whose set fits an
//     inner level: those at the inner level's roof.
//  3. Memory, otherwise (a DRAM stream): as many reads as writes move at the best
//     copy (streaming stores or not, whichever the machine ran faster), the reads
//     beyond that at the read-only roof, the writes beyond it at the copy roof; bytes
//     re-read by design (naive decode) come from the innermost cache that holds
//     every thread's re-read set at once, else from DRAM at the read roof.
//  With a bandwidth curve (results.json's bandwidth_curve, issue #34), rules 2 and 3
//  take their read rates from the curve at the run's own working set (and its re-read
//  set), not from a level's nominal roof: a cache's bandwidth falls as the working set
//  nears its capacity. The level is the curve's that holds the working set.
//  Composite runs (a cost split by operator class, the block) are judged against the
//  sum of their steps' roof times, Σ max(F_i/P, B_i/W), W the run's memory rate.
//  4. The run's time at the roof is the larger of the compute and memory times (it
//     can beat neither); the roof is the one that gives that time, and the run's
//     fraction of it is (time at the roof) / (measured time).
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/model/results_model.h"
#include "kernels/run_names/cost.h"

namespace lmroof {

// What one run does, from its Cost.
struct Traffic {
  double flops = 0;
  double bytes_read = 0;     // model bytes read
  double bytes_written = 0;  // model bytes written
  double bytes_reread = 0;   // part of bytes_read re-read by design
  double reread_set_bytes = 0;
  bool reread_set_shared = false;  // the set is the run's, not one per thread
  double working_set_bytes = 0;
  double streamed_write_bytes = 0;  // written with streaming stores: no room taken in the caches
};
// bytes_read/bytes_written from the cost; a cost without a direction split counts
// half of bytes_model each way (a copy), and a missing working set is bytes_minimum.
Traffic traffic_of(const Cost& cost);

// One cache level's measured read roof; capacity summed over the instances the
// benchmark's threads use (two private 1 MiB L2s: 2 MiB).
struct CacheRoof {
  std::string name;  // "l1_read", "l2_read", "l3_read"
  double capacity_bytes = 0;
  double value = 0;  // B/s
};

// The measured roofs analysis has; nullopt (or no caches) where a ceiling is missing.
struct MachineRoofs {
  std::optional<double> read, copy, copy_nt;  // DRAM, B/s
  std::optional<double> fp32_fma;             // FLOP/s
  std::vector<CacheRoof> caches;              // innermost first
  int threads = 1;                            // threads the ceilings (and kernels) ran
  // The read bandwidth over working-set sizes; when present, the memory rules read their
  // rates from it (cache levels and DRAM reads), the copy ceilings still pair writes.
  std::optional<model::BandwidthCurve> curve;
  // Why a measured curve is not used (it disagrees with the level ceilings:
  // analysis/roofs/curve_agreement.h): said in each memory rule judged without it.
  std::optional<std::string> curve_set_aside;
  std::set<std::string> unstable;  // ceilings marked unstable (Ceiling::unstable)
};

struct RoofChoice {
  std::string roof;  // e.g. "read", "copy_nt", "copy_nt+read", "l3_read", "read+l3_read", "fp32_fma"
  std::string unit;  // "B/s" or "FLOP/s"
  double value = 0;  // the roof's rate for this run's traffic (bytes or FLOPs over seconds)
  double seconds = 0;
  std::string rule;  // why this roof, one sentence
  std::optional<std::string> level;  // "L1" | "L2" | "L3" | "DRAM": where its bytes come from
  bool composite = false;            // the sum of its steps' roof times
};

// nullopt when the roofs this traffic needs were not measured (never a guessed roof).
std::optional<RoofChoice> choose_roof(const Traffic& traffic, const MachineRoofs& roofs);

// One step of a composite run: its FLOPs and model bytes (an operator class's).
struct Step {
  std::string name;
  double flops = 0, bytes = 0;
};
// The composite judgement: Σ max(F_i/P, B_i/W) over the steps, P the FP32 FMA peak, W
// the memory rate the whole run's bytes are judged at (`whole`, a memory or compute
// choice for the same traffic). nullopt without steps, without a compute roof, or when
// it would not be slower than `whole` (a single step).
std::optional<RoofChoice> composite_roof(const std::vector<Step>& steps, const Traffic& traffic,
                                         const MachineRoofs& roofs);

// The CPU roofs from the measured ceilings (names as bench/ceilings_cpu.cpp registers
// them; cache levels carry cache_bytes and threads).
MachineRoofs cpu_roofs_from_ceilings(const std::vector<model::Ceiling>& ceilings);

// The roofs with the DRAM read and copy_nt roofs replaced by the ones probed next to
// a run (bench/dram_probe.h): the best probe of its repetitions where recorded (a roof
// is a peak: a run is not put above its roof because the probes' median was low), else
// their median. The copy roof (ordinary stores) is dropped, as it was not probed, so
// the run's paired reads and writes are taken at the probed copy_nt.
MachineRoofs with_probed_dram(MachineRoofs roofs, const model::DramProbe& probe);

// A run's judged_against: the roof, its rate, the time at it and the run's fraction of
// it, or no roof with the reason.
model::JudgedAgainst judged_against(const Cost& cost, double measured_seconds, const MachineRoofs& roofs);

// The memory level a judgement names: JudgedAgainst::level, or for files written before
// it, the level the nominal rule's roof name implies (a DRAM roof among its parts:
// "DRAM"; else its first cache roof: "l3_read+l2_read" -> "L3"); nullopt for a compute
// roof without a level, or no roof.
std::optional<std::string> judged_level(const model::JudgedAgainst& j);

// Two sides of a comparison judged at different memory levels (issue #34): "of which
// ~2x is a change of level: mha from DRAM, gqa from L3 (...)". The speedup S splits into
// the bytes ratio's part, 1 / (candidate bytes / baseline bytes), and the rest, S times
// that ratio, which the levels' rates explain (S from the paired rounds where taken).
// nullopt unless both sides are memory-bound and judged at different levels.
// Comparison::level_change.
std::optional<std::string> level_change(const model::Comparison& c, const model::Run& baseline,
                                        const model::Run& candidate);

}  // namespace lmroof
