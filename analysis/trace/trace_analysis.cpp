#include "analysis/trace/trace_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cctype>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analysis/model/input_error.h"

namespace lmroof::trace {

double OpRow::time_s() const { return device_time_s > 0 ? device_time_s : self_cpu_time_s; }

namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_device(Category c) { return c == Category::kernel || c == Category::gpu_memcpy || c == Category::gpu_memset; }

std::optional<int64_t> step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  int64_t n = 0;
  if (name.empty()) return std::nullopt;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// Union of [start, end) intervals (µs) clipped to [lo, hi): busy µs and the gaps.
struct Union {
  double busy_us = 0;
  std::vector<std::pair<double, double>> merged;
};
Union interval_union(std::vector<std::pair<double, double>> spans, double lo, double hi) {
  Union u;
  for (auto& s : spans) s = {std::max(s.first, lo), std::min(s.second, hi)};
  std::sort(spans.begin(), spans.end());
  for (const auto& s : spans) {
    if (s.second <= s.first) continue;
    if (!u.merged.empty() && s.first <= u.merged.back().second) u.merged.back().second = std::max(u.merged.back().second, s.second);
    else u.merged.push_back(s);
  }
  for (const auto& m : u.merged) u.busy_us += m.second - m.first;
  return u;
}

}  // namespace

// The peak an op is judged at, and what was assumed to pick it.
std::optional<double> peak_for(const predict::Device& d, const OpCost& cost, std::string& note) {
  auto at = [&](const std::string& dtype) -> std::optional<double> {
    const auto it = d.dense_peak_flops.find(dtype);
    if (it == d.dense_peak_flops.end()) return std::nullopt;
    return it->second;
  };
  if (cost.unit == Unit::vector) {
    // Vector work at the non-tensor fp32 peak whatever its dtype (a bf16 add does not
    // use tensor cores); these ops are memory-bound by far on every listed part.
    if (auto p = at("fp32")) return p;
    note = "the device has no fp32 (vector) peak";
    return std::nullopt;
  }
  if (cost.unit == Unit::tensor) {
    if (cost.dtype == "fp32") {
      if (d.architecture == "measured") return at("fp32");
      if (auto bf16 = at("bf16")) {
        note = "fp32 matmul assumed on TF32 tensor cores (half the bf16 peak)";
        return *bf16 / 2;
      }
      return at("fp32");
    }
    if (d.architecture == "measured") {
      if (auto p = at(cost.dtype)) return p;
      return at("fp32");
    }
    if (auto p = at(cost.dtype)) return p;
    note = fmt::format("no {} peak for {}", cost.dtype.empty() ? "dtype" : cost.dtype, d.name);
    return std::nullopt;
  }
  note = "no peak for this unit";
  return std::nullopt;
}

namespace {

struct OpKey {
  uint32_t name, dims, types;
  bool operator==(const OpKey&) const = default;
};
struct OpKeyHash {
  size_t operator()(const OpKey& k) const {
    return (size_t(k.name) * 0x9E3779B97F4A7C15ull) ^ (size_t(k.dims) * 0xC2B2AE3D27D4EB4Full) ^ k.types;
  }
};

}  // namespace

std::optional<std::string> match_device_name(std::string_view trace_name, const std::vector<predict::Device>& table) {
  const std::string n = lower(trace_name);
  for (const auto& d : table)
    if (lower(d.name) == n) return d.name;
  struct Rule {
    std::vector<std::string_view> all;
    std::vector<std::string_view> none;
    std::string_view table_name;
  };
  static const std::vector<Rule> kRules = {
      {{"h100", "pcie"}, {}, "H100 PCIe"},
      {{"h100"}, {"nvl", "pcie"}, "H100 SXM"},
      {{"h200"}, {"nvl"}, "H200 SXM"},
      {{"a100", "40gb"}, {}, "A100 40GB"},
      {{"a100", "80gb"}, {"pcie"}, "A100 80GB SXM"},
      {{"v100"}, {}, "V100 SXM2"},
      {{"b200"}, {}, "B200"},
      {{"mi300x"}, {}, "MI300X"},
      {{"mi250x"}, {}, "MI250X"},
      {{"l40s"}, {}, "L40S"},
      {{"4090"}, {"laptop"}, "RTX 4090"},
  };
  for (const auto& rule : kRules) {
    bool ok = true;
    for (auto s : rule.all) ok = ok && n.find(s) != std::string::npos;
    for (auto s : rule.none) ok = ok && n.find(s) == std::string::npos;
    if (!ok) continue;
    for (const auto& d : table)
      if (d.name == rule.table_name) return d.name;
  }
  return std::nullopt;
}

