#include "analysis/compare/compare_noise_floors.h"

#include <fmt/format.h>

#include <algorithm>

namespace lmroof::compare {

void apply_noise_floors(RunChange& change, const Side& base, const Side& next) {
  if (change.verdict != Verdict::faster && change.verdict != Verdict::slower) return;
  const auto a = base.noise_floors.find(change.key.pair), b = next.noise_floors.find(change.key.pair);
  if (a == base.noise_floors.end() || b == next.noise_floors.end() || !change.speedup_low || !change.speedup_high) return;
  const double floor = std::max(a->second, b->second);
  if (*change.speedup_low < 1 / (1 + floor) || *change.speedup_high > 1 + floor) return;
  change.verdict = Verdict::same;
  change.regression = false;
  change.note = fmt::format("within the pair's A/A noise floor (\u00b1{:.1f}%, the larger of the two files')", floor * 100);
}

}  // namespace lmroof::compare
