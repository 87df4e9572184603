#pragma once
// The pair catalogue (model::Catalogue: titles, combos, dimensions, comparisons,
// charts, one dimension order) as this build's registry describes it. `lmroof run`
// records it in bench.json's context (model::context::kCatalogue) at measurement
// time, so the analysis of that file reads the catalogue it was measured with,
// never the registry of the build that analyses it.
#include "analysis/model/results_model.h"

namespace lmroof {

// The registry (kernels/registry.h) as results.json's catalogue.
model::Catalogue registry_catalogue();

}  // namespace lmroof
