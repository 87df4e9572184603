#pragma once
// The claims' verdicts for a person: terminal text (verdict first, every reason wrapped
// whole, optional colour), a Markdown table for a pull-request comment, the one-line
// summary, and the noise floors' line. The verdicts themselves and the check JSON are
// analysis/claims/claims.h.
#include <string>
#include <vector>

#include "analysis/model/results_model.h"

namespace lmroof {

// "measured: 6 hold, 1 fails, 3 inconclusive · model: 8 hold": the two kinds of
// evidence counted apart (docs/claims.md#evidence).
std::string verdict_summary(const std::vector<model::ClaimVerdict>& claims);
// For a terminal: per claim the verdict first, then its id, evidence kind, statement,
// expected, measured and reason, each wrapped to `width` columns (never cut); the
// summary last. `colour`: ANSI colours for the verdicts.
std::string format_claims_text(const std::vector<model::ClaimVerdict>& claims, int width = 100, bool colour = false);
// format_claims_text without colour (kept for callers that print a table).
std::string format_claims_table(const std::vector<model::ClaimVerdict>& claims, int width = 100);
// A GitHub-flavoured Markdown table (verdict, claim, evidence, expected, measured) under
// the summary, fit for a pull-request comment. With `model` (the results' suite was
// sized from one, `lmroof run --model`), a line under the summary names it and its source.
std::string format_claims_markdown(const std::vector<model::ClaimVerdict>& claims,
                                   const model::ModelConfig* model = nullptr);
// "noise floors (A/A paired rounds, this machine): norm ±1.2%, bias ±0.8%"; empty
// when there are none (files without paired rounds).
// A floor the analysis found beyond its bound (Findings::unmeasurable_pairs) reads "NOT
// MEASURABLE HERE as set up", with its control's interval and rounds.
std::string format_noise_floors(const model::Results& results);

}  // namespace lmroof
