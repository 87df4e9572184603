#include "reports/text/predict_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "analysis/numbers/numbers.h"
#include "reports/text/format.h"

namespace lmroof::report {

namespace {

using numbers::si;

// One table, rendered aligned for the terminal or as a markdown table.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::string text(const std::string& indent) const {
    std::vector<size_t> width(header.size(), 0);
    auto measure = [&](const std::vector<std::string>& row) {
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], display_width(row[i]));
    };
    measure(header);
    for (const auto& r : rows) measure(r);
    std::string out;
    auto line = [&](const std::vector<std::string>& row) {
      out += indent;
      for (size_t i = 0; i < row.size(); ++i) {
        out += row[i];
        if (i + 1 < row.size()) out += std::string(width[i] - display_width(row[i]) + 2, ' ');
      }
      out += '\n';
    };
    line(header);
    for (const auto& r : rows) line(r);
    return out;
  }

  std::string html(const std::string& id) const {
    std::string out = "<div class=\"table-wrap\"><table id=\"" + id + "\">\n<thead><tr>";
    for (const auto& h : header) out += "<th>" + html_escape(h) + "</th>";
    out += "</tr></thead>\n<tbody>\n";
    for (const auto& r : rows) {
      out += "<tr>";
      for (size_t i = 0; i < r.size(); ++i) out += (i == 0 ? "<td>" : "<td class=\"num\">") + html_escape(r[i]) + "</td>";
      out += "</tr>\n";
    }
    return out + "</tbody></table></div>\n";
  }

  std::string markdown() const {
    std::string out = "|";
    for (const auto& h : header) out += " " + h + " |";
    out += "\n|";
    for (size_t i = 0; i < header.size(); ++i) out += i == 0 ? "---|" : "---:|";
    out += "\n";
    for (const auto& r : rows) {
      out += "|";
      for (const auto& c : r) out += " " + c + " |";
      out += "\n";
    }
    return out;
  }

 private:
  // UTF-8 code points (µ, —), which is what a terminal shows.
  static size_t display_width(const std::string& s) {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  }
};

// In place of a rate for a configuration whose KV cache does not fit beside the weights.
constexpr std::string_view kDoesNotFit = "does not fit";

std::string optional_count(const std::optional<int64_t>& n) { return n ? fmt::format("{}", *n) : std::string(numbers::kDash); }

std::string device_line(const predict::Prediction& p, const predict::DevicePrediction& d) {
  const std::string dtype(predict::to_string(p.dtype));
  const auto peak = d.device.dense_peak_flops.find(dtype);
  const auto source = d.device.peak_sources.find(dtype);
  // A measured device names the ceiling behind the peak and its dtype; one that measured
  // none for this dtype says so rather than "not listed".
  std::string peak_text = peak == d.device.dense_peak_flops.end()
                              ? (d.device.peaks_measured.empty() ? "dense " + dtype + " peak not listed"
                                                                 : "no " + dtype + " peak measured (" + d.device.peaks_measured + ")")
                              : "dense " + dtype + " peak " + si(peak->second, "FLOP/s") +
                                    (source != d.device.peak_sources.end() ? " (" + source->second + ")" : "");
  return fmt::format("{}: memory {}, {}, {}, launch t0 {} ({})", d.device.name,
                     d.device.memory_bytes ? si(*d.device.memory_bytes, "B") : "not known",
                     si(d.device.bandwidth_bytes_per_s, "B/s"), peak_text, si(d.device.launch_s, "s"),
                     d.device.launch_source);
}

struct Sections {
  std::string summary;
  Table variants;
  struct PerDevice {
    std::string heading, fit, missing;
    Table memory, decode, step;
    std::string step_caption;
  };
  std::vector<PerDevice> devices;
};

