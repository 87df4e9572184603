#pragma once
// The report's Vega-Lite charts, built from the results model (docs/results-schema.md)
// with their data inlined as data.values. A chart whose data would be empty is not
// built at all (an empty or non-positive log-scale domain makes Vega warn).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/results_model.h"

namespace lmroof::report {

inline constexpr std::string_view kVegaLiteSchema = "https://vega.github.io/schema/vega-lite/v6.json";

struct Chart {
  std::string id;        // "roofline", "pair-norm", ... ([a-z0-9-]); the page shows it in #chart-<id>
  std::string title;     // section heading
  std::string caption;   // one or two sentences under the heading (plain text)
  nlohmann::json spec;   // Vega-Lite spec, data inlined
};

// Log-log roofline: measured roofs as lines, one point per run (colour = pair,
// shape = impl). Null when no run has a positive intensity and FLOP rate.
nlohmann::json roofline_chart(const model::Results& results);
// Variants of one pair side by side, one column per shape: median time with
// min–max error bars, and model bytes. Null when the pair has no runs.
nlohmann::json pair_chart(const model::Results& results, std::string_view pair);
// FLOP share vs runtime share by operator class for runs with a breakdown, beside
// Ivanov et al.'s BERT-large figures. Null when no run has a breakdown.
nlohmann::json block_shares_chart(const model::Results& results);

// Every chart that has data, in page order: roofline, one per pair in catalogue
// order (then any pair the catalogue lacks), block-shares. Titles and chart ids come
// from the catalogue.
std::vector<Chart> build_charts(const model::Results& results);

}  // namespace lmroof::report