Roofs resolve_roofs(const TraceFile& trace, const std::vector<predict::Device>& table, const std::string& device_flag,
                    const std::optional<predict::Device>& measured) {
  Roofs r;
  if (measured) {
    r.name = measured->name;
    r.source = "measured";
    r.device = measured;
    return r;
  }
  if (!device_flag.empty()) {
    const auto name = match_device_name(device_flag, table);
    if (!name) {
      std::string known;
      for (const auto& d : table) known += (known.empty() ? "" : ", ") + d.name;
      throw model::InputError(fmt::format("--device: \"{}\" is not in the device table ({})", device_flag, known));
    }
    for (const auto& d : table)
      if (d.name == *name) r.device = d;
    r.name = *name;
    r.source = "flag";
    return r;
  }
  std::string trace_name;
  for (const auto& p : trace.devices)
    if (!p.name.empty()) {
      trace_name = p.name;
      break;
    }
  r.name = trace_name;
  if (trace_name.empty()) {
    r.why_unknown = "the trace names no device (no deviceProperties) and neither --device nor --ceilings was given";
    return r;
  }
  const auto name = match_device_name(trace_name, table);
  if (!name) {
    r.why_unknown = fmt::format("\"{}\" is not in the device table (analysis/predict/devices.json); give --device NAME "
                                "or --ceilings RESULTS.json",
                                trace_name);
    return r;
  }
  for (const auto& d : table)
    if (d.name == *name) r.device = d;
  r.source = "trace";
  return r;
}

