#pragma once
// What the machine gave lmroof while it timed (issue 45, "contention, measured").
//
// lmroof's OpenMP kernels use every core and meet at barriers, so one other busy process
// on a 2-core machine made them up to 55x slower: each barrier waited for the worker
// that had lost its core. Per repetition this reads, before and after:
// - each OpenMP worker's /proc/self/task/TID/schedstat: its time on a CPU and its run
//   delay (runnable, no core), against the repetition's wall time;
// - /proc/stat: the machine's steal time (a hypervisor's other guests) and procs_running.
// The files stay open and are re-read with pread (a few microseconds each; no scan of
// /proc per repetition). Over the whole measurement, /proc/PID/stat's utime + stime of
// every other process, at the start and at the end, name the busiest others.
//
// A repetition is contended by rules::is_contended; a contended one is timed again
// within a budget (rules::kContendedRetimes, rules::kContentionRetimeShare).
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace benchmark {
class State;
}

namespace lmroof::bench {

// What one timed repetition got.
struct RepetitionShare {
  bool measured = false;          // false: /proc could not be read (not Linux): counters left out
  double wall_s = 0;
  double worst_wait_share = 0;    // the largest run delay of a worker / wall
  double least_oncpu_share = 0;   // the smallest on-CPU time of a worker / wall
  double steal_share = 0;         // stolen / all CPUs' time over the repetition
  double runnable = 0;            // procs_running, the larger of the two samples
  bool contended() const;
};

// A snapshot of the counters RepetitionShare is the difference of.
struct ContentionSample {
  std::chrono::steady_clock::time_point at;
  std::vector<std::pair<double, double>> workers;  // {on-CPU ns, run delay ns} per worker
  double steal_ticks = 0, total_ticks = 0;
  double runnable = 0;
  bool valid = false;
};

ContentionSample sample_contention();
RepetitionShare share_between(const ContentionSample& before, const ContentionSample& after);

// Times `repetition` (called with the attempt's index, 0 first; it returns its own time
// in seconds), sampling around it; a contended attempt is timed again while the budget
// allows, and the least contended attempt is kept (chosen by what the machine gave,
// never by its time).
struct TimedRepetition {
  double seconds = 0;
  RepetitionShare share;
  int retimes = 0;       // attempts added to the first
  int kept_attempt = 0;  // the index of the attempt kept
};
TimedRepetition time_uncontended(const std::function<double(int attempt)>& repetition);

// Publishes a repetition's share as Google Benchmark counters (model::counter::kMachine*).
void publish_share(benchmark::State& state, const RepetitionShare& share, int retimes);

// The other processes' CPU over a window: start() at the beginning of a measurement,
// summary() at its end: model::context::kContention's JSON, or null when /proc could not
// be read.
class OtherProcesses {
 public:
  void start();
  nlohmann::json summary() const;

 private:
  std::map<int, std::pair<std::string, double>> start_ticks_;  // pid -> {comm, utime + stime}
  std::chrono::steady_clock::time_point started_;
  std::string load_before_;
  double steal_before_ = 0, total_before_ = 0;
  bool started_ok_ = false;
};

// Combines two sessions' summaries (the suite's and a later one's, Measurement::join):
// windows and each name's CPU seconds add up, shares are taken again over the sum.
nlohmann::json combine_summaries(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace lmroof::bench
