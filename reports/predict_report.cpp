#include "reports/predict_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/io/atomic_write.h"
#include "analysis/numbers/numbers.h"
#include "reports/embedded_assets.h"
#include "reports/text/format.h"
#include "reports/html_report.h"
#include "reports/text/predict_format.h"

namespace lmroof::report {

namespace {

using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// A time axis in the unit a person reads at that size: "12.5 ms", not "0.0125" under
// "(s)" with SI ticks that read as minutes ("34m").
struct TimeUnit {
  const char* name;
  double seconds;
};
TimeUnit time_unit_for(double largest_s) {
  if (largest_s < 1e-3) return {"µs", 1e-6};
  if (largest_s < 1) return {"ms", 1e-3};
  return {"s", 1};
}

// Whether a decode point is drawn: not when it does not fit the device's memory.
bool fits(const predict::DecodePoint& x) { return !x.fits || *x.fits; }

json kv_context_chart(const predict::Prediction& p) {
  json spec = json::parse(assets::chart_predict_kv_context());
  json kv = json::array(), memory = json::array();
  const predict::KvVariant* own = &p.variants.front();
  for (const auto& v : p.variants)
    if (v.models_own) own = &v;
  for (int64_t batch : p.batches)
    for (size_t i = 0; i < p.contexts.size(); ++i) {
      const double bytes = static_cast<double>(own->kv_bytes_per_sequence[i]) * static_cast<double>(batch);
      kv.push_back({{"context", p.contexts[i]}, {"gib", bytes / kGiB}, {"batch", batch}, {"text", binary_bytes(bytes)}});
    }
  for (const auto& d : p.devices) {
    if (!d.device.memory_bytes) continue;
    const double left = *d.device.memory_bytes - static_cast<double>(p.memory.weight_bytes);
    if (left <= 0) continue;  // a log scale has no place for it; the page says the weights do not fit
    memory.push_back({{"device", d.device.name}, {"gib", left / kGiB}, {"text", binary_bytes(left)}});
  }
  fill_dataset(spec, "kv", kv);
  fill_dataset(spec, "memory", memory);
  // No device with memory left beside the weights: drop the rule and its label.
  if (memory.empty()) spec["layer"] = nlohmann::json::array({spec["layer"][0]});
  return spec;
}

// The batch from which decode turns compute-bound, per device and context, where it
// lies within the batches drawn for them (a rule beyond them would stretch the axis to
// a batch the chart shows nothing at, or one that does not fit).
json compute_bound_turns(const predict::Prediction& p) {
  json turns = json::array();
  for (const auto& d : p.devices)
    for (size_t i = 0; i < d.compute_bound_from_batch.size(); ++i) {
      const auto b = d.compute_bound_from_batch[i];
      if (!b) continue;
      int64_t lowest = 0, highest = 0;
      for (const auto& x : d.decode)
        if (x.context == p.contexts[i] && fits(x)) {
          lowest = lowest == 0 ? x.batch : std::min(lowest, x.batch);
          highest = std::max(highest, x.batch);
        }
      if (highest > 0 && *b >= lowest && *b <= highest)
        turns.push_back({{"device", d.device.name}, {"context", p.contexts[i]}, {"batch", *b}});
    }
  return turns;
}

json decode_batch_chart(const predict::Prediction& p) {
  json spec = json::parse(assets::chart_predict_decode_batch());
  json decode = json::array();
  for (const auto& d : p.devices)
    for (const auto& x : d.decode)
      if (fits(x))
        decode.push_back({{"device", d.device.name}, {"context", x.context}, {"batch", x.batch},
                          {"tokens_per_s", x.tokens_per_s}, {"bound", predict::to_string(x.bound)},
                          {"step", numbers::si(x.step_s, "s")}});
  const json turns = compute_bound_turns(p);
  // The contexts' shapes in numeric order (a legend sorted as text reads 1024, 131072, 32768).
  json contexts = json::array();
  for (int64_t c : p.contexts) contexts.push_back(c);
  spec["layer"][1]["encoding"]["shape"]["scale"]["domain"] = contexts;
  fill_dataset(spec, "decode", decode);
  fill_dataset(spec, "turns", turns);
  // No batch drawn turns compute-bound: drop the rule's layer (an empty dataset makes Vega
  // warn), and the caption does not promise it.
  if (turns.empty()) spec["layer"].erase(2);
  return decode.empty() ? json(nullptr) : spec;
}

std::string decode_batch_caption(const predict::Prediction& p) {
  std::string caption =
      "Aggregate tokens/s of one decode step at each batch: one colour per device, one shape per context; a filled "
      "point is compute-bound, a hollow one memory-bound, a half-filled one latency-bound (the launch term t0).";
  bool left_out = false;
  for (const auto& d : p.devices)
    for (const auto& x : d.decode) left_out = left_out || !fits(x);
  if (left_out) caption += " Batches whose KV cache does not fit beside the weights are not drawn (the tables mark them).";
  caption += compute_bound_turns(p).empty()
                 ? " No batch drawn turns decode compute-bound (the tables give the batch where it would)."
                 : " A dashed rule marks the batch from which decode turns compute-bound.";
  return caption;
}

json step_ops_chart(const predict::Prediction& p) {
  json spec = json::parse(assets::chart_predict_step_ops());
  json ops = json::array();
  double largest = 0;
  for (const auto& d : p.devices)
    if (d.decode_step_ops) largest = std::max(largest, d.decode_step_ops->time_s);
  const TimeUnit unit = time_unit_for(largest);
  for (const auto& d : p.devices) {
    if (!d.decode_step_ops) continue;
    int order = 0;
    for (const auto& op : d.decode_step_ops->ops)
      ops.push_back({{"device", d.device.name}, {"op", op.name}, {"order", order++}, {"time", op.time_s / unit.seconds},
                     {"text", numbers::si(op.time_s, "s")}, {"bound", predict::to_string(op.bound)}});
  }
  if (ops.empty()) return json(nullptr);
  fill_dataset(spec, "ops", ops);
  const auto& first = *std::find_if(p.devices.begin(), p.devices.end(), [](const auto& d) { return d.decode_step_ops.has_value(); });
  spec["encoding"]["x"]["axis"]["title"] =
      fmt::format("time of one decode step ({}), batch {}, context {}", unit.name, first.decode_step_batch,
                  first.decode_step_context);
  return spec;
}

json kv_variants_chart(const predict::Prediction& p) {
  json spec = json::parse(assets::chart_predict_kv_variants());
  json rows = json::array();
  for (const auto& v : p.variants)
    for (size_t i = 0; i < p.contexts.size(); ++i)
      rows.push_back({{"context", p.contexts[i]}, {"attention", v.name},
                      {"gib", static_cast<double>(v.kv_bytes_per_sequence[i]) / kGiB},
                      {"text", binary_bytes(static_cast<double>(v.kv_bytes_per_sequence[i]))},
                      {"own", v.models_own ? "the model's" : "variant"}});
  fill_dataset(spec, "variants", rows);
  return spec;
}

}  // namespace

std::vector<Chart> predict_charts(const predict::Prediction& p) {
  std::vector<Chart> charts;
  auto add = [&](const char* id, const char* title, std::string caption, json spec) {
    if (!spec.is_null()) charts.push_back({id, title, std::move(caption), std::move(spec)});
  };
  add("predict-kv-context", "KV cache against context",
      "One line per decode batch (the model's own attention, sliding-window layers capped at W), in GiB as in the tables; "
      "a dashed rule per device marks the memory left beside the weights.",
      kv_context_chart(p));
  add("predict-decode-batch", "Decode tokens/s bound against batch", decode_batch_caption(p), decode_batch_chart(p));
  std::string step_caption = "Each op summed over the layers: max(F/P, B/W) + t0 per kernel launch, stacked into the step's time";
  for (const auto& d : p.devices)
    if (d.decode_step_ops) {
      step_caption += fmt::format(", at batch {} and context {}", d.decode_step_batch, d.decode_step_context);
      break;
    }
  add("predict-step-ops", "One decode step, op by op", step_caption + ".", step_ops_chart(p));
  add("predict-kv-variants", "MHA, GQA and MQA", "The same model's KV cache per sequence (GiB) with each attention's kv heads.",
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
