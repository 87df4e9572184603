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
model::TraceClassRow class_row(std::string_view name, const ClassRow& c, bool cpu_only) {
  return {std::string(name), c.flops, c.bytes, cpu_only ? 0.0 : c.time_s, c.time_s, c.flop_share, c.byte_share, c.time_share,
          c.fraction_of_roof};
}

// The window's communication time and its exposed part (null on a CPU-only trace).
model::TraceCommunication communication_of(const TraceAnalysis& a) {
  const auto share = a.communication_s && a.exposed_communication_s
                         ? finite_ratio(*a.exposed_communication_s, *a.communication_s)
                         : std::nullopt;
  return {a.communication_s, a.exposed_communication_s, share};
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

model::TraceResult to_trace_result(const TraceAnalysis& a, const std::vector<TraceAnalysis>& ranks) {
  model::TraceResult t;
  t.schema = kTraceSchema;
  for (const auto& r : ranks) t.files.push_back(r.file);
  model::TraceDevice& device = t.device;
  device.name = a.roofs.name;
  if (!a.roofs.source.empty()) device.source = a.roofs.source;
  if (a.roofs.device) {
    const auto& d = *a.roofs.device;
    device.table_name = d.name;
    device.bandwidth_bytes_per_s = d.bandwidth_bytes_per_s;
    device.peak_flops.emplace(d.dense_peak_flops.begin(), d.dense_peak_flops.end());
    device.launch_s = d.launch_s;
    device.launch_source = d.launch_source;
    device.datasheet = d.source;
  } else {
    device.why_unknown = a.roofs.why_unknown;
  }
  // A CPU-only trace has no device to sit idle: no step is host-bound (its ops' self
  // times are the work), however little of the step they fill.
  model::TraceWindow& window = t.window;
  window.kind = a.window_kind;
  for (const auto& s : a.steps)
    window.steps.push_back({s.number, (s.start_us - a.window_start_us) * 1e-6, (s.end_us - s.start_us) * 1e-6, s.busy_s,
                            s.idle_s, !a.cpu_only && s.host_bound()});
  window.step_count = a.steps.size();
  window.total_s = a.total_s;
  window.busy_s = a.busy_s;
  window.idle_s = a.idle_s;
  if (!a.step_source.empty()) window.step_source = a.step_source;
  window.idle_host_bound_s = a.idle_host_bound_s;
  window.idle_other_s = a.idle_other_s;
  window.host_bound_steps = static_cast<uint64_t>(std::count_if(a.steps.begin(), a.steps.end(), [&](const StepWindow& s) { return !a.cpu_only && s.host_bound(); }));
  window.outside_window_device_events = a.outside_window;
  t.communication = communication_of(a);
  t.cpu_only = a.cpu_only;
  t.time_basis = a.cpu_only ? "self_cpu" : "device";
  t.total_time_s = a.total_time_s;
  for (const auto& op : a.ops) {
    model::TraceOpRow o;
    o.name = op.name;
    o.input_dims = shapes_json(op.input_dims);
    o.input_types = shapes_json(op.input_types);
    if (!op.input_strides.empty()) o.input_strides = op.input_strides;
    if (op.fastest_call_s && op.slowest_call_s) o.call_time_range_s = std::vector<double>{*op.fastest_call_s, *op.slowest_call_s};
    o.calls = op.calls;
    if (!op.module.empty()) o.module = op.module;
    if (!op.device.empty()) o.device = op.device;
    o.op_class = std::string(to_string(op.cost.op_class));
    o.class_source = op.class_source;
    o.ivanov_class = std::string(to_string(ivanov_class(op.cost.op_class, op.softmax)));
    if (op.pseudo_op) o.pseudo_op = true;
    if (!op.cost.model.empty()) o.model = op.cost.model;
    o.flops = op.cost.flops;
    o.bytes = op.cost.bytes;
    o.device_time_s = op.device_time_s;
    o.self_cpu_time_s = op.self_cpu_time_s;
    o.time_s = op.time_s();
    o.kernel_launches = op.kernel_launches;
    o.kernels = op.kernels;
    o.bound = op.bound;
    o.peak_flops = op.peak_flops;
    o.roof_time_s = op.roof_time_s;
    if (op.roof_time_s) o.time_above_roof_s = op.time_s() - *op.roof_time_s;
    o.fraction_of_roof = op.fraction_of_roof;
    o.note = op.roof_note;
    if (op.cost.op_class == OpClass::communication) {
      o.collective = op.cost.collective;
      o.message_bytes = op.cost.message_bytes;
      o.algbw_bytes_per_s = op.algbw_bytes_per_s;
      o.busbw_bytes_per_s = op.busbw_bytes_per_s;
    }
    t.ops.push_back(std::move(o));
  }
  for (const auto& c : a.classes) t.classes.push_back(class_row(to_string(c.op_class), c, a.cpu_only));
  t.ivanov_classes.emplace();
  for (const auto& g : a.ivanov_classes) t.ivanov_classes->push_back(class_row(to_string(g.group), g.totals, a.cpu_only));
  for (const auto& m : a.modules) {
    model::TraceModuleRow row;
    row.type = m.type;
    if (m.gives_class) row.op_class = std::string(to_string(m.module_class));
    row.time_s = m.time_s;
    row.time_share = m.time_share;
    row.flops = m.flops;
    row.bytes = m.bytes;
    row.kernels = m.kernels;
    row.fraction_of_roof = m.fraction_of_roof;
    t.modules.push_back(std::move(row));
  }
  for (const auto& c : a.classes)
    if (c.op_class == OpClass::other) t.other.time_s = c.time_s;
  t.other.time_share = a.total_time_s > 0 ? t.other.time_s / a.total_time_s : 0.0;
  for (const auto& [name, time] : a.other_by_name) t.other.by_name.push_back({name, time});
  for (const auto& f : fix_first(a)) t.fix_first.push_back({f.kind, f.target, f.current_s, f.estimate_s, f.saving_s, f.assumption});
  t.known_cost_time_share = a.known_cost_time_share;
  t.unattributed.kernels = a.unattributed_kernels;
  t.unattributed.device_time_s = a.unattributed_time_s;
  for (const auto& [name, time] : a.unattributed_by_name) t.unattributed.by_name.push_back({name, time});
  t.launch_bound.threshold_s = a.launch_threshold_s;
  t.launch_bound.kernels = a.launch_bound_kernels;
  t.launch_bound.device_time_s = a.launch_bound_time_s;
  t.launch_bound.time_share = a.total_time_s > 0 ? a.launch_bound_time_s / a.total_time_s : 0.0;
  for (const auto& g : a.idle_gaps) t.idle_gaps.push_back({g.start_s, g.duration_s});
  for (const auto& [kind, an] : a.anomalies) t.anomalies.push_back({kind, an.count, an.first});
  if (ranks.size() > 1) {
    t.ranks.emplace();
    // The slowest rank by its step time; a rank without steps has none and is never named.
    std::optional<size_t> slowest;
    for (size_t i = 0; i < ranks.size(); ++i)
      if (const auto time = step_time(ranks[i]); time && (!slowest || *time > *step_time(ranks[*slowest]))) slowest = i;
    for (size_t i = 0; i < ranks.size(); ++i) {
      const auto& r = ranks[i];
      model::TraceRankRow row;
      row.rank = rank_number(r, i);
      row.file = r.file;
      if (!r.roofs.trace_name.empty()) row.device = r.roofs.trace_name;
      if (r.roofs.device) row.roofs = r.roofs.device->name;
      row.world_size = r.world_size;
      row.steps = r.steps.size();
      row.step_time_s = step_time(r);
      row.total_s = r.total_s;
      row.busy_s = r.busy_s;
      row.idle_s = r.idle_s;
      row.communication_share = class_share(r, OpClass::communication);
      row.communication = communication_of(r);
      row.slowest = slowest == i;
      t.ranks->push_back(std::move(row));
    }
    t.slowest_rank.emplace();
    if (slowest) *t.slowest_rank = (*t.ranks)[*slowest].rank;
    t.rank_warnings.emplace();
    for (const auto& w : rank_warnings(ranks)) t.rank_warnings->push_back({w.kind, w.message});
  }
  for (const auto& r : ranks) {
    t.reader.read_cpu_s += r.read_cpu_s;
    t.reader.analysis_cpu_s += r.analysis_cpu_s;
    t.reader.read_wall_s += r.read_wall_s;
    t.reader.analysis_wall_s += r.analysis_wall_s;
  }
  t.reader.events = a.events_read;
  t.reader.json_bytes = a.bytes_read;
  return t;
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