Sections build(const predict::Prediction& p) {
  Sections s;
  const auto& m = p.model;
  s.summary = fmt::format(
      "model {} ({}): {} parameters, {} {}/{} heads, head_dim {}, {} layers{}{}\n"
      "{} weights: {} ({} B); KV cache {} B per token ({} per token, every layer)\n",
      m.name, m.source, numbers::integer_or_sig(static_cast<double>(p.memory.parameters)), m.attention_kind(), m.q_heads,
      m.kv_heads, m.head_dim, m.layers,
      m.sliding_window ? fmt::format(", sliding window {} on {} of {} layers", *m.sliding_window,
                                     std::count(m.sliding_layers.begin(), m.sliding_layers.end(), true), m.layers)
                       : "",
      m.tied_embeddings ? ", tied embeddings (counted once)" : "", predict::to_string(p.dtype),
      si(static_cast<double>(p.memory.weight_bytes), "B"), p.memory.weight_bytes, p.memory.kv_bytes_per_token,
      binary_bytes(static_cast<double>(p.memory.kv_bytes_per_token)));

  s.variants.header = {"KV cache per sequence"};
  for (const auto& v : p.variants)
    s.variants.header.push_back(fmt::format("{} ({} kv heads){}", v.name, v.kv_heads, v.models_own ? ", the model's" : ""));
  {
    std::vector<std::string> per_token{"per token"};
    for (const auto& v : p.variants) per_token.push_back(binary_bytes(static_cast<double>(v.kv_bytes_per_token)));
    s.variants.rows.push_back(per_token);
  }
  for (size_t i = 0; i < p.contexts.size(); ++i) {
    std::vector<std::string> row{fmt::format("context {}", p.contexts[i])};
    for (const auto& v : p.variants) row.push_back(binary_bytes(static_cast<double>(v.kv_bytes_per_sequence[i])));
    s.variants.rows.push_back(row);
  }

  for (const auto& d : p.devices) {
    Sections::PerDevice out;
    out.heading = device_line(p, d);
    out.fit = weights_fit_statement(p, d);
    out.missing = d.missing.value_or("");
    out.memory.header = {"context", "KV per sequence", "max batch", "prefill tokens/s", "prefill bound",
                         "decode compute-bound from batch"};
    for (size_t i = 0; i < d.contexts.size(); ++i) {
      const auto& c = d.contexts[i];
      const bool timed = i < d.prefill.size();
      // Not even one sequence fits beside the weights: no rate is shown as if it ran.
      const bool fits = !c.max_batch || *c.max_batch > 0;
      out.memory.rows.push_back({fmt::format("{}", c.context), binary_bytes(static_cast<double>(c.kv_bytes_per_sequence)),
                                 optional_count(c.max_batch),
                                 !fits ? std::string(kDoesNotFit)
                                 : timed ? numbers::integer_or_sig(d.prefill[i].tokens_per_s) : std::string(numbers::kDash),
                                 timed && fits ? std::string(predict::to_string(d.prefill[i].bound)) : std::string(numbers::kDash),
                                 i < d.compute_bound_from_batch.size() ? optional_count(d.compute_bound_from_batch[i])
                                                                       : std::string(numbers::kDash)});
    }
    out.decode.header = {"batch", "context", "step", "tokens/s (all)", "tokens/s per sequence", "bound", "fits"};
    for (const auto& x : d.decode)
      out.decode.rows.push_back({fmt::format("{}", x.batch), fmt::format("{}", x.context), si(x.step_s, "s"),
                                 x.fits == false ? std::string(kDoesNotFit) : numbers::integer_or_sig(x.tokens_per_s),
                                 x.fits == false ? std::string(kDoesNotFit) : numbers::sig(x.tokens_per_s_per_sequence),
                                 std::string(predict::to_string(x.bound)),
                                 x.fits ? (*x.fits ? "yes" : "no") : std::string(numbers::kDash)});
    if (d.decode_step_ops) {
      out.step_caption = fmt::format("one decode step at batch {}, context {}: {}, {} bound", d.decode_step_batch,
                                     d.decode_step_context, si(d.decode_step_ops->time_s, "s"),
                                     predict::to_string(d.decode_step_ops->bound));
      out.step.header = {"op", "launches", "FLOPs", "bytes", "F/P", "B/W", "launch", "time", "share", "bound"};
      for (const auto& op : d.decode_step_ops->ops)
        out.step.rows.push_back({op.name, fmt::format("{}", op.launches), numbers::integer_or_sig(op.flops),
                                 si(op.bytes, "B"), si(op.compute_s, "s"), si(op.memory_s, "s"), si(op.launch_s, "s"),
                                 si(op.time_s, "s"), numbers::percent(op.time_s / d.decode_step_ops->time_s),
                                 std::string(predict::to_string(op.bound))});
    }
    s.devices.push_back(std::move(out));
  }
  return s;
}

}  // namespace

