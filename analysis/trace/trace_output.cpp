#include "analysis/trace/trace_output.h"

#include "analysis/trace/trace_schema.h"

#include "analysis/trace/fix_first.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace lmroof::trace {

namespace {

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// A rank's step time: its window over its steps; none without ProfilerStep ranges (the
// capture's length is no step time).
std::optional<double> step_time(const TraceAnalysis& a) {
  if (a.window_kind == "steps" && !a.steps.empty()) return a.total_s / static_cast<double>(a.steps.size());
  return std::nullopt;
}

int64_t rank_number(const TraceAnalysis& r, size_t i) { return r.rank ? *r.rank : static_cast<int64_t>(i); }

// "A (ranks 0, 2), B (rank 1)": each distinct value of `of` with the ranks that have it.
template <typename Of>
std::string ranks_by(const std::vector<TraceAnalysis>& ranks, Of of) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> groups;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const std::string value = of(ranks[i]);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == value; });
    if (it == groups.end()) it = groups.insert(groups.end(), {value, {}});
    it->second.push_back(rank_number(ranks[i], i));
  }
  std::string out;
  for (const auto& [value, numbers] : groups)
    out += fmt::format("{}{} (rank{} {})", out.empty() ? "" : ", ", value, numbers.size() > 1 ? "s" : "", fmt::join(numbers, ", "));
  return out;
}

template <typename Of>
bool differ(const std::vector<TraceAnalysis>& ranks, Of of) {
  for (const auto& r : ranks)
    if (of(r) != of(ranks.front())) return true;
  return false;
}

std::string trace_device(const TraceAnalysis& r) { return r.roofs.trace_name.empty() ? "no device named" : r.roofs.trace_name; }
std::string world_size_text(const TraceAnalysis& r) {
  return r.world_size ? fmt::format("world size {}", *r.world_size) : std::string("no world size");
}

// One row of a class table; the same fields for lmroof's classes and Ivanov's groups.
nlohmann::json class_row(std::string_view name, const ClassRow& c, bool cpu_only) {
  return {{"class", std::string(name)},
          {"flops", c.flops},
          {"bytes", c.bytes},
          {"device_time_s", cpu_only ? 0.0 : c.time_s},
          {"time_s", c.time_s},
          {"flop_share", c.flop_share},
          {"byte_share", c.byte_share},
          {"time_share", c.time_share},
          {"fraction_of_roof", opt(c.fraction_of_roof)}};
}

// The window's communication time and its exposed part (null on a CPU-only trace).
nlohmann::json communication_json(const TraceAnalysis& a) {
  const auto share = a.communication_s && a.exposed_communication_s
                         ? finite_ratio(*a.exposed_communication_s, *a.communication_s)
                         : std::nullopt;
  return {{"time_s", opt(a.communication_s)}, {"exposed_s", opt(a.exposed_communication_s)}, {"exposed_share", opt(share)}};
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
  // Ranks judged on different roofs: each rank's rows keep the device they were judged on
  // (one row per device), and the summed document names no single device.
  const bool per_rank_roofs = differ(ranks, [](const TraceAnalysis& r) { return r.roofs.label(); });
  if (per_rank_roofs) {
    m.roofs = Roofs{};
    m.roofs.name = ranks_by(ranks, [](const TraceAnalysis& r) { return r.roofs.label().empty() ? std::string("unknown") : r.roofs.label(); });
    m.roofs.source = "per_rank";
    m.roofs.why_unknown = "the ranks run on different devices: each rank's ops are judged on its own device's roofs "
                          "(ranks[].roofs, ops[].device)";
  }
  // window.steps: the first rank's (each rank's own are in ranks[]); the times sum over ranks.
  m.idle_gaps.clear();
  m.anomalies.clear();
  m.total_s = m.busy_s = m.idle_s = m.unattributed_time_s = m.launch_bound_time_s = 0;
  m.idle_host_bound_s = m.idle_other_s = 0;
  m.communication_s.reset();
  m.exposed_communication_s.reset();
  m.unattributed_kernels = m.launch_bound_kernels = m.device_events = m.outside_window = m.events_read = m.bytes_read = 0;
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string, OpClass, bool, std::string>, size_t> index;
  std::map<std::string, double> unattributed;
  std::map<std::string, uint64_t> module_instances;
  for (const auto& r : ranks) {
    m.total_s += r.total_s;
    m.busy_s += r.busy_s;
    m.idle_s += r.idle_s;
    m.idle_host_bound_s += r.idle_host_bound_s;
    m.idle_other_s += r.idle_other_s;
    if (r.communication_s) m.communication_s = m.communication_s.value_or(0) + *r.communication_s;
    if (r.exposed_communication_s)
      m.exposed_communication_s = m.exposed_communication_s.value_or(0) + *r.exposed_communication_s;
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
    for (const auto& [type, n] : r.module_instances) module_instances[type] += n;
    m.idle_gaps.insert(m.idle_gaps.end(), r.idle_gaps.begin(), r.idle_gaps.end());  // from each rank's window start
    for (const auto& rank_op : r.ops) {
      OpRow op = rank_op;
      if (per_rank_roofs) op.device = r.roofs.label();
      auto [it, inserted] = index.emplace(
          std::tuple(op.name, op.input_dims, op.input_types, op.input_strides, op.module, op.cost.op_class, op.softmax, op.device),
          m.ops.size());
      if (inserted) {
        m.ops.push_back(std::move(op));
        continue;
      }
      OpRow& x = m.ops[it->second];
      x.calls += op.calls;
      x.device_time_s += op.device_time_s;
      x.self_cpu_time_s += op.self_cpu_time_s;
      x.kernel_launches += op.kernel_launches;
      if (x.fastest_call_s && op.fastest_call_s) x.fastest_call_s = std::min(*x.fastest_call_s, *op.fastest_call_s);
      if (x.slowest_call_s && op.slowest_call_s) x.slowest_call_s = std::max(*x.slowest_call_s, *op.slowest_call_s);
      if (x.roof_time_s && op.roof_time_s) *x.roof_time_s += *op.roof_time_s;
      for (const auto& k : op.kernels)
        if (std::find(x.kernels.begin(), x.kernels.end(), k) == x.kernels.end()) x.kernels.push_back(k);
    }
  }
  for (auto& op : m.ops) set_rates(op);
  std::sort(m.ops.begin(), m.ops.end(), op_row_order);
  m.module_instances = module_instances;
  summarize(m, std::vector<std::pair<std::string, double>>(unattributed.begin(), unattributed.end()));
  std::sort(m.idle_gaps.begin(), m.idle_gaps.end(), [](const Gap& x, const Gap& y) { return x.duration_s > y.duration_s; });
  if (m.idle_gaps.size() > 20) m.idle_gaps.resize(20);
  return m;
}

