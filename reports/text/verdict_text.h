#pragma once
// The verdicts for people, in the words every surface shares: their report order, the
// summary line and the noise floors' line (docs/claims.md). Analysis decided them; this
// only says them.
#include <string>
#include <vector>

#include "analysis/model/results_model.h"

namespace lmroof {

// "measured: 6 hold, 1 fails, 3 inconclusive · model: 8 hold": the two kinds of
// evidence counted apart (docs/claims.md#evidence).
std::string verdict_summary(const std::vector<model::ClaimVerdict>& claims);
// "noise floors (A/A paired rounds, this machine): norm ±1.2%, bias ±0.8%"; empty
// when there are none (files without paired rounds). A floor the analysis found beyond
// its bound (Findings::unmeasurable_pairs) reads "NOT MEASURABLE HERE as set up", with
// its control's interval and rounds.
std::string format_noise_floors(const model::Results& results);

}  // namespace lmroof