TraceAnalysis analyze(const TraceFile& trace, const Roofs& roofs, const AnalysisOptions& options) {
  TraceAnalysis a;
  a.file = trace.path;
  a.roofs = roofs;
  a.anomalies = trace.anomalies;
  a.rank = trace.rank;
  a.world_size = trace.world_size;
  for (const auto& p : trace.devices)
    if (p.num_sms && !a.sm_count) a.sm_count = p.num_sms;
  a.events_read = trace.event_count;
  a.bytes_read = trace.bytes_read;
  auto note = [&](const std::string& kind, const std::string& where) {
    Anomaly& an = a.anomalies[kind];
    if (an.count++ == 0) an.first = where;
  };
  const auto& ev = trace.events;
  const auto& S = trace.strings;

  // Partition, dropping exact duplicates (same category, name, times, thread and ids).
  std::vector<uint32_t> ops, launches, device, gpu_steps, host_steps;
  {
    std::vector<uint32_t> order(ev.size());
    for (uint32_t i = 0; i < ev.size(); ++i) order[i] = i;
    auto key = [&](uint32_t i) {
      const auto& e = ev[i];
      return std::tuple(e.category, e.ts_us, e.dur_us, e.pid, e.tid, e.name, e.correlation, e.external_id, e.input_dims);
    };
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return key(x) < key(y); });
    for (size_t k = 0; k < order.size(); ++k) {
      const uint32_t i = order[k];
      if (k > 0 && key(order[k - 1]) == key(i)) {
        note("duplicate events (counted once)", fmt::format("traceEvents[{}]", ev[i].index));
        continue;
      }
      switch (ev[i].category) {
        case Category::cpu_op: ops.push_back(i); break;
        case Category::runtime: launches.push_back(i); break;
        case Category::kernel:
        case Category::gpu_memcpy:
        case Category::gpu_memset: device.push_back(i); break;
        case Category::gpu_user_annotation:
          if (step_number(S.at(ev[i].name))) gpu_steps.push_back(i);
          break;
        case Category::user_annotation:
          if (step_number(S.at(ev[i].name))) host_steps.push_back(i);
          break;
        case Category::flow: break;  // kept apart (trace.flows)
      }
    }
  }
  a.cpu_only = device.empty();
  a.device_events = device.size();

  // Host nesting per thread: parent op, self time, the op enclosing each launch.
  std::vector<uint32_t> host(ops);
  host.insert(host.end(), launches.begin(), launches.end());
  std::sort(host.begin(), host.end(), [&](uint32_t x, uint32_t y) {
    const auto& p = ev[x];
    const auto& q = ev[y];
    if (p.pid != q.pid) return p.pid < q.pid;
    if (p.tid != q.tid) return p.tid < q.tid;
    if (p.ts_us != q.ts_us) return p.ts_us < q.ts_us;
    if (p.dur_us != q.dur_us) return p.dur_us > q.dur_us;  // the enclosing one first
    return p.category < q.category;                        // an op before a launch at the same time
  });
  // Compact tables (a multi-GB trace holds millions of ops): per op ordinal (its place
  // in `ops`, sorted by event index) and sorted (id, op) vectors searched by halving.
  std::sort(ops.begin(), ops.end());
  auto ordinal = [&](uint32_t op) { return static_cast<size_t>(std::lower_bound(ops.begin(), ops.end(), op) - ops.begin()); };
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<double> child_time(ops.size(), 0.0);      // time of its directly nested ops
  std::vector<uint32_t> parent_of(ops.size(), kNone);   // the enclosing op (event index)
  std::vector<std::pair<uint64_t, uint32_t>> op_of_correlation;  // launch correlation -> innermost op
  std::vector<uint64_t> launch_correlations;
  {
    std::vector<uint32_t> stack;
    int32_t pid = 0, tid = 0;
    for (uint32_t i : host) {
      const auto& e = ev[i];
      if (stack.empty() || e.pid != pid || e.tid != tid) stack.clear(), pid = e.pid, tid = e.tid;
      while (!stack.empty() && ev[stack.back()].end_us() <= e.ts_us) stack.pop_back();
      // An op that starts inside the top but ends after it overlaps without nesting.
      while (!stack.empty() && e.end_us() > ev[stack.back()].end_us() + 1e-6) {
        note("ops overlapping without nesting on one thread", fmt::format("traceEvents[{}]", e.index));
        stack.pop_back();
      }
      if (e.category == Category::runtime) {
        if (e.has_correlation) {
          if (!trace.flows.empty()) launch_correlations.push_back(e.correlation);
          if (!stack.empty()) op_of_correlation.emplace_back(e.correlation, stack.back());
        }
        continue;
      }
      if (!stack.empty()) {
        child_time[ordinal(stack.back())] += e.dur_us;
        parent_of[ordinal(i)] = stack.back();
      }
      stack.push_back(i);
    }
  }
  std::sort(op_of_correlation.begin(), op_of_correlation.end());
  std::sort(launch_correlations.begin(), launch_correlations.end());
  std::vector<std::pair<uint64_t, uint32_t>> op_of_external;
  for (uint32_t i : ops)
    if (ev[i].has_external_id) op_of_external.emplace_back(ev[i].external_id, i);
  // Of several ops sharing an id, the innermost (the shortest) is found first.
  std::sort(op_of_external.begin(), op_of_external.end(), [&](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : ev[x.second].dur_us < ev[y.second].dur_us;
  });
  auto find_in = [](const std::vector<std::pair<uint64_t, uint32_t>>& v, uint64_t id) -> std::optional<uint32_t> {
    auto it = std::lower_bound(v.begin(), v.end(), id, [](const auto& x, uint64_t k) { return x.first < k; });
    if (it == v.end() || it->first != id) return std::nullopt;
    return it->second;
  };


  // Flows that link nothing: neither a launch nor a device event has their id.
  {
    std::vector<uint64_t> device_correlations;
    if (!trace.flows.empty())
      for (uint32_t i : device)
        if (ev[i].has_correlation) device_correlations.push_back(ev[i].correlation);
    std::sort(device_correlations.begin(), device_correlations.end());
    auto has = [](const std::vector<uint64_t>& v, uint64_t id) { return std::binary_search(v.begin(), v.end(), id); };
    for (const FlowEvent& f : trace.flows) {
      const bool linked = f.ph == 's' ? has(launch_correlations, f.id) : has(device_correlations, f.id);
      if (!linked) note("flows that link nothing (ignored)", fmt::format("traceEvents[{}] id {}", f.index, f.id));
    }
  }

  // The window: GPU-side steps, else host steps on a CPU-only trace, else everything.
  std::vector<uint32_t>& step_events = !gpu_steps.empty() ? gpu_steps : host_steps;
  const bool use_steps = !gpu_steps.empty() || (a.cpu_only && !host_steps.empty());
  if (use_steps) {
    std::map<int64_t, StepWindow> by_number;
    for (uint32_t i : step_events) {
      const int64_t n = *step_number(S.at(ev[i].name));
      auto [it, inserted] = by_number.emplace(n, StepWindow{n, ev[i].ts_us, ev[i].end_us()});
      if (!inserted) {  // a step on several devices or streams: its span
        it->second.start_us = std::min(it->second.start_us, ev[i].ts_us);
        it->second.end_us = std::max(it->second.end_us, ev[i].end_us());
      }
    }
    for (auto& [n, w] : by_number)
      if (!options.step || *options.step == n) a.steps.push_back(w);
    if (a.steps.empty())
      throw model::InputError(fmt::format("--steps {}: {} has no ProfilerStep#{} (steps {}..{})", *options.step, trace.path,
                                          *options.step, by_number.begin()->first, by_number.rbegin()->first));
    a.window_kind = "steps";
    a.window_start_us = a.steps.front().start_us;
    a.window_end_us = a.steps.back().end_us;
  } else {
    if (options.step)
      throw model::InputError(fmt::format("--steps {}: {} has no ProfilerStep annotations", *options.step, trace.path));
    a.window_kind = "whole";
    const auto& span = a.cpu_only ? ops : device;
    double lo = 0, hi = 0;
    bool first = true;
    for (uint32_t i : span) {
      lo = first ? ev[i].ts_us : std::min(lo, ev[i].ts_us);
      hi = first ? ev[i].end_us() : std::max(hi, ev[i].end_us());
      first = false;
    }
    a.window_start_us = lo;
    a.window_end_us = hi;
  }
  const double w0 = a.window_start_us, w1 = a.window_end_us;
  std::vector<std::pair<double, double>> step_spans;
  for (const auto& s : a.steps) step_spans.emplace_back(s.start_us, s.end_us);
  std::sort(step_spans.begin(), step_spans.end());
  auto in_window = [&](double ts) {
    if (a.window_kind == "whole") return true;
    // The last step starting at or before ts (steps do not overlap on one timeline).
    auto it = std::upper_bound(step_spans.begin(), step_spans.end(), std::pair(ts, 1e300));
    if (it == step_spans.begin()) return false;
    --it;
    return ts >= it->first && ts < it->second;
  };
  a.total_s = (w1 - w0) * 1e-6;

  // Device events in the window: busy time, attribution.
  std::vector<std::pair<double, double>> spans;
  std::unordered_map<OpKey, size_t, OpKeyHash> row_of;
  std::vector<uint64_t> calls_of_row;                   // per row: op events seen
  std::vector<uint32_t> first_of_row;                   // per row: the first op event seen
  std::vector<uint8_t> op_seen(ops.size(), 0);
  std::vector<std::map<std::string_view, bool>> kernel_names;
  auto row_for = [&](uint32_t op) {
    const auto& e = ev[op];
    const OpKey key{e.name, e.input_dims, e.input_types};
    auto [it, inserted] = row_of.emplace(key, a.ops.size());
    if (inserted) {
      OpRow row;
      row.row_id = static_cast<uint32_t>(a.ops.size());
      row.name = S.at(e.name);
      row.input_dims = S.at(e.input_dims);
      row.input_types = S.at(e.input_types);
      a.ops.push_back(std::move(row));
      calls_of_row.push_back(0);
      first_of_row.push_back(op);
      kernel_names.emplace_back();
    }
    return it->second;
  };
  std::unordered_map<std::string_view, double> unattributed_names;
  const double launch_s = roofs.device ? roofs.device->launch_s : 0;
  if (roofs.device && launch_s > 0) a.launch_threshold_s = kLaunchBoundMultiple * launch_s;
  std::vector<bool> row_all_memory;
  for (uint32_t i : device) {
    const auto& e = ev[i];
    if (!in_window(e.ts_us)) {
      ++a.outside_window;
      continue;
    }
    spans.emplace_back(e.ts_us, e.end_us());
    const double t = e.dur_us * 1e-6;
    if (a.launch_threshold_s && e.category == Category::kernel && t < *a.launch_threshold_s) {
      ++a.launch_bound_kernels;
      a.launch_bound_time_s += t;
    }
    std::optional<uint32_t> op;
    if (e.has_correlation)
      op = find_in(op_of_correlation, e.correlation);
    if (!op && e.has_external_id)
      op = find_in(op_of_external, e.external_id);
    if (options.keep_timeline) {
      KernelSpan span{e.ts_us, e.dur_us, e.stream, e.device, KernelSpan::kNoRow, 0, e.category == Category::kernel};
      if (op) span.row_id = static_cast<uint32_t>(row_for(*op));
      auto g = std::lower_bound(trace.kernel_grids.begin(), trace.kernel_grids.end(), std::pair<uint32_t, uint32_t>(i, 0));
      if (g != trace.kernel_grids.end() && g->first == i) span.grid_blocks = g->second;
      a.timeline.push_back(span);
    }
    const std::string_view kname = e.category == Category::gpu_memcpy   ? std::string_view("Memcpy")
                                   : e.category == Category::gpu_memset ? std::string_view("Memset")
                                                                        : S.at(e.name);
    if (!op) {
      ++a.unattributed_kernels;
      a.unattributed_time_s += t;
      unattributed_names[e.category == Category::kernel ? S.at(e.name) : kname] += t;
      continue;
    }
    const size_t r = row_for(*op);
    if (row_all_memory.size() < a.ops.size()) row_all_memory.resize(a.ops.size(), true);
    if (e.category == Category::kernel) row_all_memory[r] = false;
    OpRow& row = a.ops[r];
    row.device_time_s += t;
    ++row.kernel_launches;
    kernel_names[r][e.category == Category::kernel ? S.at(e.name) : S.at(e.name).empty() ? kname : S.at(e.name)] = true;
    if (const size_t k = ordinal(*op); !op_seen[k]) {
      op_seen[k] = 1;
      ++calls_of_row[r];
      const double self = ev[*op].dur_us - child_time[k];
      row.self_cpu_time_s += std::max(0.0, self) * 1e-6;
    }
  }
  // CPU-only: every op in the window, at its self time; the cost counted at the
  // innermost op that has a model (a linear's FLOPs are its addmm's).
  std::vector<uint8_t> has_modeled_descendant(ops.size(), 0);
  if (a.cpu_only) {
    std::unordered_map<uint32_t, bool> modeled_name;  // by name id: one table look-up per name
    auto modeled = [&](uint32_t op) {
      auto [it, inserted] = modeled_name.emplace(ev[op].name, false);
      if (inserted) it->second = !cost_of(S.at(ev[op].name), OpInputs{}, {}, std::nullopt).model.empty();
      return it->second;
    };
    for (uint32_t i : ops) {
      if (!modeled(i)) continue;
      for (uint32_t p = parent_of[ordinal(i)]; p != kNone; p = parent_of[ordinal(p)]) {
        if (has_modeled_descendant[ordinal(p)]) break;
        has_modeled_descendant[ordinal(p)] = 1;
      }
    }
    for (uint32_t i : ops) {
      if (!in_window(ev[i].ts_us)) continue;
      const size_t r = row_for(i);
      if (const size_t k = ordinal(i); !op_seen[k]) {
        op_seen[k] = 1;
        ++calls_of_row[r];
        const double self = ev[i].dur_us - child_time[k];
        a.ops[r].self_cpu_time_s += std::max(0.0, self) * 1e-6;
      }
    }
  }
  row_all_memory.resize(a.ops.size(), false);

  // Busy and idle: the union of device intervals, per step and over the window.
  {
    const Union all = interval_union(spans, w0, w1);
    a.busy_s = all.busy_us * 1e-6;
    a.idle_s = a.total_s - a.busy_s;
    // Per step: the window's merged (sorted, disjoint) intervals overlapping the step.
    for (auto& s : a.steps) {
      double busy_us = 0;
      auto it = std::lower_bound(all.merged.begin(), all.merged.end(), s.start_us,
                                 [](const std::pair<double, double>& m, double t) { return m.second <= t; });
      for (; it != all.merged.end() && it->first < s.end_us; ++it)
        busy_us += std::max(0.0, std::min(it->second, s.end_us) - std::max(it->first, s.start_us));
      s.busy_s = busy_us * 1e-6;
      s.idle_s = (s.end_us - s.start_us) * 1e-6 - s.busy_s;
    }
    if (!a.cpu_only) {
      double cursor = w0;
      for (const auto& m : all.merged) {
        if (m.first > cursor) a.idle_gaps.push_back({(cursor - w0) * 1e-6, (m.first - cursor) * 1e-6});
        cursor = std::max(cursor, m.second);
      }
      if (w1 > cursor) a.idle_gaps.push_back({(cursor - w0) * 1e-6, (w1 - cursor) * 1e-6});
      std::sort(a.idle_gaps.begin(), a.idle_gaps.end(), [](const Gap& x, const Gap& y) { return x.duration_s > y.duration_s; });
      if (a.idle_gaps.size() > 20) a.idle_gaps.resize(20);
    }
  }

  // Costs and roofs per row.
  for (size_t r = 0; r < a.ops.size(); ++r) {
    OpRow& row = a.ops[r];
    row.calls = calls_of_row[r];
    std::vector<std::string_view> names;
    for (const auto& [k, _] : kernel_names[r]) {
      names.push_back(k);
      row.kernels.emplace_back(k);
    }
    const OpInputs inputs = parse_inputs(row.input_dims, row.input_types, "");
    // Concrete Inputs may differ between calls of one shape; the first call's are used.
    const uint32_t first = first_of_row[r];
    const OpInputs with_concrete = parse_inputs(row.input_dims, row.input_types, S.at(ev[first].concrete_inputs));
    (void)inputs;
    row.cost = cost_of(row.name, with_concrete, names, trace.world_size);
    if (!with_concrete.dims_parsed) note("Input Dims that do not parse (cost unknown)", fmt::format("op {} {}", row.name, row.input_dims));
    if (!row.cost.bytes && row.cost.why_unknown.find("unknown dtype") != std::string::npos)
      note("unknown dtypes (bytes unknown)", fmt::format("op {} {}", row.name, row.input_types));
    if (row.cost.op_class == OpClass::other && row_all_memory[r] && row.device_time_s > 0) row.cost.op_class = OpClass::memory;
    if (a.cpu_only && has_modeled_descendant[ordinal(first)]) {
      row.cost_counted = false;
      row.cost.flops.reset();
      row.cost.bytes.reset();
      row.cost.why_unknown = "counted at the nested op that carries the cost";
    }
    const double time = row.time_s();
    if (row.cost.op_class == OpClass::communication) {
      row.bound = "communication";
      row.roof_note = "no interconnect roof in the device table";
      if (row.cost.message_bytes && row.device_time_s > 0) {
        row.algbw_bytes_per_s = *row.cost.message_bytes * row.calls / row.device_time_s;
        if (row.cost.bus_factor) row.busbw_bytes_per_s = *row.algbw_bytes_per_s * *row.cost.bus_factor;
      }
      continue;
    }
    if (!row.cost.flops || !row.cost.bytes) {
      row.bound = "unknown";
      row.roof_note = row.cost.why_unknown.empty() ? "cost unknown" : row.cost.why_unknown;
      continue;
    }
    if (!roofs.device) {
      row.bound = "unknown";
      row.roof_note = roofs.why_unknown;
      continue;
    }
    std::string peak_note;
    const auto peak = peak_for(*roofs.device, row.cost, peak_note);
    row.roof_note = peak_note.empty() ? row.cost.assumption : peak_note;
    if (!peak) {
      row.bound = "unknown";
      continue;
    }
    row.peak_flops = *peak;
    const double compute = *row.cost.flops / *peak;
    const double memory = *row.cost.bytes / roofs.device->bandwidth_bytes_per_s;
    row.roof_time_s = row.calls * std::max(compute, memory);
    if (time > 0) row.fraction_of_roof = *row.roof_time_s / time;
    // Faster than the roof cannot be: the cost model overcounts this op, the roofs are
    // below the device's (a wrong --device), or the time is not the op's whole work
    // (a CPU op whose work ran on other threads). Shown, and counted.
    if (row.fraction_of_roof && *row.fraction_of_roof > 1)
      note("ops faster than their roof (fraction of roof above 1: cost model, roofs or times disagree)",
           fmt::format("op {} {} at {:.3g} of its roof", row.name, row.input_dims, *row.fraction_of_roof));
    row.bound = compute >= memory ? "compute" : "memory";
    if (a.launch_threshold_s && row.kernel_launches > 0 && row.device_time_s / row.kernel_launches < *a.launch_threshold_s)
      row.bound = "launch";
  }
  std::sort(a.ops.begin(), a.ops.end(), [](const OpRow& x, const OpRow& y) {
    if (x.time_s() != y.time_s()) return x.time_s() > y.time_s();
    return std::tie(x.name, x.input_dims, x.input_types) < std::tie(y.name, y.input_dims, y.input_types);
  });

  // The class table.
  std::map<OpClass, ClassRow> classes;
  for (OpClass c : kAllClasses) classes[c].op_class = c;
  double flops = 0, bytes = 0, known_time = 0;
  for (const auto& row : a.ops) {
    ClassRow& c = classes[row.cost.op_class];
    const double t = row.time_s();
    c.time_s += t;
    a.total_time_s += t;
    if (row.cost.flops) c.flops += *row.cost.flops * row.calls, flops += *row.cost.flops * row.calls;
    if (row.cost.bytes) c.bytes += *row.cost.bytes * row.calls, bytes += *row.cost.bytes * row.calls;
    if (row.cost.flops && row.cost.bytes) known_time += t;
    if (row.roof_time_s) c.known_time_s += t, c.roof_time_s += *row.roof_time_s;
  }
  for (const auto& [name, t] : unattributed_names) {
    classes[class_of_kernel(name)].time_s += t;
    a.total_time_s += t;
    a.unattributed_by_name.emplace_back(std::string(name), t);
  }
  std::sort(a.unattributed_by_name.begin(), a.unattributed_by_name.end(),
            [](const auto& x, const auto& y) { return x.second != y.second ? x.second > y.second : x.first < y.first; });
  for (auto& [c, row] : classes) {
    row.flop_share = flops > 0 ? row.flops / flops : 0;
    row.byte_share = bytes > 0 ? row.bytes / bytes : 0;
    row.time_share = a.total_time_s > 0 ? row.time_s / a.total_time_s : 0;
    if (row.known_time_s > 0) row.fraction_of_roof = row.roof_time_s / row.known_time_s;
    a.classes.push_back(row);
  }
  a.known_cost_time_share = a.total_time_s > 0 ? known_time / a.total_time_s : 0;
  std::sort(a.timeline.begin(), a.timeline.end(), [](const KernelSpan& x, const KernelSpan& y) { return x.start_us < y.start_us; });
  return a;
}

}  // namespace lmroof::trace
