#include "reports/attention_chart.h"

#include <string>
#include <vector>

#include <algorithm>

#include "analysis/numbers/numbers.h"
#include "reports/charts.h"

namespace lmroof::report {

using nlohmann::json;

json attention_intensity_chart(const model::Results& results) {
  json rows = json::array();
  std::vector<std::string> contexts;
  for (const auto& r : results.runs) {
    if (!r.predicted_intensity) continue;
    const auto batch = r.shape.find("batch");
    const auto ctx = r.shape.find("context");
    if (batch == r.shape.end() || ctx == r.shape.end()) continue;
    const bool measured = r.intensity.measured.has_value();
    const double intensity = measured ? *r.intensity.measured : r.intensity.model;
    if (!(intensity > 0)) continue;
    const std::string context = "context " + numbers::integer_or_sig(static_cast<double>(ctx->second));
    if (std::find(contexts.begin(), contexts.end(), context) == contexts.end()) contexts.push_back(context);
    const json base = {{"batch", batch->second}, {"context", context}, {"variant", r.variant}, {"id", r.id}};
    json run_row = base;
    run_row["series"] = measured ? "run (measured bytes)" : "run (cost-model bytes)";
    run_row["intensity"] = intensity;
    run_row["text"] = numbers::sig(intensity) + " FLOP/B, " + numbers::si(r.achieved.flop_per_s, "FLOP/s") + " achieved";
    rows.push_back(run_row);
    json pred_row = base;
    pred_row["series"] = "Shazeer: (2W + 4n·Dq) / (s·(W/b + 2n·Dkv))";
    pred_row["intensity"] = *r.predicted_intensity;
    pred_row["text"] = numbers::sig(*r.predicted_intensity) + " FLOP/B predicted";
    rows.push_back(pred_row);
  }
  if (rows.empty()) return nullptr;
  for (auto& row : rows)
    row["context_order"] = std::find(contexts.begin(), contexts.end(), row["context"].get<std::string>()) - contexts.begin();
  json spec = chart_template("intensity-vs-batch.vl.json");
  spec["datasets"]["rows"] = std::move(rows);
  return spec;
}

}  // namespace lmroof::report
