#include "reports/predict_report.h"

#include <fmt/format.h>

#include "analysis/io/atomic_write.h"
#include "analysis/text/numbers.h"
#include "reports/embedded_assets.h"
#include "reports/format.h"
#include "reports/html_report.h"
#include "reports/predict_format.h"

namespace lmroof::report {

namespace {

using nlohmann::json;

std::string series(const predict::DevicePrediction& d, int64_t context) { return fmt::format("{} · {}", d.device.name, context); }

json kv_context_chart(const predict::Prediction& p) {
  json spec = json::parse(assets::chart_predict_kv_context());
  json kv = json::array(), memory = json::array();
  const predict::KvVariant* own = &p.variants.front();
  for (const auto& v : p.variants)
    if (v.models_own) own = &v;
  for (int64_t batch : p.batches)
    for (size_t i = 0; i < p.contexts.size(); ++i) {
      const double bytes = static_cast<double>(own->kv_bytes_per_sequence[i]) * static_cast<double>(batch);
      kv.push_back({{"context", p.contexts[i]}, {"bytes", bytes}, {"batch", batch}, {"text", binary_bytes(bytes)}});
    }
  for (const auto& d : p.devices) {
    if (!d.device.memory_bytes) continue;
    const double left = *d.device.memory_bytes - static_cast<double>(p.memory.weight_bytes);
    if (left <= 0) continue;  // a log scale has no place for it; the page says the weights do not fit
    memory.push_back({{"device", d.device.name}, {"bytes", left}, {"text", numbers::si(left, "B")}});
  }
  fill_dataset(spec, "kv", kv);
  fill_dataset(spec, "memory", memory);
  // No device with memory left beside the weights: drop the rule and its label.
  if (memory.empty()) spec["layer"] = nlohmann::json::array({spec["layer"][0]});
  return spec;
}

json decode_batch_chart(const predict::Prediction& p) {
  json spec = json::parse(assets::chart_predict_decode_batch());
  json decode = json::array(), turns = json::array();
  for (const auto& d : p.devices) {
    for (const auto& x : d.decode)
      decode.push_back({{"series", series(d, x.context)}, {"batch", x.batch}, {"tokens_per_s", x.tokens_per_s},
                        {"bound", predict::to_string(x.bound)}, {"step", numbers::si(x.step_s, "s")}});
    for (size_t i = 0; i < d.compute_bound_from_batch.size(); ++i)
      if (d.compute_bound_from_batch[i]) turns.push_back({{"series", series(d, p.contexts[i])}, {"batch", *d.compute_bound_from_batch[i]}});
  }
  fill_dataset(spec, "decode", decode);
  fill_dataset(spec, "turns", turns);
  // No batch turns compute-bound: drop the rule's layer (an empty dataset makes Vega warn).
  if (turns.empty()) spec["layer"].erase(2);
  return decode.empty() ? json(nullptr) : spec;
}

json step_ops_chart(const predict::Prediction& p) {
  json spec = json::parse(assets::chart_predict_step_ops());
  json ops = json::array();
  for (const auto& d : p.devices) {
    if (!d.decode_step_ops) continue;
    int order = 0;
    for (const auto& op : d.decode_step_ops->ops)
      ops.push_back({{"device", d.device.name}, {"op", op.name}, {"order", order++}, {"time_s", op.time_s},
                     {"text", numbers::si(op.time_s, "s")}, {"bound", predict::to_string(op.bound)}});
  }
  fill_dataset(spec, "ops", ops);
  return ops.empty() ? json(nullptr) : spec;
}

json kv_variants_chart(const predict::Prediction& p) {
  json spec = json::parse(assets::chart_predict_kv_variants());
  json rows = json::array();
  for (const auto& v : p.variants)
    for (size_t i = 0; i < p.contexts.size(); ++i)
      rows.push_back({{"context", p.contexts[i]}, {"attention", v.name},
                      {"bytes", v.kv_bytes_per_sequence[i]}, {"text", binary_bytes(static_cast<double>(v.kv_bytes_per_sequence[i]))},
                      {"own", v.models_own ? "the model's" : "variant"}});
  fill_dataset(spec, "variants", rows);
  return spec;
}

}  // namespace

std::vector<Chart> predict_charts(const predict::Prediction& p) {
  std::vector<Chart> charts;
  auto add = [&](const char* id, const char* title, const char* caption, json spec) {
    if (!spec.is_null()) charts.push_back({id, title, caption, std::move(spec)});
  };
  add("predict-kv-context", "KV cache against context",
      "One line per decode batch (the model's own attention, sliding-window layers capped at W); a dashed rule per device "
      "marks the memory left beside the weights.",
      kv_context_chart(p));
  add("predict-decode-batch", "Decode tokens/s bound against batch",
      "Aggregate tokens/s of one decode step at each batch, per device and context, coloured by what bounds the step: "
      "memory, compute, or latency (the launch term t0). A dashed rule marks where decode turns compute-bound.",
      decode_batch_chart(p));
  add("predict-step-ops", "One decode step, op by op",
      "Each op summed over the layers: max(F/P, B/W) + t0 per kernel launch, stacked into the step's time.", step_ops_chart(p));
  add("predict-kv-variants", "MHA, GQA and MQA", "The same model's KV cache per sequence with each attention's kv heads.",
      kv_variants_chart(p));
  return charts;
}

std::string predict_html(const predict::Prediction& p) {
  const std::vector<Chart> charts = predict_charts(p);
  std::string content = fmt::format(
      "<header class=\"page-header\">\n<h1>lmroof predict: {}</h1>\n<p class=\"subtitle\">{} · {} · speed of light: max(F/P, "
      "B/W) + t0 per kernel launch</p>\n</header>\n<main>\n",
      html_escape(p.model.name), html_escape(p.model.source), html_escape(std::string(predict::to_string(p.dtype))));
  for (const auto& d : p.devices)
    if (const std::string fit = weights_fit_statement(p, d); !fit.empty())
      content += "<div class=\"banner\"><strong>" + html_escape(fit) + "</strong></div>\n";
  for (const auto& c : charts) content += chart_section_html(c);
  content += predict_tables_html(p);
  content += "</main>\n<footer>Written by lmroof predict (docs/predict.md; --format json: docs/predict.schema.json). "
             "Self-contained: nothing is fetched.</footer>\n";
  return render_page_html("lmroof predict", content, charts);
}

void write_predict_html(const predict::Prediction& p, const std::filesystem::path& path) {
  write_file_atomically(path, predict_html(p));
}

}  // namespace lmroof::report
