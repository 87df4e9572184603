#pragma once
// Before/after: the runs of two results files matched by what they measured
// (pair/variant/impl/backend/dtype/shape), each with its speedup, a bootstrap
// interval of it, a Mann-Whitney U test on the repetition samples, the change in
// the fraction of the roof achieved, and a verdict. `lmroof compare` prints it;
// docs/compare.md describes the JSON (schema lmroof.compare/1).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/rules/rules.h"

namespace lmroof::compare {

inline constexpr const char* kCompareSchema = "lmroof.compare/1";
// How every speedup of `compare` is estimated: two files' runs are never timed in paired
// rounds, so it is the ratio of their medians, named so wherever it is shown (issue #45:
// the claims and the report use paired rounds where taken).
inline constexpr const char* kUnpairedMedians = "unpaired: medians";

// What identifies a measurement across files.
struct RunKey {
  std::string pair, variant, impl, backend, dtype;
  std::map<std::string, int64_t> shape;
  auto operator<=>(const RunKey&) const = default;
};

// One run of one file, as compare needs it (compare_input.h fills it from a results file).
struct RunTimes {
  RunKey key;
  std::string id;
  std::string label;                      // "norm/rmsnorm/fused/cpu/fp32 tokens=4096 d_model=1024"
  std::vector<double> samples;            // seconds per repetition
  double median = 0;                      // the file's own median (time_s.median)
  std::optional<double> roof_fraction;    // achieved / attainable FLOP/s (roofline.efficiency)
  std::optional<double> probe_read;       // B/s: the DRAM read bandwidth probed next to the run (dram_probe.read)
  // The memory level the run is judged at ("L3", "DRAM"; judged_against.level) and the
  // rate of that roof (B/s or FLOP/s, judged_against.value); absent when not judged.
  std::optional<std::string> level;
  std::optional<double> judged_rate;
};

// One results file: which machine it came from, and its runs.
struct Side {
  std::string file;
  std::string machine;  // "AMD EPYC 9B14 (cpu, 2 cores)" or "NVIDIA H200 (cuda)"
  std::string date;
  std::vector<RunTimes> runs;
  std::map<std::string, double> noise_floors{};  // pair -> A/A floor (results' noise_floors); empty without
};

struct Options {
  // The defaults and why: analysis/rules/rules.h.
  double threshold = rules::kRegressionThreshold;  // a slowdown beyond this fraction of the base time is a regression
  double alpha = rules::kSignificance;             // significance level of the U test
  double confidence = rules::kConfidence;          // of the speedup interval
  int resamples = rules::kSpeedupResamples;        // bootstrap resamples
  uint64_t seed = rules::kCompareSeed;             // bootstrap seed: the same files give the same intervals
};

// undecided: the speedup's interval excludes 1 but the U test does not reject "same"
// (typically too few repetitions: 3 + 3 can never reach p < 0.05); neither a change nor
// "same within noise". RunChange::repetitions_to_decide says how many would decide it.
enum class Verdict { faster, slower, same, undecided, only_base, only_new };
// "faster", "slower", "same", "undecided", "only in base", "only in new"
const char* to_string(Verdict verdict);

struct SideNumbers {
  double median = 0;
  size_t samples = 0;
  std::optional<double> roof_fraction;
};

struct RunChange {
  RunKey key;
  std::string id;     // the new file's run id (the base's when only in base)
  std::string label;  // as RunTimes::label
  std::optional<SideNumbers> base, next;
  // Present when the run is in both files.
  // base / new median of the repetition samples (> 1: faster), and its interval
  std::optional<double> speedup, speedup_low, speedup_high;
  std::optional<double> p_value, u;
  std::optional<bool> exact_test;
  std::optional<double> roof_fraction_change;  // new - base fraction of the roof
  // Same machine, both runs probed: max/min - 1 of their probed DRAM read
  // bandwidths. The speedup interval is widened on the side the move can explain
  // (model::widen_for_drift), as the claims do (docs/compare.md#drift).
  std::optional<double> machine_drift;
  // The run is judged at a different memory level in the two files (a machine with
  // other caches, a curve that moved): "judged at L3 in base, DRAM in new (roof 170 ->
  // 40.2 GB/s)", since part of the speedup is then the level's, not the code's.
  std::optional<std::string> level_change;
  Verdict verdict = Verdict::same;
  bool regression = false;  // slower, and by more than the threshold
  std::string note;         // why a verdict could not be "faster"/"slower" (too few samples)
  // Undecided runs: repetitions per side that would decide them at the observed effect
  // (stats::repetitions_to_decide); nullopt otherwise.
  std::optional<int64_t> repetitions_to_decide;
};

struct Report {
  Side base, next;  // runs emptied; file, machine and date kept
  Options options;
  bool same_machine = true;
  std::vector<std::string> warnings;
  std::vector<RunChange> runs;  // in key order
  size_t count(Verdict verdict) const;
  std::vector<const RunChange*> regressions() const;
};

// Matches the runs (O(n log n)) and computes every change. Throws
// std::invalid_argument, one line naming the file, for a file without runs, a run
// twice in one file, or two files with no run in common.
Report compare(const Side& base, const Side& next, const Options& options = {});

// The lmroof.compare/1 document (docs/compare.md).
nlohmann::json to_json(const Report& report);

// "norm/rmsnorm/fused/cpu/fp32 d_model=1024 tokens=4096": the key alone, dimensions by
// name; only for runs without a label (RunTimes::label, in the catalogue's order).
std::string describe(const RunKey& key);

}  // namespace lmroof::compare
