#pragma once
// The report's charts: Vega-Lite templates (reports/template/charts/*.vl.json, compiled
// into the binary) whose named datasets are filled from the results. A chart is changed
// by editing its template; the spec written beside the report (report.<id>.vl.json)
// holds its data and opens as is in the Vega editor.
//
// Each template documents its datasets in its "description"; this file fills them:
//   roofline.vl.json      points, arrows, roofs, ridges; param basis's options
//   pair.vl.json          runs
//   block-shares.vl.json  shares
// A chart whose datasets would be empty is not built (empty log-scale domains make Vega warn).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/results_model.h"
#include "kernels/run_names/op_class.h"

namespace lmroof::report {

// The Vega-Lite version the embedded vega-lite build speaks (reports/vega/package.json).
inline constexpr const char* kVegaLiteSchema = "https://vega.github.io/schema/vega-lite/v6.json";

struct Chart {
  std::string id;       // "roofline", "pair-norm", ...; the page shows it in #chart-<id>
  std::string title;    // section heading
  std::string caption;  // one or two sentences under the heading (plain text)
  nlohmann::json spec;  // Vega-Lite spec, datasets filled
};

// A template by file name ("roofline.vl.json"), parsed. Throws std::logic_error for an
// unknown name (a build without it).
nlohmann::json chart_template(std::string_view name);
// Sets spec.datasets[name] = rows.
void fill_dataset(nlohmann::json& spec, std::string_view name, nlohmann::json rows);

// Null when nothing would be drawn.
nlohmann::json roofline_chart(const model::Results& results);
nlohmann::json pair_chart(const model::Results& results, const model::CataloguePair& pair);
nlohmann::json block_shares_chart(const model::Results& results);

// Every chart that has data, in page order: roofline, the pairs in catalogue order,
// block-shares.
std::vector<Chart> build_charts(const model::Results& results);

// Ivanov et al.'s operator categories for lmroof's operator classes: matrix and
// attention -> "tensor contraction" (attention's FLOPs are its two batched
// contractions; its softmax is a few percent of them), normalization -> "normalization",
// elementwise -> "element-wise". Unknown classes keep their name.
std::string ivanov_category(OpClass op_class);

}  // namespace lmroof::report
