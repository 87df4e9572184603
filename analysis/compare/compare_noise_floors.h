#pragma once
// `lmroof compare` with A/A noise floors (docs/claims.md#noise-floor-the-aa-control):
// when both results files carry a floor for a run's pair, a change whose interval
// lies within the larger of the two floors is one neither machine state could tell
// from none, and is reported "same" with a note.
#include "analysis/compare/compare.h"

namespace lmroof::compare {

// Turns a faster/slower change within both files' floors into "same" (with its note).
void apply_noise_floors(RunChange& change, const Side& base, const Side& next);

}  // namespace lmroof::compare
