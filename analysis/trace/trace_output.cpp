#include "analysis/trace/trace_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "reports/text/numbers.h"

namespace lmroof::trace {

namespace {

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

double step_time(const TraceAnalysis& a) {
  if (a.window_kind == "steps" && !a.steps.empty()) return a.total_s / static_cast<double>(a.steps.size());
  return a.total_s;
}

double class_share(const TraceAnalysis& a, OpClass c) {
  for (const auto& row : a.classes)
    if (row.op_class == c) return row.time_share;
  return 0;
}

}  // namespace

TraceAnalysis merge_ranks(const std::vector<TraceAnalysis>& ranks) {
  if (ranks.size() == 1) return ranks.front();
  TraceAnalysis m = ranks.front();
  m.file = fmt::format("{} ranks", ranks.size());
  m.ops.clear();
  m.classes.clear();
  // window.steps: the first rank's (each rank's own are in ranks[]); the times sum over ranks.
  m.idle_gaps.clear();
  m.anomalies.clear();
  m.unattributed_by_name.clear();
  m.total_s = m.busy_s = m.idle_s = m.total_time_s = m.unattributed_time_s = m.launch_bound_time_s = 0;
  m.unattributed_kernels = m.launch_bound_kernels = m.device_events = m.outside_window = m.events_read = m.bytes_read = 0;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index;
  std::map<std::string, double> unattributed;
  std::map<OpClass, ClassRow> classes;
  for (const auto& r : ranks) {
    m.total_s += r.total_s;
    m.busy_s += r.busy_s;
    m.idle_s += r.idle_s;
    m.unattributed_kernels += r.unattributed_kernels;
    m.unattributed_time_s += r.unattributed_time_s;
    m.launch_bound_kernels += r.launch_bound_kernels;
    m.launch_bound_time_s += r.launch_bound_time_s;
    m.device_events += r.device_events;
    m.outside_window += r.outside_window;
    m.events_read += r.events_read;
    m.bytes_read += r.bytes_read;
    m.cpu_only = m.cpu_only && r.cpu_only;
    for (const auto& [kind, an] : r.anomalies) {
      Anomaly& x = m.anomalies[kind];
      if (x.count == 0) x.first = fmt::format("{}: {}", r.file, an.first);
      x.count += an.count;
    }
    for (const auto& [name, t] : r.unattributed_by_name) unattributed[name] += t;
    m.idle_gaps.insert(m.idle_gaps.end(), r.idle_gaps.begin(), r.idle_gaps.end());  // from each rank's window start
    for (const auto& op : r.ops) {
      auto [it, inserted] = index.emplace(std::tuple(op.name, op.input_dims, op.input_types), m.ops.size());
      if (inserted) {
        m.ops.push_back(op);
        continue;
      }
      OpRow& x = m.ops[it->second];
      x.calls += op.calls;
      x.device_time_s += op.device_time_s;
      x.self_cpu_time_s += op.self_cpu_time_s;
      x.kernel_launches += op.kernel_launches;
      if (x.roof_time_s && op.roof_time_s) *x.roof_time_s += *op.roof_time_s;
      for (const auto& k : op.kernels)
        if (std::find(x.kernels.begin(), x.kernels.end(), k) == x.kernels.end()) x.kernels.push_back(k);
    }
    for (const auto& c : r.classes) {
      ClassRow& x = classes[c.op_class];
      x.op_class = c.op_class;
      x.flops += c.flops;
      x.bytes += c.bytes;
      x.time_s += c.time_s;
      x.known_time_s += c.known_time_s;
      x.roof_time_s += c.roof_time_s;
    }
  }
  double known_time = 0;
  for (auto& op : m.ops) {
    if (op.roof_time_s && op.time_s() > 0) op.fraction_of_roof = *op.roof_time_s / op.time_s();
    if (op.cost.flops && op.cost.bytes) known_time += op.time_s();
    if (op.cost.message_bytes && op.device_time_s > 0) {
      op.algbw_bytes_per_s = *op.cost.message_bytes * op.calls / op.device_time_s;
      if (op.cost.bus_factor) op.busbw_bytes_per_s = *op.algbw_bytes_per_s * *op.cost.bus_factor;
    }
  }
  std::sort(m.ops.begin(), m.ops.end(), [](const OpRow& x, const OpRow& y) {
    if (x.time_s() != y.time_s()) return x.time_s() > y.time_s();
    return std::tie(x.name, x.input_dims, x.input_types) < std::tie(y.name, y.input_dims, y.input_types);
  });
  double flops = 0, bytes = 0;
  for (auto& [c, row] : classes) flops += row.flops, bytes += row.bytes, m.total_time_s += row.time_s;
  for (auto& [c, row] : classes) {
    row.flop_share = flops > 0 ? row.flops / flops : 0;
    row.byte_share = bytes > 0 ? row.bytes / bytes : 0;
    row.time_share = m.total_time_s > 0 ? row.time_s / m.total_time_s : 0;
    row.fraction_of_roof.reset();
    if (row.known_time_s > 0) row.fraction_of_roof = row.roof_time_s / row.known_time_s;
    m.classes.push_back(row);
  }
  m.known_cost_time_share = m.total_time_s > 0 ? known_time / m.total_time_s : 0;
  for (const auto& [name, t] : unattributed) m.unattributed_by_name.emplace_back(name, t);
  std::sort(m.idle_gaps.begin(), m.idle_gaps.end(), [](const Gap& x, const Gap& y) { return x.duration_s > y.duration_s; });
  if (m.idle_gaps.size() > 20) m.idle_gaps.resize(20);
  std::sort(m.unattributed_by_name.begin(), m.unattributed_by_name.end(),
            [](const auto& x, const auto& y) { return x.second > y.second; });
  return m;
}

nlohmann::json to_json(const TraceAnalysis& a, const std::vector<TraceAnalysis>& ranks) {
  using nlohmann::json;
  json doc;
  doc["schema"] = "lmroof.trace/1";
  json files = json::array();
  for (const auto& r : ranks) files.push_back(r.file);
  doc["files"] = files;
  json device;
  device["name"] = a.roofs.name;
  device["source"] = a.roofs.source.empty() ? json(nullptr) : json(a.roofs.source);
  if (a.roofs.device) {
    const auto& d = *a.roofs.device;
    device["table_name"] = d.name;
    device["bandwidth_bytes_per_s"] = d.bandwidth_bytes_per_s;
    json peaks = json::object();
    for (const auto& [dtype, p] : d.dense_peak_flops) peaks[dtype] = p;
    device["peak_flops"] = peaks;
    device["launch_s"] = d.launch_s;
    device["launch_source"] = d.launch_source;
    device["datasheet"] = d.source;
  } else {
    device["table_name"] = nullptr;
    device["why_unknown"] = a.roofs.why_unknown;
  }
  doc["device"] = device;
  json window;
  window["kind"] = a.window_kind;
  json steps = json::array();
  for (const auto& s : a.steps)
    steps.push_back({{"number", s.number},
                     {"start_s", (s.start_us - a.window_start_us) * 1e-6},
                     {"duration_s", (s.end_us - s.start_us) * 1e-6},
                     {"busy_s", s.busy_s},
                     {"idle_s", s.idle_s}});
  window["steps"] = steps;
  window["step_count"] = a.steps.size();
  window["total_s"] = a.total_s;
  window["busy_s"] = a.busy_s;
  window["idle_s"] = a.idle_s;
  window["outside_window_device_events"] = a.outside_window;
  doc["window"] = window;
  doc["cpu_only"] = a.cpu_only;
  doc["time_basis"] = a.cpu_only ? "self_cpu" : "device";
  doc["total_time_s"] = a.total_time_s;
  json ops = json::array();
  for (const auto& op : a.ops) {
    json o;
    o["name"] = op.name;
    o["input_dims"] = op.input_dims;
    o["input_types"] = op.input_types;
    o["calls"] = op.calls;
    o["class"] = std::string(to_string(op.cost.op_class));
    o["model"] = op.cost.model.empty() ? json(nullptr) : json(op.cost.model);
    o["flops"] = opt(op.cost.flops);
    o["bytes"] = opt(op.cost.bytes);
    o["device_time_s"] = op.device_time_s;
    o["self_cpu_time_s"] = op.self_cpu_time_s;
    o["time_s"] = op.time_s();
    o["kernel_launches"] = op.kernel_launches;
    o["kernels"] = op.kernels;
    o["bound"] = op.bound;
    o["peak_flops"] = opt(op.peak_flops);
    o["roof_time_s"] = opt(op.roof_time_s);
    o["time_above_roof_s"] = op.roof_time_s ? json(op.time_s() - *op.roof_time_s) : json(nullptr);
    o["fraction_of_roof"] = opt(op.fraction_of_roof);
    o["note"] = op.roof_note;
    if (op.cost.op_class == OpClass::communication) {
      o["collective"] = op.cost.collective;
      o["message_bytes"] = opt(op.cost.message_bytes);
      o["algbw_bytes_per_s"] = opt(op.algbw_bytes_per_s);
      o["busbw_bytes_per_s"] = opt(op.busbw_bytes_per_s);
    }
    ops.push_back(std::move(o));
  }
  doc["ops"] = ops;
  json classes = json::array();
  for (const auto& c : a.classes)
    classes.push_back({{"class", std::string(to_string(c.op_class))},
                       {"flops", c.flops},
                       {"bytes", c.bytes},
                       {"device_time_s", a.cpu_only ? 0.0 : c.time_s},
                       {"time_s", c.time_s},
                       {"flop_share", c.flop_share},
                       {"byte_share", c.byte_share},
                       {"time_share", c.time_share},
                       {"fraction_of_roof", opt(c.fraction_of_roof)}});
  doc["classes"] = classes;
  doc["known_cost_time_share"] = a.known_cost_time_share;
  json by_name = json::array();
  for (const auto& [name, t] : a.unattributed_by_name) by_name.push_back({{"name", name}, {"device_time_s", t}});
  doc["unattributed"] = {{"kernels", a.unattributed_kernels}, {"device_time_s", a.unattributed_time_s}, {"by_name", by_name}};
  doc["launch_bound"] = {{"threshold_s", opt(a.launch_threshold_s)},
                         {"kernels", a.launch_bound_kernels},
                         {"device_time_s", a.launch_bound_time_s},
                         {"time_share", a.total_time_s > 0 ? a.launch_bound_time_s / a.total_time_s : 0.0}};
  json gaps = json::array();
  for (const auto& g : a.idle_gaps) gaps.push_back({{"start_s", g.start_s}, {"duration_s", g.duration_s}});
  doc["idle_gaps"] = gaps;
  json anomalies = json::array();
  for (const auto& [kind, an] : a.anomalies) anomalies.push_back({{"kind", kind}, {"count", an.count}, {"first", an.first}});
  doc["anomalies"] = anomalies;
  if (ranks.size() > 1) {
    json rows = json::array();
    size_t slowest = 0;
    for (size_t i = 0; i < ranks.size(); ++i)
      if (step_time(ranks[i]) > step_time(ranks[slowest])) slowest = i;
    for (size_t i = 0; i < ranks.size(); ++i) {
      const auto& r = ranks[i];
      rows.push_back({{"rank", r.rank ? json(*r.rank) : json(static_cast<int64_t>(i))},
                      {"file", r.file},
                      {"steps", r.steps.size()},
                      {"step_time_s", step_time(r)},
                      {"total_s", r.total_s},
                      {"busy_s", r.busy_s},
                      {"idle_s", r.idle_s},
                      {"communication_share", class_share(r, OpClass::communication)},
                      {"slowest", i == slowest}});
    }
    doc["ranks"] = rows;
    doc["slowest_rank"] = rows[slowest]["rank"];
  }
  double read_cpu = 0, analysis_cpu = 0, read_wall = 0, analysis_wall = 0;
  for (const auto& r : ranks)
    read_cpu += r.read_cpu_s, analysis_cpu += r.analysis_cpu_s, read_wall += r.read_wall_s, analysis_wall += r.analysis_wall_s;
  doc["reader"] = {{"events", a.events_read},     {"json_bytes", a.bytes_read},         {"read_cpu_s", read_cpu},
                   {"analysis_cpu_s", analysis_cpu}, {"read_wall_s", read_wall}, {"analysis_wall_s", analysis_wall}};
  return doc;
}

std::string to_csv(const TraceAnalysis& a) {
  auto quote = [](const std::string& s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
  std::string out =
      "name,input_dims,input_types,class,calls,flops_per_call,bytes_per_call,device_time_s,self_cpu_time_s,kernel_launches,"
      "bound,roof_time_s,fraction_of_roof,kernels\n";
  for (const auto& op : a.ops) {
    std::string kernels;
    for (const auto& k : op.kernels) kernels += (kernels.empty() ? "" : "; ") + k;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", quote(op.name), quote(op.input_dims),
                       quote(op.input_types), to_string(op.cost.op_class), op.calls, num(op.cost.flops),
                       num(op.cost.bytes), op.device_time_s, op.self_cpu_time_s, op.kernel_launches, op.bound,
                       num(op.roof_time_s), num(op.fraction_of_roof), quote(kernels));
  }
  return out;
}

std::string to_text(const nlohmann::json& doc, bool markdown) {
  using numbers::percent;
  using numbers::si;
  std::string out;
  auto pct = [](const nlohmann::json& v) { return v.is_null() ? std::string("unknown") : percent(v.get<double>()); };
  const auto& dev = doc["device"];
  const std::string device_line =
      dev["table_name"].is_null()
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
  if (markdown) out += fmt::format("**{}**\n\n**{}**\n\n", device_line, window_line);
  else out += device_line + "\n" + window_line + "\n\n";
  // Class table
  if (markdown) out += "| class | FLOP share | byte share | time share | fraction of roof | time |\n|---|---:|---:|---:|---:|---:|\n";
  else out += fmt::format("{:<14} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "class", "FLOPs", "bytes", "time", "of roof", "time");
  for (const auto& c : doc["classes"]) {
    if (c["time_s"].get<double>() == 0 && c["flops"].get<double>() == 0) continue;
    const auto cells = std::make_tuple(c["class"].get<std::string>(), percent(c["flop_share"].get<double>()),
                                       percent(c["byte_share"].get<double>()), percent(c["time_share"].get<double>()),
                                       pct(c["fraction_of_roof"]), si(c["time_s"].get<double>(), "s"));
    if (markdown)
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", std::get<0>(cells), std::get<1>(cells), std::get<2>(cells),
                         std::get<3>(cells), std::get<4>(cells), std::get<5>(cells));
    else
      out += fmt::format("{:<14} {:>10} {:>10} {:>10} {:>10} {:>10}\n", std::get<0>(cells), std::get<1>(cells),
                         std::get<2>(cells), std::get<3>(cells), std::get<4>(cells), std::get<5>(cells));
  }
  out += "\n";
  // Top ops
  if (markdown) out += "| op | shapes | class | calls | time | at roof | above roof | bound |\n|---|---|---|---:|---:|---:|---:|---|\n";
  else out += "top ops by time (time at the roof, time above it):\n";
  int shown = 0;
  for (const auto& op : doc["ops"]) {
    if (shown++ == 10) break;
    const std::string at_roof = op["roof_time_s"].is_null() ? "unknown" : si(op["roof_time_s"].get<double>(), "s");
    const std::string above = op["time_above_roof_s"].is_null() ? "unknown" : si(op["time_above_roof_s"].get<double>(), "s");
    std::string dims = op["input_dims"].get<std::string>();
    if (dims.size() > 48) dims = dims.substr(0, 45) + "...";
    if (markdown)
      out += fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} |\n", op["name"].get<std::string>(), dims,
                         op["class"].get<std::string>(), op["calls"].get<uint64_t>(), si(op["time_s"].get<double>(), "s"),
                         at_roof, above, op["bound"].get<std::string>());
    else
      out += fmt::format("  {:<34} {:<48} {:>10} at roof {:>10} above {:>10} {}\n", op["name"].get<std::string>(), dims,
                         si(op["time_s"].get<double>(), "s"), at_roof, above, op["bound"].get<std::string>());
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
    out += markdown ? "\n| rank | step time | busy | communication |\n|---:|---:|---:|---:|\n" : "\nranks:\n";
    for (const auto& r : doc["ranks"]) {
      if (markdown)
        out += fmt::format("| {}{} | {} | {} | {} |\n", r["rank"].dump(), r["slowest"].get<bool>() ? " (slowest)" : "",
                           si(r["step_time_s"].get<double>(), "s"), si(r["busy_s"].get<double>(), "s"),
                           percent(r["communication_share"].get<double>()));
      else
        out += fmt::format("  rank {:<4} step {:>10}  busy {:>10}  communication {:>7}{}\n", r["rank"].dump(),
                           si(r["step_time_s"].get<double>(), "s"), si(r["busy_s"].get<double>(), "s"),
                           percent(r["communication_share"].get<double>()), r["slowest"].get<bool>() ? "  <- slowest" : "");
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

}  // namespace lmroof::trace
