#pragma once
// What a comparison shows, by the rule the claims judge it (issue #34 item 9,
// docs/claims.md#paired): the paired, interleaved rounds decide where they were taken
// (drift common to both sides cancels in them), the two runs' repetitions otherwise. A
// difference is shown only when the interval excludes 1 and does not lie within the
// pair's A/A noise floor: a difference this machine cannot tell from none is not one.
// The report's comparisons and key results colour their speedups by it, so a row is
// never green where the claims call the same numbers noise.
#include <optional>
#include <string>

#include "analysis/model/results_model.h"

namespace lmroof {

enum class Shown { faster, slower, within_noise, no_interval };
const char* to_string(Shown shown);  // "faster" | "slower" | "within noise" | "no interval"

struct ComparisonEvidence {
  Shown shown = Shown::no_interval;
  bool paired = false;  // from paired rounds; else from the runs' repetitions
  double speedup = 0;
  std::optional<double> low, high;
  int64_t rounds = 0;           // paired rounds, or the smaller side's repetitions
  std::optional<double> floor;  // the pair's A/A floor
};

ComparisonEvidence comparison_evidence(const model::Results& results, const model::Comparison& c);

}  // namespace lmroof
