#pragma once
// Where and how the numbers were produced: results.json's `machine`, read from the
// facts bench.json's context recorded at measurement time (bench/machine_context.h),
// never from the machine the analysis runs on. A fact an older bench.json lacks
// reads "unknown".
#include <string>

#include "analysis/model/claimed_comparisons.h"
#include "analysis/results/bench_json.h"
#include "analysis/model/results_model.h"

namespace lmroof {

// `date` is when the analysis runs (ISO 8601 UTC); everything else comes from `bench`.
// Throws model::InputError naming the file and context key of a malformed fact.
model::Machine machine_from_context(const BenchDocument& bench, const std::string& backend, const std::string& date);

// The suite and metrics recorded in the context, when there.
std::optional<model::Suite> suite_from_context(const BenchDocument& bench);
std::optional<model::Metrics> metrics_from_context(const BenchDocument& bench);
// The pair catalogue recorded at measurement time (model::context::kCatalogue).
std::optional<model::Catalogue> catalogue_from_context(const BenchDocument& bench);
// The claims' own comparisons recorded with the rounds (model::context::kClaimedComparisons).
std::optional<std::vector<model::ClaimedComparison>> claimed_comparisons_from_context(const BenchDocument& bench);

// Now, as ISO 8601 UTC ("2026-11-29T10:58:00Z").
std::string utc_now();

}  // namespace lmroof
