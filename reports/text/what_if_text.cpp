// The what-if blocks as text; see reports/text/what_if_text.h.
#include "reports/text/what_if_text.h"

#include <fmt/format.h>

#include <cmath>

#include "analysis/numbers/numbers.h"
#include "reports/text/trace_text.h"

namespace lmroof::report {

namespace {

using nlohmann::json;
using numbers::percent;
using numbers::si;

std::string s(const json& v) { return v.is_number() ? si(v.get<double>(), "s") : std::string("unknown"); }
std::string signed_pct(const json& v) {
  if (!v.is_number()) return "unknown";
  const double x = v.get<double>();
  return fmt::format("{}{}", x >= 0 ? '+' : '-', percent(std::abs(x)));
}

}  // namespace

std::string what_if_text(const std::vector<model::TraceWhatIf>& what_if) {
  std::string out;
  auto sec = [](double v) { return si(v, "s"); };
  for (const auto& w : what_if) {
    out += fmt::format("what if on {} ({}; the trace's roofs: {}), per step:\n", w.device, w.origin, w.source_device);
    const auto& st = w.step_time_s;
    const auto& b = w.busy_s;
    out += fmt::format("  step time  {} -> {} (interval {} to {})\n", sec(st.source), sec(st.predicted), sec(st.low), sec(st.high));
    out += fmt::format("  busy       {} -> {} (interval {} to {}); gaps between kernels kept as on the source\n", sec(b.source),
                       sec(b.predicted), sec(b.low), sec(b.high));
    out += fmt::format("  naive answers for busy: the same time {}; the datasheet ratio {:.3g}: {}\n", sec(w.naive.same_time_busy_s),
                       w.naive.datasheet_ratio, sec(w.naive.datasheet_busy_s));
    out += fmt::format("  over the window ({} steps):\n  {:<14} {:>11} {:>11} {:>23}\n", w.step_count, "class", "source", "predicted",
                       "interval");
    for (const auto& c : w.classes) {
      if (c.source_s == 0) continue;
      out += fmt::format("  {:<14} {:>11} {:>11} {:>23}\n", c.op_class, sec(c.source_s), sec(c.predicted_s),
                         sec(c.low_s) + " to " + sec(c.high_s));
    }
    out += "  changes most (op shape: source -> predicted, why):\n";
    int n = 0;
    for (const auto& o : w.ops) {
      if (n++ == 8) break;
      std::string label = o.name + " " + trace::shapes_text(o.input_dims);
      if (label.size() > 60) label = label.substr(0, 57) + "...";
      out += fmt::format("    {:<60} {} -> {}: {}\n", label, sec(o.source_s), sec(o.predicted_s), o.why);
    }
    if (!w.widest_range.empty()) {
      out += "  widest intervals:";
      for (const auto& r : w.widest_range) out += fmt::format(" {} ({} of the range);", r.op, percent(r.share));
      out += "\n";
    }
    for (const auto& note : w.notes) out += "  note: " + note + "\n";
  }
  return out;
}

std::string prediction_text(const json& p) {
  const auto& b = p["busy_s"];
  std::string out = fmt::format(
      "prediction for {} beside the measured trace, GPU busy per step: predicted {} (interval {} to {}{}), measured {}: "
      "error {}; naive: the same time {}, the datasheet ratio {}\n",
      p["device"].get<std::string>(), s(b["predicted"]), s(b["low"]), s(b["high"]),
      b["inside_interval"].get<bool>() ? ", covers it" : ", misses it", s(b["measured"]), signed_pct(b["error"]),
      signed_pct(b["same_time_error"]), signed_pct(b["datasheet_error"]));
  out += fmt::format("  {:<14} {:>11} {:>11} {:>8}\n", "class", "predicted", "measured", "error");
  for (const auto& c : p["classes"])
    out += fmt::format("  {:<14} {:>11} {:>11} {:>8}\n", c["class"].get<std::string>(), s(c["predicted_s"]), s(c["measured_s"]),
                       signed_pct(c["error"]));
  int n = 0;
  for (const auto& o : p["ops"]) {
    if (n++ == 10) break;
    std::string label = o["name"].get<std::string>() + " " + trace::shapes_text(o["input_dims"]);
    if (label.size() > 60) label = label.substr(0, 57) + "...";
    out += fmt::format("  {:<60} predicted {} measured {} ({})\n", label, s(o["predicted_s"]), s(o["measured_s"]), signed_pct(o["error"]));
  }
  return out;
}

}  // namespace lmroof::report
