#pragma once
// What the machine gave lmroof while it measured (issue 45; bench/contention.h measures
// it, docs/results-schema.md#contention): per run (and per paired comparison) over its
// repetitions, and over the whole measurement with the other processes that took the
// most CPU. Types and their results.json form; the rules are analysis/rules/rules.h's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/rules/rules.h"

namespace lmroof::model {

class JsonCursor;

// Over one run's repetitions (or one comparison's paired rounds), those that carried a sample.
struct RunContention {
  int64_t repetitions = 0;       // repetitions with a sample, >= 1
  int64_t contended = 0;         // of them, still contended after re-timing (rules::is_contended)
  int64_t retimes = 0;           // attempts re-timing added, over all of them
  double wait_share = 0;         // the median repetition's largest worker run-queue wait / wall
  double worst_wait_share = 0;   // the largest over the repetitions
  double steal_share = 0;        // the largest share stolen by the hypervisor
  double least_oncpu_share = 0;  // the smallest on-CPU time of a worker / wall
  // At least half of the repetitions stayed contended: the median is one of them.
  bool is_contended() const { return rules::mostly_contended(contended, repetitions); }
};

// Another process, by name, over the whole measurement.
struct OtherProcess {
  std::string name;       // its comm ("chromium", "cc1plus"): one name for all its processes
  double cpu_s = 0;       // utime + stime over the window
  double core_share = 0;  // cpu_s / window_s: 1 is one core all the time
};

struct MachineContention {
  double window_s = 0;  // how long the measurement ran
  int64_t cpus = 0;          // 0: not recorded
  int64_t threads = 0;       // lmroof's OpenMP threads; 0: not recorded
  std::string wait_policy;   // OMP_WAIT_POLICY as set, "unset" when not
  std::string load_before, load_after;  // /proc/loadavg's three averages
  double steal_share = 0;    // of all CPUs' time over the window
  std::vector<OtherProcess> processes;  // busiest first, lmroof excluded
  // Over every timed repetition with a sample (runs, paired rounds, ceilings).
  int64_t repetitions = 0, contended = 0, retimes = 0;
  double worst_wait_share = 0;
};

RunContention run_contention_from(const JsonCursor& c);
nlohmann::json to_json(const RunContention& c);
MachineContention machine_contention_from(const JsonCursor& c);
nlohmann::json to_json(const MachineContention& c);

}  // namespace lmroof::model
