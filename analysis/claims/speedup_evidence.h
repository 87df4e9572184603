#pragma once
// The evidence of a comparison of two runs (faster, ratio): pairing candidate and
// baseline runs, and the speedup with its interval and noise.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/claims/check_common.h"

namespace lmroof::claims_detail {

struct RunPair {
  const Run* candidate;
  const Run* baseline;
};

// Runs pair up when backend, dtype and shape agree (but for ignore_dims), and so does
// every selector field that neither selector names. Throws ClaimsFileError when a
// candidate matches several baselines.
std::vector<RunPair> pair_runs(const Context& ctx, std::vector<std::string>& notes, std::string& none_reason);
// A check judged pair by pair (faster, ratio): one case per candidate run and its baseline.
Outcome check_each_pair(const Context& ctx, Case (*judge)(const Context&, const RunPair&));

// The speedup baseline time / candidate time of two runs with its interval and noise:
// the comparison's own numbers (stats::estimate_speedup, the same figures results.json's
// comparisons[] and the report show), widened when the check asks for a larger
// noise_floor than the default, and by the machine's drift between the two runs where
// both were probed (model::probed_drift: a shared VM's DRAM bandwidth can move by
// half between two runs, which neither run's repetitions show), on the side that the
// drift can explain (model::widen_for_drift).
struct SpeedupStats {
  double speedup = 0, low = 0, high = 0;
  double noise = std::numeric_limits<double>::infinity();  // infinite: no interval
  double p_value = 1;
  int repetitions = 0;  // the smaller side's
  double drift = 0;     // the machine's, between the two runs (0: not probed)
  int rounds = 0;       // > 0: from paired, interleaved rounds (Comparison::paired)
  int extra_rounds = 0;  // of which the re-measurement took (PairedRounds::extra_rounds)
  std::vector<double> sittings;  // each sitting's speedup, with two (PairedRounds::sittings)
  std::optional<double> floor;  // the pair's A/A noise floor (Results::noise_floors)
  bool has_interval() const { return std::isfinite(noise); }
  // From paired rounds of the two runs; else from their medians ("unpaired: medians").
  bool paired() const { return rounds > 0; }
  // Within ±floor: a difference this machine cannot tell from none.
  bool within_floor() const { return floor && has_interval() && low >= 1 / (1 + *floor) && high <= 1 + *floor; }
};

// An interval [low, high] of a ratio widened by a pair's A/A floor (0: none), to
// [low / (1 + floor), high x (1 + floor)]: the same work on both sides differed by up to
// the floor here, so a faster factor or a ratio's range must hold, or miss, all of it
// (docs/claims.md, `faster` and `ratio`).
struct FloorWidened {
  double low = 0, high = 0;
};
inline FloorWidened widened_by_floor(double low, double high, double floor) {
  return {low / (1 + floor), high * (1 + floor)};
}

SpeedupStats speedup_stats(const Check& ch, const model::Results& results, const Run& baseline, const Run& candidate);
// Whether the ratio of `field` between two runs is their time ratio times a ratio of
// work the cost model fixes: a time (time_s.median, the inverse of the speedup) or an
// achieved rate (work / time_s.median, the speedup times the work ratio). Such a ratio
// is judged on the comparison's speedup: paired rounds where the two runs have them.
bool rides_on_speedup(const std::string& field);
// The evidence entry that names the estimator: "paired_rounds" (value: the rounds) or
// "unpaired_medians" (value: the smaller side's repetitions).
model::Evidence estimator_evidence(const SpeedupStats& st);
// A case of two runs judged on their medians alone (no paired rounds) where either run
// is disturbed (model::is_disturbed): a holds or fails verdict becomes inconclusive,
// cause machine, since a disturbed median may be what decided it (issue #45).
void refuse_disturbed_medians(Case& c, const SpeedupStats& st, const RunPair& p);
// The cause of a compared case's fails or inconclusive verdict (verdict_cause.h).
void name_cause(Case& c, const Check& ch, const SpeedupStats& st, const RunPair& p);
std::string interval_text(const SpeedupStats& p);
// The same interval for a ratio `scale / speedup` (a time ratio: scale 1) or
// `scale * speedup` (a rate ratio: scale the work ratio), each end and sitting mapped.
std::string interval_text(const SpeedupStats& p, double scale, bool inverse);
// What would turn an inconclusive comparison into a verdict (docs/claims.md#inconclusive).
std::string what_would_decide(const SpeedupStats& p, double threshold, const Run& baseline, const Run& candidate);
std::string too_noisy(double noise, double max_noise);
// Half the spread of one run's median, relative: the larger half-width of its 95%
// bootstrap interval, as the analysis decided it (Findings::median_intervals;
// sqrt(max / min) - 1 with fewer than 3 samples).
double run_spread(const model::Results& results, const Run& run);

}  // namespace lmroof::claims_detail
