#include "reports/attention_chart.h"

#include <string>
#include <vector>

#include "analysis/attention_intensity.h"
#include "reports/charts.h"
#include "reports/format.h"

namespace lmroof::report {

using nlohmann::json;

json attention_intensity_chart(const json& results) {
  const json* runs = find(results, {"runs"});
  if (!runs || !runs->is_array()) return nullptr;
  json rows = json::array();
  std::vector<std::string> contexts;
  for (const auto& r : *runs) {
    const auto predicted = shazeer_decode_intensity(r);
    if (!predicted) continue;
    const auto measured = number(r, {"intensity", "measured"});
    const auto model = number(r, {"intensity", "model"});
    const auto intensity = measured ? measured : model;
    if (!intensity || *intensity <= 0) continue;
    const std::string context = "context " + integer_or_sig(r["shape"]["context"].get<double>());
    if (std::find(contexts.begin(), contexts.end(), context) == contexts.end()) contexts.push_back(context);
    const json base = {{"batch", r["shape"]["batch"]}, {"context", context}, {"variant", text(r, {"variant"})},
                       {"id", text(r, {"id"})}};
    json run_row = base;
    run_row["series"] = measured ? "run (measured bytes)" : "run (cost-model bytes)";
    run_row["intensity"] = *intensity;
    const auto flops = number(r, {"achieved", "flop_per_s"});
    run_row["text"] = sig(*intensity) + " FLOP/B" + (flops ? ", " + si(*flops, "FLOP/s") + " achieved" : "");
    rows.push_back(run_row);
    json pred_row = base;
    pred_row["series"] = "Shazeer: (2W + 4n·Dq) / (s·(W/b + 2n·Dkv))";
    pred_row["intensity"] = *predicted;
    pred_row["text"] = sig(*predicted) + " FLOP/B predicted";
    rows.push_back(pred_row);
  }
  if (rows.empty()) return nullptr;
  const json tooltip = json::array({{{"field", "id"}, {"title", "run"}},
                                    {{"field", "series"}, {"title", "series"}},
                                    {{"field", "text"}, {"title", "value"}}});
  const json enc = {
      {"x", {{"field", "batch"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"axis", {{"title", "batch b"}}}}},
      {"y",
       {{"field", "intensity"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}, {"axis", {{"title", "FLOP/byte"}}}}},
      {"color", {{"field", "variant"}, {"type", "nominal"}}},
      {"strokeDash", {{"field", "series"}, {"type", "nominal"}, {"legend", {{"title", nullptr}, {"orient", "bottom"}}}}},
      {"detail", {{"field", "series"}}},
      {"tooltip", tooltip}};
  return {{"$schema", kVegaLiteSchema},
          {"description", "Attention decode: arithmetic intensity vs batch, with Shazeer's prediction"},
          {"data", {{"values", rows}}},
          {"facet", {{"column", {{"field", "context"}, {"type", "nominal"}, {"sort", contexts}, {"header", {{"title", nullptr}}}}}}},
          {"spec",
           {{"width", 260},
            {"height", 220},
            {"layer", json::array({{{"mark", {{"type", "line"}, {"point", true}}}, {"encoding", enc}}})}}}};
}

}  // namespace lmroof::report
