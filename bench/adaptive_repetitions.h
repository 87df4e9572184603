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
//   (analysis/stats/statistics.h). With n repetitions the bootstrap median lands on the
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

// The runs a paired comparison times again (bench/paired_rounds.h) take 3 suite
// repetitions, not 10: their verdicts come from the paired rounds, and the suite's
// repetitions then only give the run's median (the roofline, the runs table) and its
// DRAM probes. 3 is the fewest that give the per-run bootstrap interval at all
// (SpeedupOptions::min_samples); `lmroof compare` says "undecided (n=3)" where that
// interval is too wide to decide. Every repetition of those runs was timed twice
// before (10 in the suite, 10 rounds per comparison it takes part in, most in two or
// more), which made the default run 6 min 15 s on 2 cores against the 2.5 minutes it
// is meant to take. An explicit --repetitions applies to every run.
inline constexpr RepetitionScheme kComparedRepetitions{3, 0.025};

// The ceilings keep their best repetition (the roof is what the machine can reach),
// so they need fewer repetitions than a median: 5 of at least 0.1 s each, 13 of them
// (9 before the suite, 4 DRAM ones again after it).
inline constexpr RepetitionScheme kCeilingRepetitions{5, 0.1};
inline constexpr RepetitionScheme kQuickCeilingRepetitions{2, 0.02};
inline constexpr int kCudaRepetitions = 5;  // min_time does not apply: each repetition samples adaptively

}  // namespace lmroof::bench
