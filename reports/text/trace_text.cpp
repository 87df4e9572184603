// The trace summaries as text; see reports/text/trace_text.h.
#include "reports/text/trace_text.h"

#include <fmt/format.h>

#include <tuple>

#include "analysis/numbers/numbers.h"

namespace lmroof::trace {

std::string percent_or_unknown(const std::optional<double>& v) { return v ? numbers::percent(*v) : std::string("unknown"); }
std::string seconds_or_unknown(const std::optional<double>& v) { return v ? numbers::si(*v, "s") : std::string("unknown"); }

std::string host_bound_line(const model::TraceResult& t) {
  const auto& w = t.window;
  if (w.host_bound_steps == 0) return "";
  return fmt::format("host-bound: {} of {} steps leave the GPU idle more than half the step; idle {} of the window, "
                     "{} of it in gaps where no kernel was queued",
                     w.host_bound_steps, w.step_count, numbers::percent(w.total_s > 0 ? w.idle_s / w.total_s : 0),
                     numbers::percent(w.idle_s > 0 ? w.idle_host_bound_s / w.idle_s : 0));
}

std::string communication_line(const model::TraceResult& t) {
  const auto& c = t.communication;
  if (!c.time_s || *c.time_s <= 0) return "";
  return fmt::format("communication: {} in the window, {} of it exposed ({}): no compute kernel ran beside it on any stream",
                     numbers::si(*c.time_s, "s"), seconds_or_unknown(c.exposed_s),
                     c.exposed_share ? numbers::percent(*c.exposed_share) : std::string("-"));
}

std::vector<std::string> rank_warning_lines(const model::TraceResult& t) {
  std::vector<std::string> out;
  if (t.rank_warnings)
    for (const auto& w : *t.rank_warnings) out.push_back("warning: " + w.message);
  return out;
}

std::string op_row_detail(const model::TraceOpRow& op) {
  std::string out;
  if (op.device) out = "on " + *op.device;
  if (op.input_strides) {
    out += fmt::format("{}strides {}", out.empty() ? "" : ", ", *op.input_strides);
    if (op.call_time_range_s && op.call_time_range_s->size() == 2)
      out += fmt::format(", calls {} to {}", numbers::si((*op.call_time_range_s)[0], "s"), numbers::si((*op.call_time_range_s)[1], "s"));
  }
  return out;
}

std::string fusion_check_line(const model::TraceResult& t) {
  if (!t.fix_first_check) return "";
  const auto& c = *t.fix_first_check;
  if (c.rows.empty()) return fmt::format("fusion estimate: {} has no memory-bound fused pair to check it on", c.results);
  const size_t n = c.rows.size();
  return fmt::format("fusion estimate checked on {}'s {} fused pair{}: median |error| {}, from {} to {}", c.results, n,
                     n == 1 ? "" : "s", percent_or_unknown(c.median_abs_error), percent_or_unknown(c.min_error), percent_or_unknown(c.max_error));
}

std::string shapes_text(const nlohmann::json& shapes) { return shapes.is_null() ? std::string() : shapes.dump(); }

std::string device_line(const model::TraceResult& t) {
  const auto& dev = t.device;
  if (dev.source == "per_rank") return fmt::format("devices: {} (each rank on its own roofs)", dev.name);
  if (!dev.table_name)
    return fmt::format("device: {} (roofs unknown: {})", dev.name.empty() ? "none" : dev.name, dev.why_unknown.value_or("-"));
  return fmt::format("device: {} (roofs from the table entry {}, source: {})", dev.name, *dev.table_name, dev.source.value_or("-"));
}

std::string to_text(const model::TraceResult& t, bool markdown) {
  using numbers::percent;
  using numbers::si;
  std::string out;
  const auto& w = t.window;
  const double busy = w.busy_s.value_or(0);
  const std::string window_line =
      fmt::format("window: {} ({} steps), {}{}; {}", w.kind, w.step_count, si(w.total_s, "s"),
                  t.ranks ? fmt::format(" summed over {} ranks", t.ranks->size()) : "",
                  t.cpu_only ? std::string("CPU-only trace: times are self CPU times")
                             : fmt::format("GPU busy {} ({}), idle {}", si(busy, "s"), w.total_s > 0 ? percent(busy / w.total_s) : "-",
                                           si(w.idle_s, "s")));
  // The first lines: what a reader must know before the tables.
  std::vector<std::string> headlines = rank_warning_lines(t);
  if (const std::string host_line = host_bound_line(t); !host_line.empty()) headlines.push_back(host_line);
  if (const std::string comm = communication_line(t); !comm.empty()) headlines.push_back(comm);
  if (markdown) out += fmt::format("**{}**\n\n**{}**\n\n", device_line(t), window_line);
  else out += device_line(t) + "\n" + window_line + "\n";
  for (const auto& line : headlines) out += markdown ? "**" + line + "**\n\n" : line + "\n";
  if (!markdown) out += "\n";
  // The class tables: lmroof's, then Ivanov et al.'s grouping of the same time.
  auto class_table = [&](const std::vector<model::TraceClassRow>& rows, const char* title) {
    if (markdown)
      out += fmt::format("{}\n\n| class | FLOP share | byte share | time share | fraction of roof | time |\n|---|---:|---:|---:|---:|---:|\n",
                         title);
    else
      out += fmt::format("{}\n{:<26} {:>10} {:>10} {:>10} {:>10} {:>10}\n", title, "class", "FLOPs", "bytes", "time", "of roof",
                         "time");
    for (const auto& c : rows) {
      if (c.time_s == 0 && c.flops == 0) continue;
      const auto cells = std::make_tuple(c.op_class, percent(c.flop_share), percent(c.byte_share), percent(c.time_share),
                                         percent_or_unknown(c.fraction_of_roof), si(c.time_s, "s"));
      if (markdown)
        out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", std::get<0>(cells), std::get<1>(cells), std::get<2>(cells),
                           std::get<3>(cells), std::get<4>(cells), std::get<5>(cells));
      else
        out += fmt::format("{:<26} {:>10} {:>10} {:>10} {:>10} {:>10}\n", std::get<0>(cells), std::get<1>(cells),
                           std::get<2>(cells), std::get<3>(cells), std::get<4>(cells), std::get<5>(cells));
    }
    out += "\n";
  };
  class_table(t.classes, "classes (lmroof; a generic op takes its module's class, docs/trace.md):");
  if (t.ivanov_classes) class_table(*t.ivanov_classes, "grouped as Ivanov et al. (softmax with the normalizations):");
  if (t.other.time_s > 0) {
    std::string names;
    int n = 0;
    for (const auto& o : t.other.by_name) {
      if (n++ == 3) break;
      std::string name = o.name;
      if (name.size() > 40) name = name.substr(0, 37) + "...";
      names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", name, si(o.time_s, "s"));
    }
    out += fmt::format("{}other: {} of the time; largest: {}\n\n", markdown ? "- " : "", percent(t.other.time_share), names);
  }
  if (!t.fix_first.empty()) {
    out += markdown ? "**fix first** (largest saving first; docs/trace.md):\n\n" : "fix first (largest saving first; docs/trace.md):\n";
    int n = 0;
    for (const auto& f : t.fix_first) {
      if (n++ == 5) break;
      out += fmt::format("{}{}. {} {}: now {}, after {}, saves {} ({})\n", markdown ? "" : "  ", n, f.kind, f.target,
                         si(f.current_s, "s"), si(f.estimate_s, "s"), si(f.saving_s, "s"), f.assumption);
    }
  }
  else
    out += fmt::format("{}fix first: nothing to list (no module to fuse, no op below 80% of a known roof, no host-bound "
                       "idle, no exposed communication; docs/trace.md){}\n",
                       markdown ? "**" : "", markdown ? "**\n" : "");
  // The fusion estimate's own error on measured pairs, under the list it qualifies.
  const bool fixes = !t.fix_first.empty();
  const std::string check = fusion_check_line(t);
  if (!check.empty()) out += (markdown ? "\n" : fixes ? "  " : "") + check + "\n";
  if (fixes || !check.empty()) out += "\n";
  if (!t.modules.empty()) {
    if (markdown) out += "| module | class it gives | time share | time | kernels | fraction of roof |\n|---|---|---:|---:|---:|---:|\n";
    else out += fmt::format("modules by time (innermost nn.Module type):\n  {:<30} {:>14} {:>10} {:>10} {:>8} {:>10}\n", "module",
                            "class it gives", "time share", "time", "kernels", "of roof");
    int n = 0;
    for (const auto& m : t.modules) {
      if (n++ == 10) break;
      const std::string cls = m.op_class.value_or("-");
      if (markdown)
        out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", m.type, cls, percent(m.time_share), si(m.time_s, "s"), m.kernels,
                           percent_or_unknown(m.fraction_of_roof));
      else
        out += fmt::format("  {:<30} {:>14} {:>10} {:>10} {:>8} {:>10}\n", m.type, cls, percent(m.time_share), si(m.time_s, "s"),
                           m.kernels, percent_or_unknown(m.fraction_of_roof));
    }
    out += "\n";
  }
  // Top ops
  if (markdown) out += "| op | shapes | class | calls | time | at roof | above roof | bound |\n|---|---|---|---:|---:|---:|---:|---|\n";
  else out += "top ops by time (time at the roof, time above it):\n";
  int shown = 0;
  for (const auto& op : t.ops) {
    if (shown++ == 10) break;
    const std::string at_roof = seconds_or_unknown(op.roof_time_s);
    const std::string above = seconds_or_unknown(op.time_above_roof_s);
    std::string dims = shapes_text(op.input_dims);
    if (dims.size() > 48) dims = dims.substr(0, 45) + "...";
    const std::string detail = op_row_detail(op);
    if (markdown)
      out += fmt::format("| {} | `{}`{} | {} | {} | {} | {} | {} | {} |\n", op.name, dims, detail.empty() ? "" : " (" + detail + ")",
                         op.op_class, op.calls, si(op.time_s, "s"), at_roof, above, op.bound);
    else
      out += fmt::format("  {:<34} {:<48} {:>10} at roof {:>10} above {:>10} {}\n{}", op.name, dims, si(op.time_s, "s"), at_roof,
                         above, op.bound, detail.empty() ? "" : "    " + detail + "\n");
  }
  out += fmt::format("{}known-cost share of time: {}\n", markdown ? "\n" : "\n", percent(t.known_cost_time_share));
  const auto& un = t.unattributed;
  if (un.kernels > 0)
    out += fmt::format("{}unattributed: {} kernels, {} (launch not in the trace: queued before the profiler, or a CUDA-graph replay)\n",
                       markdown ? "\n" : "", un.kernels, si(un.device_time_s, "s"));
  const auto& lb = t.launch_bound;
  if (lb.threshold_s)
    out += fmt::format("{}launch-bound kernels (shorter than {}): {}, {} of the time\n", markdown ? "\n" : "", si(*lb.threshold_s, "s"),
                       lb.kernels, percent(lb.time_share));
  if (t.ranks) {
    out += markdown ? "\n| rank | device | step time | busy | communication share | exposed communication |\n|---:|---|---:|---:|---:|---:|\n"
                    : "\nranks (step: the rank's window over its steps; busy: over its window):\n";
    for (const auto& r : *t.ranks) {
      const std::string step = r.step_time_s ? si(*r.step_time_s, "s") : std::string("no steps");
      const std::string device = r.device.value_or("-");
      const std::string exposed = r.communication.exposed_s ? si(*r.communication.exposed_s, "s") : std::string("-");
      if (markdown)
        out += fmt::format("| {}{} | {} | {} | {} | {} | {} |\n", r.rank, r.slowest ? " (slowest)" : "", device, step,
                           si(r.busy_s, "s"), percent(r.communication_share), exposed);
      else
        out += fmt::format("  rank {:<4} {:<24} step {:>10}  busy {:>10}  communication {:>7}  exposed {:>10}{}\n", r.rank, device,
                           step, si(r.busy_s, "s"), percent(r.communication_share), exposed, r.slowest ? "  <- slowest" : "");
    }
  }
  if (!t.anomalies.empty()) {
    out += markdown ? "\n**anomalies (tolerated, counted):**\n\n" : "\nanomalies (tolerated, counted):\n";
    for (const auto& an : t.anomalies) out += fmt::format("{}{} x {} (first: {})\n", markdown ? "- " : "  ", an.count, an.kind, an.first);
  }
  return out;
}