std::vector<RankWarning> rank_warnings(const std::vector<TraceAnalysis>& ranks) {
  std::vector<RankWarning> out;
  if (ranks.size() < 2) return out;
  if (differ(ranks, trace_device) || differ(ranks, [](const TraceAnalysis& r) { return r.roofs.label(); })) {
    const bool per_rank = differ(ranks, [](const TraceAnalysis& r) { return r.roofs.label(); });
    out.push_back({"mixed_devices",
                   fmt::format("the ranks ran on different devices: {}; {}", ranks_by(ranks, trace_device),
                               per_rank ? "each rank is judged on its own device's roofs, and an op shape has a row per device"
                                        : fmt::format("all are judged on {} as asked", ranks.front().roofs.label()))});
  }
  if (differ(ranks, world_size_text))
    out.push_back({"mixed_world_sizes",
                   fmt::format("the ranks report different world sizes: {}; the files may come from different runs",
                               ranks_by(ranks, world_size_text))});
  return out;
}

nlohmann::json to_json(const TraceAnalysis& a, const std::vector<TraceAnalysis>& ranks) {
  using nlohmann::json;
  json doc;
  doc["schema"] = kTraceSchema;
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
                     {"idle_s", s.idle_s},
                     {"host_bound", s.host_bound()}});
  window["steps"] = steps;
  window["step_count"] = a.steps.size();
  window["total_s"] = a.total_s;
  window["busy_s"] = a.busy_s;
  window["idle_s"] = a.idle_s;
  window["step_source"] = a.step_source.empty() ? json(nullptr) : json(a.step_source);
  window["idle_host_bound_s"] = a.idle_host_bound_s;
  window["idle_other_s"] = a.idle_other_s;
  window["host_bound_steps"] = std::count_if(a.steps.begin(), a.steps.end(), [](const StepWindow& s) { return s.host_bound(); });
  window["outside_window_device_events"] = a.outside_window;
  doc["window"] = window;
  doc["communication"] = communication_json(a);
  doc["cpu_only"] = a.cpu_only;
  doc["time_basis"] = a.cpu_only ? "self_cpu" : "device";
  doc["total_time_s"] = a.total_time_s;
  json ops = json::array();
  for (const auto& op : a.ops) {
    json o;
    o["name"] = op.name;
    o["input_dims"] = shapes_json(op.input_dims);
    o["input_types"] = shapes_json(op.input_types);
    o["input_strides"] = op.input_strides.empty() ? json(nullptr) : json(op.input_strides);
    if (op.fastest_call_s && op.slowest_call_s) o["call_time_range_s"] = {*op.fastest_call_s, *op.slowest_call_s};
    o["calls"] = op.calls;
    o["module"] = op.module.empty() ? json(nullptr) : json(op.module);
    if (!op.device.empty()) o["device"] = op.device;
    o["class"] = std::string(to_string(op.cost.op_class));
    o["class_source"] = op.class_source;
    o["ivanov_class"] = std::string(to_string(ivanov_class(op.cost.op_class, op.softmax)));
    if (op.pseudo_op) o["pseudo_op"] = true;
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
  for (const auto& c : a.classes) classes.push_back(class_row(to_string(c.op_class), c, a.cpu_only));
  doc["classes"] = classes;
  json groups = json::array();
  for (const auto& g : a.ivanov_classes) groups.push_back(class_row(to_string(g.group), g.totals, a.cpu_only));
  doc["ivanov_classes"] = groups;
  json modules = json::array();
  for (const auto& m : a.modules)
    modules.push_back({{"type", m.type},
                       {"class", m.gives_class ? json(std::string(to_string(m.module_class))) : json(nullptr)},
                       {"time_s", m.time_s},
                       {"time_share", m.time_share},
                       {"flops", m.flops},
                       {"bytes", m.bytes},
                       {"kernels", m.kernels},
                       {"fraction_of_roof", opt(m.fraction_of_roof)}});
  doc["modules"] = modules;
  json other_names = json::array();
  double other_time = 0;
  for (const auto& c : a.classes)
    if (c.op_class == OpClass::other) other_time = c.time_s;
  for (const auto& [name, t] : a.other_by_name) other_names.push_back({{"name", name}, {"time_s", t}});
  doc["other"] = {{"time_s", other_time},
                  {"time_share", a.total_time_s > 0 ? other_time / a.total_time_s : 0.0},
                  {"by_name", other_names}};
  json fixes = json::array();
  for (const auto& f : fix_first(a))
    fixes.push_back({{"kind", f.kind},
                     {"target", f.target},
                     {"current_s", f.current_s},
                     {"estimate_s", f.estimate_s},
                     {"saving_s", f.saving_s},
                     {"assumption", f.assumption}});
  doc["fix_first"] = fixes;
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
    // The slowest rank by its step time; a rank without steps has none and is never named.
    std::optional<size_t> slowest;
    for (size_t i = 0; i < ranks.size(); ++i)
      if (const auto t = step_time(ranks[i]); t && (!slowest || *t > *step_time(ranks[*slowest]))) slowest = i;
    for (size_t i = 0; i < ranks.size(); ++i) {
      const auto& r = ranks[i];
      rows.push_back({{"rank", rank_number(r, i)},
                      {"file", r.file},
                      {"device", r.roofs.trace_name.empty() ? json(nullptr) : json(r.roofs.trace_name)},
                      {"roofs", r.roofs.device ? json(r.roofs.device->name) : json(nullptr)},
                      {"world_size", r.world_size ? json(*r.world_size) : json(nullptr)},
                      {"steps", r.steps.size()},
                      {"step_time_s", opt(step_time(r))},
                      {"total_s", r.total_s},
                      {"busy_s", r.busy_s},
                      {"idle_s", r.idle_s},
                      {"communication_share", class_share(r, OpClass::communication)},
                      {"communication", communication_json(r)},
                      {"slowest", slowest == i}});
    }
    doc["ranks"] = rows;
    doc["slowest_rank"] = slowest ? rows[*slowest]["rank"] : json(nullptr);
    json warnings = json::array();
    for (const auto& w : rank_warnings(ranks)) warnings.push_back({{"kind", w.kind}, {"message", w.message}});
    doc["rank_warnings"] = warnings;
  }
  double read_cpu = 0, analysis_cpu = 0, read_wall = 0, analysis_wall = 0;
  for (const auto& r : ranks)
    read_cpu += r.read_cpu_s, analysis_cpu += r.analysis_cpu_s, read_wall += r.read_wall_s, analysis_wall += r.analysis_wall_s;
  doc["reader"] = {{"events", a.events_read},     {"json_bytes", a.bytes_read},         {"read_cpu_s", read_cpu},
                   {"analysis_cpu_s", analysis_cpu}, {"read_wall_s", read_wall}, {"analysis_wall_s", analysis_wall}};
  return doc;
}

