#include "analysis/claims/comparison_evidence.h"

namespace lmroof {

const char* to_string(Shown shown) {
  switch (shown) {
    case Shown::faster: return "faster";
    case Shown::slower: return "slower";
    case Shown::within_noise: return "within noise";
    case Shown::no_interval: return "no interval";
  }
  return "no interval";
}

ComparisonEvidence comparison_evidence(const model::Results& results, const model::Comparison& c) {
  ComparisonEvidence e;
  if (const auto* f = results.noise_floor(c.pair)) e.floor = f->floor;
  if (c.paired && c.paired->has_interval()) {
    e.paired = true;
    e.speedup = c.paired->speedup;
    e.low = c.paired->low, e.high = c.paired->high;
    e.rounds = c.paired->rounds;
  } else {
    e.speedup = c.speedup;
    e.low = c.speedup_low, e.high = c.speedup_high;
    e.rounds = c.repetitions;
  }
  if (!e.low || !e.high) return e;
  const bool within_floor = e.floor && *e.low >= 1 / (1 + *e.floor) && *e.high <= 1 + *e.floor;
  e.shown = within_floor ? Shown::within_noise
            : *e.low > 1 ? Shown::faster
            : *e.high < 1 ? Shown::slower
                          : Shown::within_noise;
  return e;
}

}  // namespace lmroof
