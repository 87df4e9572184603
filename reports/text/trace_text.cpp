// The trace summaries as text; see reports/text/trace_text.h.
#include "reports/text/trace_text.h"

#include <fmt/format.h>

#include <tuple>

#include "analysis/numbers/numbers.h"

namespace lmroof::trace {

std::string host_bound_line(const nlohmann::json& doc) {
  const auto& w = doc["window"];
  if (!w.contains("host_bound_steps") || w["host_bound_steps"].get<size_t>() == 0) return "";
  const double total = w["total_s"].get<double>(), idle = w["idle_s"].get<double>();
  return fmt::format("host-bound: {} of {} steps leave the GPU idle more than half the step; idle {} of the window, "
                     "{} of it in gaps where no kernel was queued",
                     w["host_bound_steps"].get<size_t>(), w["step_count"].get<size_t>(),
                     numbers::percent(total > 0 ? idle / total : 0), numbers::percent(idle > 0 ? w["idle_host_bound_s"].get<double>() / idle : 0));
}

std::string communication_line(const nlohmann::json& doc) {
  if (!doc.contains("communication")) return "";
  const auto& c = doc["communication"];
  if (c["time_s"].is_null() || c["time_s"].get<double>() <= 0) return "";
  return fmt::format("communication: {} in the window, {} of it exposed ({}): no compute kernel ran beside it on any stream",
                     numbers::si(c["time_s"].get<double>(), "s"), numbers::si(c["exposed_s"].get<double>(), "s"),
                     c["exposed_share"].is_null() ? std::string("-") : numbers::percent(c["exposed_share"].get<double>()));
}

std::vector<std::string> rank_warning_lines(const nlohmann::json& doc) {
  std::vector<std::string> out;
  if (doc.contains("rank_warnings"))
    for (const auto& w : doc["rank_warnings"]) out.push_back("warning: " + w["message"].get<std::string>());
  return out;
}

std::string op_row_detail(const nlohmann::json& op) {
  std::string out;
  if (op.contains("device")) out = "on " + op["device"].get<std::string>();
  if (op.contains("input_strides") && op["input_strides"].is_string()) {
    out += fmt::format("{}strides {}", out.empty() ? "" : ", ", op["input_strides"].get<std::string>());
    if (op.contains("call_time_range_s"))
      out += fmt::format(", calls {} to {}", numbers::si(op["call_time_range_s"][0].get<double>(), "s"),
                         numbers::si(op["call_time_range_s"][1].get<double>(), "s"));
  }
  return out;
}

std::string fusion_check_line(const nlohmann::json& doc) {
  if (!doc.contains("fix_first_check")) return "";
  const auto& c = doc["fix_first_check"];
  const std::string file = c["results"].get<std::string>();
  if (c["rows"].empty()) return fmt::format("fusion estimate: {} has no memory-bound fused pair to check it on", file);
  const size_t n = c["rows"].size();
  return fmt::format("fusion estimate checked on {}'s {} fused pair{}: median |error| {}, from {} to {}", file, n, n == 1 ? "" : "s",
                     numbers::percent(c["median_abs_error"].get<double>()), numbers::percent(c["min_error"].get<double>()),
                     numbers::percent(c["max_error"].get<double>()));
}

std::string shapes_text(const nlohmann::json& shapes) { return shapes.is_null() ? std::string() : shapes.dump(); }

std::string to_text(const nlohmann::json& doc, bool markdown) {
  using numbers::percent;
  using numbers::si;
  std::string out;
  auto pct = [](const nlohmann::json& v) { return v.is_null() ? std::string("unknown") : percent(v.get<double>()); };
  const auto& dev = doc["device"];
  const std::string device_line =
      dev["source"] == "per_rank" ? fmt::format("devices: {} (each rank on its own roofs)", dev["name"].get<std::string>())
      : dev["table_name"].is_null()
          ? fmt::format("device: {} (roofs unknown: {})", dev["name"].get<std::string>().empty() ? "none" : dev["name"].get<std::string>(),
                        dev["why_unknown"].get<std::string>())
          : fmt::format("device: {} (roofs from the table entry {}, source: {})", dev["name"].get<std::string>(),
                        dev["table_name"].get<std::string>(), dev["source"].get<std::string>());
  const auto& w = doc["window"];
  const bool cpu = doc["cpu_only"].get<bool>();
  const std::string window_line =
      fmt::format("window: {} ({} steps), {}{}; {}", w["kind"].get<std::string>(), w["step_count"].get<size_t>(),
                  si(w["total_s"].get<double>(), "s"),
                  doc.contains("ranks") ? fmt::format(" summed over {} ranks", doc["ranks"].size()) : "",
                  cpu ? std::string("CPU-only trace: times are self CPU times")
                      : fmt::format("GPU busy {} ({}), idle {}", si(w["busy_s"].get<double>(), "s"),
                                    w["total_s"].get<double>() > 0 ? percent(w["busy_s"].get<double>() / w["total_s"].get<double>()) : "-",
                                    si(w["idle_s"].get<double>(), "s")));
  // The first lines: what a reader must know before the tables.
  std::vector<std::string> headlines = rank_warning_lines(doc);
  if (const std::string host_line = host_bound_line(doc); !host_line.empty()) headlines.push_back(host_line);
  if (const std::string comm = communication_line(doc); !comm.empty()) headlines.push_back(comm);
  if (markdown) out += fmt::format("**{}**\n\n**{}**\n\n", device_line, window_line);
  else out += device_line + "\n" + window_line + "\n";
  for (const auto& line : headlines) out += markdown ? "**" + line + "**\n\n" : line + "\n";
  if (!markdown) out += "\n";
  // The class tables: lmroof's, then Ivanov et al.'s grouping of the same time.
  auto class_table = [&](const nlohmann::json& rows, const char* title) {
    if (markdown)
      out += fmt::format("{}\n\n| class | FLOP share | byte share | time share | fraction of roof | time |\n|---|---:|---:|---:|---:|---:|\n",
                         title);
    else
      out += fmt::format("{}\n{:<26} {:>10} {:>10} {:>10} {:>10} {:>10}\n", title, "class", "FLOPs", "bytes", "time", "of roof",
                         "time");
    for (const auto& c : rows) {
      if (c["time_s"].get<double>() == 0 && c["flops"].get<double>() == 0) continue;
      const auto cells = std::make_tuple(c["class"].get<std::string>(), percent(c["flop_share"].get<double>()),
                                         percent(c["byte_share"].get<double>()), percent(c["time_share"].get<double>()),
                                         pct(c["fraction_of_roof"]), si(c["time_s"].get<double>(), "s"));
      if (markdown)
        out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", std::get<0>(cells), std::get<1>(cells), std::get<2>(cells),
                           std::get<3>(cells), std::get<4>(cells), std::get<5>(cells));
      else
        out += fmt::format("{:<26} {:>10} {:>10} {:>10} {:>10} {:>10}\n", std::get<0>(cells), std::get<1>(cells),
                           std::get<2>(cells), std::get<3>(cells), std::get<4>(cells), std::get<5>(cells));
    }
    out += "\n";
  };
  class_table(doc["classes"], "classes (lmroof; a generic op takes its module's class, docs/trace.md):");
  if (doc.contains("ivanov_classes"))
    class_table(doc["ivanov_classes"], "grouped as Ivanov et al. (softmax with the normalizations):");
  if (doc.contains("other") && doc["other"]["time_s"].get<double>() > 0) {
    std::string names;
    int n = 0;
    for (const auto& o : doc["other"]["by_name"]) {
      if (n++ == 3) break;
      std::string name = o["name"].get<std::string>();
      if (name.size() > 40) name = name.substr(0, 37) + "...";
      names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", name, si(o["time_s"].get<double>(), "s"));
    }
    out += fmt::format("{}other: {} of the time; largest: {}\n\n", markdown ? "- " : "",
                       percent(doc["other"]["time_share"].get<double>()), names);
  }
  if (doc.contains("fix_first") && !doc["fix_first"].empty()) {
    out += markdown ? "**fix first** (largest saving first; docs/trace.md):\n\n" : "fix first (largest saving first; docs/trace.md):\n";
    int n = 0;
    for (const auto& f : doc["fix_first"]) {
      if (n++ == 5) break;
      out += fmt::format("{}{}. {} {}: now {}, after {}, saves {} ({})\n", markdown ? "" : "  ", n, f["kind"].get<std::string>(),
                         f["target"].get<std::string>(), si(f["current_s"].get<double>(), "s"), si(f["estimate_s"].get<double>(), "s"),
                         si(f["saving_s"].get<double>(), "s"), f["assumption"].get<std::string>());
    }
  }
  // The fusion estimate's own error on measured pairs, under the list it qualifies.
  const bool fixes = doc.contains("fix_first") && !doc["fix_first"].empty();
  const std::string check = fusion_check_line(doc);
  if (!check.empty()) out += (markdown ? "\n" : fixes ? "  " : "") + check + "\n";
  if (fixes || !check.empty()) out += "\n";
  if (doc.contains("modules") && !doc["modules"].empty()) {
    if (markdown) out += "| module | class it gives | time share | time | kernels | fraction of roof |\n|---|---|---:|---:|---:|---:|\n";
    else out += fmt::format("modules by time (innermost nn.Module type):\n  {:<30} {:>14} {:>10} {:>10} {:>8} {:>10}\n", "module",
                            "class it gives", "time share", "time", "kernels", "of roof");
    int n = 0;
    for (const auto& m : doc["modules"]) {
      if (n++ == 10) break;
      const std::string cls = m["class"].is_null() ? "-" : m["class"].get<std::string>();
      if (markdown)
        out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", m["type"].get<std::string>(), cls, percent(m["time_share"].get<double>()),
                           si(m["time_s"].get<double>(), "s"), m["kernels"].get<uint64_t>(), pct(m["fraction_of_roof"]));
      else
        out += fmt::format("  {:<30} {:>14} {:>10} {:>10} {:>8} {:>10}\n", m["type"].get<std::string>(), cls,
                           percent(m["time_share"].get<double>()), si(m["time_s"].get<double>(), "s"), m["kernels"].get<uint64_t>(),
                           pct(m["fraction_of_roof"]));
    }
    out += "\n";
  }
  // Top ops
  if (markdown) out += "| op | shapes | class | calls | time | at roof | above roof | bound |\n|---|---|---|---:|---:|---:|---:|---|\n";
  else out += "top ops by time (time at the roof, time above it):\n";
  int shown = 0;
  for (const auto& op : doc["ops"]) {
    if (shown++ == 10) break;
    const std::string at_roof = op["roof_time_s"].is_null() ? "unknown" : si(op["roof_time_s"].get<double>(), "s");
    const std::string above = op["time_above_roof_s"].is_null() ? "unknown" : si(op["time_above_roof_s"].get<double>(), "s");
    std::string dims = shapes_text(op["input_dims"]);
    if (dims.size() > 48) dims = dims.substr(0, 45) + "...";
    const std::string detail = op_row_detail(op);
    if (markdown)
      out += fmt::format("| {} | `{}`{} | {} | {} | {} | {} | {} | {} |\n", op["name"].get<std::string>(), dims,
                         detail.empty() ? "" : " (" + detail + ")", op["class"].get<std::string>(), op["calls"].get<uint64_t>(),
                         si(op["time_s"].get<double>(), "s"), at_roof, above, op["bound"].get<std::string>());
    else
      out += fmt::format("  {:<34} {:<48} {:>10} at roof {:>10} above {:>10} {}\n{}", op["name"].get<std::string>(), dims,
                         si(op["time_s"].get<double>(), "s"), at_roof, above, op["bound"].get<std::string>(),
                         detail.empty() ? "" : "    " + detail + "\n");
  }
  out += fmt::format("{}known-cost share of time: {}\n", markdown ? "\n" : "\n", percent(doc["known_cost_time_share"].get<double>()));
  const auto& un = doc["unattributed"];
  if (un["kernels"].get<uint64_t>() > 0)
    out += fmt::format("{}unattributed: {} kernels, {} (launch not in the trace: queued before the profiler, or a CUDA-graph replay)\n",
                       markdown ? "\n" : "", un["kernels"].get<uint64_t>(), si(un["device_time_s"].get<double>(), "s"));
  const auto& lb = doc["launch_bound"];
  if (!lb["threshold_s"].is_null())
    out += fmt::format("{}launch-bound kernels (shorter than {}): {}, {} of the time\n", markdown ? "\n" : "",
                       si(lb["threshold_s"].get<double>(), "s"), lb["kernels"].get<uint64_t>(), percent(lb["time_share"].get<double>()));
  if (doc.contains("ranks")) {
    out += markdown ? "\n| rank | device | step time | busy | communication share | exposed communication |\n|---:|---|---:|---:|---:|---:|\n"
                    : "\nranks (step: the rank's window over its steps; busy: over its window):\n";
    for (const auto& r : doc["ranks"]) {
      const std::string step = r["step_time_s"].is_null() ? std::string("no steps") : si(r["step_time_s"].get<double>(), "s");
      const std::string device = r["device"].is_null() ? std::string("-") : r["device"].get<std::string>();
      const auto& c = r["communication"];
      const std::string exposed = c["exposed_s"].is_null() ? std::string("-") : si(c["exposed_s"].get<double>(), "s");
      if (markdown)
        out += fmt::format("| {}{} | {} | {} | {} | {} | {} |\n", r["rank"].dump(), r["slowest"].get<bool>() ? " (slowest)" : "",
                           device, step, si(r["busy_s"].get<double>(), "s"), percent(r["communication_share"].get<double>()), exposed);
      else
        out += fmt::format("  rank {:<4} {:<24} step {:>10}  busy {:>10}  communication {:>7}  exposed {:>10}{}\n", r["rank"].dump(),
                           device, step, si(r["busy_s"].get<double>(), "s"), percent(r["communication_share"].get<double>()),
                           exposed, r["slowest"].get<bool>() ? "  <- slowest" : "");
    }
  }
  if (!doc["anomalies"].empty()) {
    out += markdown ? "\n**anomalies (tolerated, counted):**\n\n" : "\nanomalies (tolerated, counted):\n";
    for (const auto& an : doc["anomalies"])
      out += fmt::format("{}{} x {} (first: {})\n", markdown ? "- " : "  ", an["count"].get<uint64_t>(),
                         an["kind"].get<std::string>(), an["first"].get<std::string>());
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