std::string to_csv(const TraceAnalysis& a, const std::vector<std::pair<std::string, std::vector<std::string>>>& extra_columns) {
  auto quote = [](const std::string& s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
  std::string out =
      "name,input_dims,input_types,input_strides,module,device,class,calls,flops_per_call,bytes_per_call,device_time_s,self_cpu_time_s,kernel_launches,"
      "bound,roof_time_s,fraction_of_roof,kernels";
  // Appended piece by piece: `"," + std::string` made GCC 12 warn falsely (bug 105329).
  for (const auto& [header, values] : extra_columns) {
    out += ',';
    out += quote(header);
  }
  out += "\n";
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const OpRow& op = a.ops[i];
    std::string kernels;
    for (const auto& k : op.kernels) kernels += (kernels.empty() ? "" : "; ") + k;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", quote(op.name), quote(op.input_dims),
                       quote(op.input_types), quote(op.input_strides), quote(op.module), quote(op.device), to_string(op.cost.op_class), op.calls, num(op.cost.flops),
                       num(op.cost.bytes), op.device_time_s, op.self_cpu_time_s, op.kernel_launches, op.bound,
                       num(op.roof_time_s), num(op.fraction_of_roof), quote(kernels));
    for (const auto& [header, values] : extra_columns) {
      out += ',';
      if (i < values.size()) out += values[i];
    }
    out += "\n";
  }
  return out;
}

}  // namespace lmroof::trace