std::string binary_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) bytes /= 1024, ++u;
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{} {}", numbers::sig(bytes), units[u]);
}

std::string weights_fit_statement(const predict::Prediction& p, const predict::DevicePrediction& d) {
  if (!d.fits_weights || *d.fits_weights) return "";
  return fmt::format("The {} weights alone do not fit on one {}: {} of weights ({} B) against {} of memory ({:.0f} B).",
                     predict::to_string(p.dtype), d.device.name, si(static_cast<double>(p.memory.weight_bytes), "B"),
                     p.memory.weight_bytes, si(*d.device.memory_bytes, "B"), *d.device.memory_bytes);
}

std::string predict_text(const predict::Prediction& p) {
  const Sections s = build(p);
  std::string out = s.summary + "\n" + s.variants.text("  ");
  for (const auto& d : s.devices) {
    out += fmt::format("\n{}\n", d.heading);
    if (!d.fit.empty()) out += fmt::format("  {}\n", d.fit);
    out += d.memory.text("  ");
    if (!d.missing.empty()) {
      out += fmt::format("  {}\n", d.missing);
      continue;
    }
    out += fmt::format("\n{}\n  {}\n{}", d.decode.text("  "), d.step_caption, d.step.text("    "));
  }
  return out;
}

std::string predict_tables_html(const predict::Prediction& p) {
  const Sections s = build(p);
  std::string out = "<section class=\"block\" id=\"predict-model\">\n<h2>Model and KV cache</h2>\n<p class=\"caption\">" +
                    html_escape(s.summary) + "</p>\n" + s.variants.html("predict-variants") + "</section>\n";
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const auto& d = s.devices[i];
    out += fmt::format("<section class=\"block\" id=\"predict-device-{}\">\n<h2>{}</h2>\n", i, html_escape(p.devices[i].device.name));
    out += "<p class=\"caption\">" + html_escape(d.heading) + "<br>Source: " + html_escape(p.devices[i].device.source) + "</p>\n";
    if (!d.fit.empty()) out += "<div class=\"banner\"><strong>" + html_escape(d.fit) + "</strong></div>\n";
    out += d.memory.html(fmt::format("predict-memory-{}", i));
    if (!d.missing.empty()) {
      out += "<p class=\"caption\">" + html_escape(d.missing) + "</p>\n</section>\n";
      continue;
    }
    out += d.decode.html(fmt::format("predict-decode-{}", i));
    out += "<p class=\"caption\">" + html_escape(d.step_caption) + "</p>\n" + d.step.html(fmt::format("predict-step-{}", i));
    out += "</section>\n";
  }
  return out;
}

std::string predict_markdown(const predict::Prediction& p) {
  const Sections s = build(p);
  std::string out = "### lmroof predict: " + p.model.name + "\n\n" + s.summary + "\n" + s.variants.markdown();
  for (const auto& d : s.devices) {
    out += "\n#### " + d.heading + "\n\n";
    if (!d.fit.empty()) out += fmt::format("**{}**\n\n", d.fit);
    out += d.memory.markdown();
    if (!d.missing.empty()) {
      out += fmt::format("\n{}\n", d.missing);
      continue;
    }
    out += fmt::format("\n{}\n{}\n\n{}", d.decode.markdown(), d.step_caption, d.step.markdown());
  }
  return out;
}

}  // namespace lmroof::report