std::string compare_side_time(const nlohmann::json& seconds) {
  return seconds.is_null() ? std::string("no steps") : numbers::si(seconds.get<double>(), "s");
}

std::string compare_ratio(const nlohmann::json& ratio) {
  return ratio.is_null() ? std::string("-") : numbers::ratio(ratio.get<double>());
}

std::string compare_fraction_of_roof(const nlohmann::json& fraction) {
  return fraction.is_null() ? std::string("-") : numbers::percent(fraction.get<double>());
}

std::string compare_text(const nlohmann::json& r, bool markdown) {
  using numbers::si;
  const auto &base = r["base"], &next = r["new"];
  auto new_over_base = [](const nlohmann::json& v) { return v.is_null() ? std::string("new") : numbers::ratio(v.get<double>()); };
  std::string out = fmt::format("base: {} ({})\nnew:  {} ({})\n", base["file"].get<std::string>(), base["device"].get<std::string>(),
                                next["file"].get<std::string>(), next["device"].get<std::string>());
  // Step time: the window over its steps (a folder of ranks: its slowest rank's); busy
  // time: the ops' time summed over the whole window (streams and ranks added up).
  out += fmt::format("step time: {} -> {} ({})\nbusy time (summed over ops, whole window): {} -> {} ({})\n\n",
                     compare_side_time(base["step_time_s"]), compare_side_time(next["step_time_s"]),
                     r["step"].is_null() ? std::string("-") : compare_ratio(r["step"]["ratio"]), si(r["busy"]["base_s"].get<double>(), "s"),
                     si(r["busy"]["new_s"].get<double>(), "s"), compare_ratio(r["busy"]["ratio"]));
  out += markdown ? "| class | base | new | new/base |\n|---|---:|---:|---:|\n" : fmt::format("{:<14} {:>10} {:>10} {:>9}\n", "class", "base", "new", "new/base");
  for (const auto& c : r["classes"]) {
    if (c["base_s"].get<double>() == 0 && c["new_s"].get<double>() == 0) continue;
    out += markdown ? fmt::format("| {} | {} | {} | {} |\n", c["class"].get<std::string>(), si(c["base_s"].get<double>(), "s"),
                                  si(c["new_s"].get<double>(), "s"), new_over_base(c["ratio"]))
                    : fmt::format("{:<14} {:>10} {:>10} {:>9}\n", c["class"].get<std::string>(), si(c["base_s"].get<double>(), "s"),
                                  si(c["new_s"].get<double>(), "s"), new_over_base(c["ratio"]));
  }
  out += markdown ? "\n| op | shapes | base time | new time | change | base: of roof | new: of roof | on |\n|---|---|---:|---:|---:|---:|---:|---|\n"
                  : fmt::format("\nlargest changes per op shape (time base -> new; fraction of roof base -> new):\n  {:<34} {:<40} {:>10}    {:>10} {:>9}    {:>9}  {}\n",
                                "op", "shapes", "base time", "new time", "base roof", "new roof", "on");
  int n = 0;
  for (const auto& o : r["ops"]) {
    if (n++ == 15) break;
    std::string dims = shapes_text(o["input_dims"]);
    if (dims.size() > 40) dims = dims.substr(0, 37) + "...";
    const std::string fa = compare_fraction_of_roof(o["base_fraction_of_roof"]), fb = compare_fraction_of_roof(o["new_fraction_of_roof"]);
    const std::string status = o["status"] == "both" ? "both sides" : o["status"] == "added" ? "new only" : "base only";
    out += markdown ? fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} |\n", o["name"].get<std::string>(), dims,
                                  si(o["base_s"].get<double>(), "s"), si(o["new_s"].get<double>(), "s"), si(o["delta_s"].get<double>(), "s"),
                                  fa, fb, status)
                    : fmt::format("  {:<34} {:<40} {:>10} -> {:>10} {:>9} -> {:>9}  {}\n", o["name"].get<std::string>(), dims,
                                  si(o["base_s"].get<double>(), "s"), si(o["new_s"].get<double>(), "s"), fa, fb, status);
  }
  return out;
}

}  // namespace lmroof::trace
