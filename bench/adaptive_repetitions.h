#pragma once
// How many times each pair benchmark is repeated, and for how long: the one place
// that decides it (suite defaults, `lmroof run --quick`, lmroof_bench --lmroof_quick).
//
// Why a fixed scheme and not adaptive sampling. nvbench samples until the relative
// noise of the mean falls under a target or a time cap is reached; the CUDA timer
// (profiler/gpu_timer) does that inside each repetition. Google Benchmark 1.7.1 fixes
// a benchmark's repetition count when it is registered and offers no way to stop a
// benchmark's repetitions early without reporting an error (SkipWithMessage arrived
// in 1.8), so the CPU path cannot stop "when the interval is tight enough". Instead
// the per-run time budget is spent on more, shorter repetitions:
//
// - The verdicts use a bootstrap interval of the ratio of median times
//   (analysis/statistics.h). With n repetitions the bootstrap median lands on the
//   largest sample with probability P(Binomial(n, 1/n) >= n/2): 5.8% at n = 5 (so a
//   single outlier sets a 95% interval's edge, the "one outlier decides" problem), 3.3%
//   at n = 7 and under 2.5% from n = 9 on. Google Benchmark's tools/compare.py also
//   asks for at least 9 repetitions before its U test is trusted. Hence 10.
// - 10 x 25 ms costs what 5 x 50 ms did for every run faster than 25 ms per
//   iteration; slower runs (one iteration per repetition) take twice as long. On the
//   2-core development machine the default suite's timed part grows from ~17 s to ~24 s.
// - --quick keeps runs short (smoke tests) but takes 3 repetitions: the fewest that give
//   an interval at all (SpeedupOptions::min_samples).
// - CUDA keeps 5: each of its repetitions is already the median of an adaptive sampling
//   loop (profiler/gpu_timer, nvbench's noise criterion), so single outliers do not reach
//   the samples, and doubling the repetitions would double the GPU suite's time.
namespace lmroof::bench {

struct RepetitionScheme {
  int repetitions = 0;
  double min_time_s = 0;  // per repetition (Google Benchmark's MinTime)
};

inline constexpr RepetitionScheme kDefaultRepetitions{10, 0.025};
inline constexpr RepetitionScheme kQuickRepetitions{3, 0.01};
inline constexpr int kCudaRepetitions = 5;  // min_time does not apply: each repetition samples adaptively

}  // namespace lmroof::bench
