#pragma once
// The launch (latency) ceilings' one statistic, shared by the CPU and CUDA ceilings:
// a fixed cost per launch is timed call by call on the host's steady clock and
// summarised by its median, since its distribution has a long tail (an interrupt, a
// descheduled thread) and its best is the luckiest call, not what a kernel pays.
// Analysis takes the median of the repetitions' medians (analysis/results/results.cpp).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/suite.h"

namespace lmroof::bench {

// Seconds per launch of `call`, which performs `launches_per_call` launches (a batch of
// back-to-back launches, or a CUDA graph of that many nodes), over `calls` calls timed
// one by one after `warmup` untimed calls: the median call divided by the launches.
template <typename Call>
double median_launch_seconds(Call&& call, int calls, int warmup = 16, int launches_per_call = 1) {
  for (int i = 0; i < warmup; ++i) call();
  std::vector<double> seconds(static_cast<size_t>(calls));
  for (auto& s : seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  const auto mid = seconds.begin() + static_cast<std::ptrdiff_t>(seconds.size() / 2);
  std::nth_element(seconds.begin(), mid, seconds.end());
  return *mid / launches_per_call;
}

// One repetition of a launch ceiling: each Google Benchmark iteration times `calls`
// calls and reports its median as the iteration time (manual time); the repetition's
// median launch is published as kCeilingLaunchSecondsCounter with the launches timed.
template <typename Call>
void launch_ceiling(benchmark::State& state, Call&& call, int calls, int launches_per_call = 1) {
  std::vector<double> medians;
  for (auto _ : state) {
    const double s = median_launch_seconds(call, calls, 16, launches_per_call);
    state.SetIterationTime(s);
    medians.push_back(s);
  }
  if (medians.empty()) return;
  std::nth_element(medians.begin(), medians.begin() + static_cast<std::ptrdiff_t>(medians.size() / 2), medians.end());
  state.counters[kCeilingLaunchSecondsCounter] = medians[medians.size() / 2];
  state.counters[kCeilingLaunchesCounter] = static_cast<double>(medians.size()) * calls * launches_per_call;
}

}  // namespace lmroof::bench
