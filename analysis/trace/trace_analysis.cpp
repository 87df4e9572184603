#include "analysis/trace/trace_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <climits>
#include <cctype>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <limits>

#include "analysis/model/input_error.h"
#include "analysis/trace/layout_split.h"

namespace lmroof::trace {

double OpRow::time_s() const { return device_time_s > 0 ? device_time_s : self_cpu_time_s; }

namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<int64_t> step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  int64_t n = 0;
  if (name.empty()) return std::nullopt;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
    // Beyond int64 is no step (the reader refuses it, naming the event).
    if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, c - '0', &n)) return std::nullopt;
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

// The length of [from, to) covered by sorted, disjoint intervals (a Union's merged).
double overlap_us(const std::vector<std::pair<double, double>>& merged, double from, double to) {
  double us = 0;
  auto it = std::lower_bound(merged.begin(), merged.end(), from,
                             [](const std::pair<double, double>& m, double t) { return m.second <= t; });
  for (; it != merged.end() && it->first < to; ++it) us += std::max(0.0, std::min(it->second, to) - std::max(it->first, from));
  return us;
}

// The measure inside `region` (sorted, disjoint) of the union of intervals fed in order of
// their starts, kept as a running merge: no copy of the intervals.
class RunningUnion {
 public:
  explicit RunningUnion(const std::vector<std::pair<double, double>>& region) : region_(region) {}
  void add(double start, double end) {
    if (end <= start) return;
    if (open_ && start <= end_) {
      end_ = std::max(end_, end);
      return;
    }
    close();
    start_ = start, end_ = end, open_ = true;
  }
  double measure_us() {
    close();
    return us_;
  }

 private:
  void close() {
    if (open_) us_ += overlap_us(region_, start_, end_);
    open_ = false;
  }
  const std::vector<std::pair<double, double>>& region_;
  double start_ = 0, end_ = 0, us_ = 0;
  bool open_ = false;
};

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

std::optional<std::string> match_device_name(std::string_view trace_name, const std::vector<predict::Device>& table,
                                             std::optional<double> memory_bytes) {
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
  // An A100 named by its board ("NVIDIA A100-PG509-200", an SXM4 board) rather than its
  // memory: the two SXM4 A100s have 40 and 80 GB (datasheet), told apart by the device's
  // own totalGlobalMem (42.3e9 bytes on the 40 GB board).
  if (n.find("a100") != std::string::npos && n.find("pcie") == std::string::npos && n.find("40gb") == std::string::npos &&
      n.find("80gb") == std::string::npos && memory_bytes) {
    const std::string_view entry = *memory_bytes < 60e9 ? "A100 40GB" : "A100 80GB SXM";
    for (const auto& d : table)
      if (d.name == entry) return d.name;
  }
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
  for (const auto& p : trace.devices)
    if (!p.name.empty()) {
      r.trace_name = p.name;
      break;
    }
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
  const std::string& trace_name = r.trace_name;
  r.name = trace_name;
  if (trace_name.empty()) {
    r.why_unknown = "the trace names no device (no deviceProperties) and neither --device nor --ceilings was given";
    return r;
  }
  std::optional<double> memory_bytes;
  for (const auto& p : trace.devices)
    if (p.name == trace_name) {
      memory_bytes = p.total_global_mem;
      break;
    }
  const auto name = match_device_name(trace_name, table, memory_bytes);
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

namespace {

// What the rows are keyed and classed by, per op name: its class from the cost table,
// whether a model exists, whether it is a softmax (cached: one table look-up per name).
struct OpNameInfo {
  OpClass op_class = OpClass::other;
  bool has_model = false, softmax = false;
};

// A device interval of the window, with the launch that queued it (-inf: none in the trace),
// and what it is for the exposed-communication split: its row (kNoRow: unattributed),
// whether it is a kernel (not a memcpy or memset), and for an unattributed kernel whether
// its name is a collective's.
struct Span {
  double start_us, end_us, launch_us;
  int32_t step;
  // Packed into 32 bits, so that a span stays 32 bytes (one per device event of the window).
  static constexpr uint32_t kNoRow = (1u << 30) - 1;
  uint32_t row : 30;
  uint32_t kernel : 1;
  uint32_t communication_kernel : 1;
};

}  // namespace

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
  std::vector<uint32_t> ops, launches, device, gpu_steps, host_steps, modules, annotations;
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
          else annotations.push_back(i);
          break;
        case Category::module: modules.push_back(i); break;
        case Category::flow: break;  // kept apart (trace.flows)
      }
    }
  }
  a.cpu_only = device.empty();
  a.device_events = device.size();
  // On a CPU-only trace, gloo writes each collective as a user_annotation range
  // ("gloo:all_reduce"), not an op: there the range is the op, its time the host's
  // (HTA's cpu_only test trace: a 173 ms all_reduce, 82% of its step, was nowhere).
  std::vector<uint32_t> annotation_ops;  // sorted event indices
  if (a.cpu_only) {
    auto collective = [&](uint32_t i) {
      const std::string_view n = S.at(ev[i].name);
      return n.starts_with("gloo:") || n.starts_with("nccl:") || n.starts_with("c10d::");
    };
    for (uint32_t i : annotations)
      if (collective(i)) annotation_ops.push_back(i);
    std::erase_if(annotations, collective);
    std::sort(annotation_ops.begin(), annotation_ops.end());
    ops.insert(ops.end(), annotation_ops.begin(), annotation_ops.end());
  }
  auto is_annotation = [&](uint32_t i) {
    return ev[i].category == Category::user_annotation && !std::binary_search(annotation_ops.begin(), annotation_ops.end(), i);
  };

  // Host nesting per thread: parent op, self time, the op, module and annotation
  // enclosing each launch and each op.
  std::vector<uint32_t> host(ops);
  host.insert(host.end(), launches.begin(), launches.end());
  host.insert(host.end(), modules.begin(), modules.end());
  host.insert(host.end(), annotations.begin(), annotations.end());
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
  std::vector<uint32_t> module_of_op(ops.size(), kNone), annotation_of_op(ops.size(), kNone);
  struct Launch {
    uint64_t correlation;
    double ts_us;
    uint32_t op, module, annotation;  // innermost enclosing ones (event indices), kNone: none
  };
  std::vector<Launch> launch_of;  // by correlation
  {
    std::vector<uint32_t> stack, module_stack, annotation_stack;
    int32_t pid = 0, tid = 0;
    bool first = true;
    for (uint32_t i : host) {
      const auto& e = ev[i];
      if (first || e.pid != pid || e.tid != tid) {
        stack.clear(), module_stack.clear(), annotation_stack.clear();
        pid = e.pid, tid = e.tid, first = false;
      }
      for (auto* s : {&stack, &module_stack, &annotation_stack})
        while (!s->empty() && ev[s->back()].end_us() <= e.ts_us) s->pop_back();
      if (e.category == Category::module || is_annotation(i)) {
        auto& s = e.category == Category::module ? module_stack : annotation_stack;
        while (!s.empty() && e.end_us() > ev[s.back()].end_us() + 1e-6) s.pop_back();  // overlapping, not nested
        s.push_back(i);
        continue;
      }
      // An op that starts inside the top but ends after it overlaps without nesting.
      while (!stack.empty() && e.end_us() > ev[stack.back()].end_us() + 1e-6) {
        note("ops overlapping without nesting on one thread", fmt::format("traceEvents[{}]", e.index));
        stack.pop_back();
      }
      const uint32_t module = module_stack.empty() ? kNone : module_stack.back();
      const uint32_t annotation = annotation_stack.empty() ? kNone : annotation_stack.back();
      if (e.category == Category::runtime) {
        if (e.has_correlation)
          launch_of.push_back({e.correlation, e.ts_us, stack.empty() ? kNone : stack.back(), module, annotation});
        continue;
      }
      const size_t k = ordinal(i);
      if (!stack.empty()) {
        child_time[ordinal(stack.back())] += e.dur_us;
        parent_of[k] = stack.back();
      }
      module_of_op[k] = module;
      annotation_of_op[k] = annotation;
      stack.push_back(i);
    }
  }
  std::sort(launch_of.begin(), launch_of.end(), [](const Launch& x, const Launch& y) { return x.correlation < y.correlation; });
  // Each op's Input Strides (StringPool id, 0: none), by op ordinal; left empty, and nothing
  // spent on layouts, when no op carries them.
  std::vector<uint32_t> strides_of_op;
  std::vector<double> call_time_us;  // per op ordinal: the device (or self) time of its call in its first row
  if (!trace.op_strides.empty()) {
    strides_of_op.assign(ops.size(), 0);
    call_time_us.assign(ops.size(), 0.0);
    for (const auto& [event, strides] : trace.op_strides)
      if (auto it = std::lower_bound(ops.begin(), ops.end(), event); it != ops.end() && *it == event)
        strides_of_op[static_cast<size_t>(it - ops.begin())] = strides;
  }
  auto find_launch = [&](uint64_t correlation) -> const Launch* {
    auto it = std::lower_bound(launch_of.begin(), launch_of.end(), correlation,
                               [](const Launch& x, uint64_t c) { return x.correlation < c; });
    return it == launch_of.end() || it->correlation != correlation ? nullptr : &*it;
  };
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
  // The args few events carry (trace.extras, by event position).
  auto extras_of = [&](uint32_t i) -> const EventExtras* {
    auto it = std::lower_bound(trace.extras.begin(), trace.extras.end(), i,
                               [](const EventExtras& x, uint32_t k) { return x.event < k; });
    return it == trace.extras.end() || it->event != i ? nullptr : &*it;
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
      const bool linked = f.ph == 's' ? find_launch(f.id) != nullptr : has(device_correlations, f.id);
      if (!linked) note("flows that link nothing (ignored)", fmt::format("traceEvents[{}] id {}", f.index, f.id));
    }
  }

  // The window: GPU-side steps, else the host's ProfilerStep ranges (a device event
  // belongs to the step whose host range holds its launch), else everything.
  const bool host_window = gpu_steps.empty() && !host_steps.empty();
  std::vector<uint32_t>& step_events = !gpu_steps.empty() ? gpu_steps : host_steps;
  if (!step_events.empty()) {
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
    a.step_source = host_window ? "user_annotation" : "gpu_user_annotation";
    // In time order, not by number: the numbers need not follow time (issue 47, defect 6),
    // and step_of halves by start. The window spans the steps' times.
    std::sort(a.steps.begin(), a.steps.end(), [](const StepWindow& x, const StepWindow& y) { return x.start_us < y.start_us; });
    a.window_start_us = a.steps.front().start_us;
    a.window_end_us = a.steps.front().end_us;
    for (const auto& s : a.steps) a.window_end_us = std::max(a.window_end_us, s.end_us);
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
  // The step (index into a.steps) holding a time, -1 for none; the whole window is step 0.
  auto step_of = [&](double ts) -> int32_t {
    if (a.window_kind == "whole") return 0;
    // The last step starting at or before ts (steps do not overlap on one timeline).
    auto it = std::upper_bound(a.steps.begin(), a.steps.end(), ts, [](double t, const StepWindow& s) { return t < s.start_us; });
    if (it == a.steps.begin()) return -1;
    --it;
    return ts >= it->start_us && ts < it->end_us ? static_cast<int32_t>(it - a.steps.begin()) : -1;
  };
  // The window's own time: the union of its steps (the whole span without steps). Between
  // steps that do not touch the device is outside the window, not idle in it (issue 47).
  std::vector<std::pair<double, double>> step_spans;
  if (a.window_kind == "whole") step_spans.emplace_back(w0, w1);
  for (const auto& s : a.steps) step_spans.emplace_back(s.start_us, s.end_us);
  const Union window = interval_union(std::move(step_spans), w0, w1);
  a.total_s = window.busy_us * 1e-6;

  // Per name caches, indexed by string id (a look-up per device event must stay cheap):
  // the op's own class, the kernel's class, the module type's id.
  std::vector<OpNameInfo> op_info(S.size());
  std::vector<uint8_t> op_info_known(S.size(), 0);
  auto info_of = [&](uint32_t name) -> const OpNameInfo& {
    if (!op_info_known[name]) {
      const OpCost c = cost_of(S.at(name), OpInputs{}, {}, std::nullopt);
      op_info[name] = {c.op_class, !c.model.empty(), is_softmax_op(S.at(name))};
      op_info_known[name] = 1;
    }
    return op_info[name];
  };
  std::vector<std::pair<OpClass, bool>> kernel_info(S.size());  // class, softmax
  std::vector<uint8_t> kernel_info_known(S.size(), 0);
  auto kernel_class = [&](const TraceEvent& e) -> std::pair<OpClass, bool> {
    if (e.category != Category::kernel) return {OpClass::memory, false};
    if (!kernel_info_known[e.name]) {
      kernel_info[e.name] = {class_of_kernel(S.at(e.name)), is_softmax_kernel(S.at(e.name))};
      kernel_info_known[e.name] = 1;
    }
    return kernel_info[e.name];
  };
  std::vector<std::string> module_types{""};  // id 0: none
  std::vector<std::optional<OpClass>> module_classes{std::nullopt};  // per type id
  std::unordered_map<std::string, uint32_t> module_type_ids{{"", 0}};
  std::unordered_map<uint32_t, uint32_t> module_type_of_name;  // event or hierarchy string id -> type id
  auto type_id = [&](uint32_t string_id, bool hierarchy) {
    auto [it, inserted] = module_type_of_name.emplace(string_id, 0);
    if (inserted) {
      const std::string type =
          hierarchy ? module_type_of_hierarchy(S.at(string_id)) : module_type_of_event(S.at(string_id));
      auto [t, added] = module_type_ids.emplace(type, static_cast<uint32_t>(module_types.size()));
      if (added) module_types.push_back(type), module_classes.push_back(class_of_module(type));
      it->second = t->second;
    }
    return it->second;
  };
  // The innermost module of a launch or op: an nn.Module event, else the op's Module Hierarchy.
  auto module_type = [&](uint32_t module_event, std::optional<uint32_t> op) -> uint32_t {
    if (module_event != kNone) return type_id(ev[module_event].name, false);
    if (op && ev[*op].category == Category::cpu_op)
      if (const EventExtras* x = extras_of(*op); x && x->module_hierarchy) return type_id(x->module_hierarchy, true);
    return 0;
  };

  // Device events in the window: busy time, attribution.
  std::vector<Span> spans;
  struct RowKey {
    uint32_t name, dims, types, module;
    OpClass op_class;
    bool softmax;
    uint32_t strides;  // the layout: rows that differ only here are merged back unless their times differ
    bool operator==(const RowKey&) const = default;
  };
  struct RowKeyHash {
    size_t operator()(const RowKey& k) const {
      return (size_t(k.name) * 0x9E3779B97F4A7C15ull) ^ (size_t(k.dims) * 0xC2B2AE3D27D4EB4Full) ^ k.types ^
             (size_t(k.module) << 40) ^ (size_t(k.op_class) << 56) ^ (size_t(k.softmax) << 60) ^
             (size_t(k.strides) * 0x165667B19E3779F9ull);
    }
  };
  std::unordered_map<RowKey, size_t, RowKeyHash> row_of;
  std::vector<uint64_t> calls_of_row;                   // per row: op events seen
  std::vector<uint32_t> first_of_row, first_kernel_of_row;  // per row: the first op event and device event seen
  std::vector<std::map<std::string_view, bool>> kernel_names;
  // The row an op event is for; kernel_class: of the device event at hand (other: none).
  auto row_for = [&](uint32_t op, uint32_t module, std::pair<OpClass, bool> kernel, bool pseudo) {
    const auto& e = ev[op];
    OpNameInfo own = pseudo ? OpNameInfo{} : info_of(e.name);
    const std::optional<OpClass> module_class = module_classes[module];
    const ClassChoice choice = choose_class(own.op_class, own.has_model, kernel.first, module_class);
    const bool softmax = own.softmax || (!own.has_model && kernel.second);
    const uint32_t strides = pseudo || strides_of_op.empty() ? 0 : strides_of_op[ordinal(op)];
    const RowKey key{e.name, e.input_dims, e.input_types, module, choice.op_class, softmax, strides};
    auto [it, inserted] = row_of.emplace(key, a.ops.size());
    if (inserted) {
      OpRow row;
      row.row_id = static_cast<uint32_t>(a.ops.size());
      row.name = S.at(e.name);
      row.input_dims = S.at(e.input_dims);
      row.input_types = S.at(e.input_types);
      row.module = module_types[module];
      row.cost.op_class = choice.op_class;
      row.class_source = choice.source;
      row.softmax = softmax;
      row.pseudo_op = pseudo;
      a.ops.push_back(std::move(row));
      calls_of_row.push_back(0);
      first_of_row.push_back(op);
      first_kernel_of_row.push_back(kNone);
      kernel_names.emplace_back();
    }
    return it->second;
  };
  // A call counts once per row: the first row of each op is kept per op; an op split over
  // several rows (by kernel class) and annotations standing in for ops go to a set.
  std::vector<uint32_t> first_row_of_op(ops.size(), kNone);
  std::unordered_set<uint64_t> other_calls;
  auto count_call = [&](size_t r, uint32_t op, bool pseudo) {
    if (!pseudo) {
      const size_t k = ordinal(op);
      if (first_row_of_op[k] == kNone) {
        first_row_of_op[k] = static_cast<uint32_t>(r);
        ++calls_of_row[r];
        a.ops[r].self_cpu_time_s += std::max(0.0, ev[op].dur_us - child_time[k]) * 1e-6;
        return;
      }
      if (first_row_of_op[k] == r) return;
    }
    if (other_calls.insert((uint64_t(r) << 32) | op).second) ++calls_of_row[r];
  };
  std::unordered_map<std::string_view, double> unattributed_names;
  std::unordered_set<uint32_t> module_events_seen;
  const double launch_s = roofs.device ? roofs.device->launch_s : 0;
  if (roofs.device && launch_s > 0) a.launch_threshold_s = kLaunchBoundMultiple * launch_s;
  for (uint32_t i : device) {
    const auto& e = ev[i];
    const Launch* launch = e.has_correlation ? find_launch(e.correlation) : nullptr;
    const int32_t step = step_of(host_window && launch ? launch->ts_us : e.ts_us);
    if (step < 0) {
      ++a.outside_window;
      continue;
    }
    spans.push_back({e.ts_us, e.end_us(), launch ? launch->ts_us : -std::numeric_limits<double>::infinity(), step,
                     Span::kNoRow, e.category == Category::kernel, false});
    const double t = e.dur_us * 1e-6;
    if (a.launch_threshold_s && e.category == Category::kernel && t < *a.launch_threshold_s) {
      ++a.launch_bound_kernels;
      a.launch_bound_time_s += t;
    }
    std::optional<uint32_t> op;
    if (launch && launch->op != kNone) op = launch->op;
    if (!op && e.has_external_id) op = find_in(op_of_external, e.external_id);
    bool pseudo = false;
    if (!op && launch && launch->annotation != kNone) op = launch->annotation, pseudo = true;
    // --what-if replays every device event of the window: its span, grid and row.
    auto keep_span = [&](uint32_t row_id) {
      if (!options.keep_timeline) return;
      KernelSpan span{e.ts_us, e.dur_us, e.stream, e.device, row_id, 0, e.category == Category::kernel};
      auto g = std::lower_bound(trace.kernel_grids.begin(), trace.kernel_grids.end(), std::pair<uint32_t, uint32_t>(i, 0));
      if (g != trace.kernel_grids.end() && g->first == i) span.grid_blocks = g->second;
      a.timeline.push_back(span);
    };
    const std::string_view kname = e.category == Category::gpu_memcpy   ? std::string_view("Memcpy")
                                   : e.category == Category::gpu_memset ? std::string_view("Memset")
                                                                        : S.at(e.name);
    if (!op) {
      ++a.unattributed_kernels;
      a.unattributed_time_s += t;
      unattributed_names[e.category == Category::kernel ? S.at(e.name) : kname] += t;
      spans.back().communication_kernel = kernel_class(e).first == OpClass::communication;
      keep_span(KernelSpan::kNoRow);
      continue;
    }
    const uint32_t module =
        module_type(launch ? launch->module : (pseudo ? kNone : module_of_op[ordinal(*op)]), pseudo ? std::nullopt : op);
    const size_t r = row_for(*op, module, kernel_class(e), pseudo);
    if (r >= Span::kNoRow)  // 2^30 op shapes: past any trace the memory bound lets through
      throw model::InputError(fmt::format("{}: more than {} distinct op shapes", trace.path, Span::kNoRow - 1));
    spans.back().row = static_cast<uint32_t>(r) & Span::kNoRow;
    keep_span(a.ops[r].row_id);
    if (launch && launch->module != kNone && module_events_seen.insert(launch->module).second)
      ++a.module_instances[module_types[module]];
    OpRow& row = a.ops[r];
    row.device_time_s += t;
    ++row.kernel_launches;
    if (first_kernel_of_row[r] == kNone) first_kernel_of_row[r] = i;
    kernel_names[r][e.category == Category::kernel ? S.at(e.name) : S.at(e.name).empty() ? kname : S.at(e.name)] = true;
    count_call(r, *op, pseudo);
    if (!call_time_us.empty() && !pseudo)
      if (const size_t k = ordinal(*op); first_row_of_op[k] == r) call_time_us[k] += e.dur_us;
  }
  // CPU-only: every op in the window, at its self time; the cost counted at the
  // innermost op that has a model (a linear's FLOPs are its addmm's).
  std::vector<uint8_t> has_modeled_descendant(ops.size(), 0);
  if (a.cpu_only) {
    for (uint32_t i : ops) {
      if (!info_of(ev[i].name).has_model) continue;
      for (uint32_t p = parent_of[ordinal(i)]; p != kNone; p = parent_of[ordinal(p)]) {
        if (has_modeled_descendant[ordinal(p)]) break;
        has_modeled_descendant[ordinal(p)] = 1;
      }
    }
    for (uint32_t i : ops) {
      if (step_of(ev[i].ts_us) < 0) continue;
      const size_t r = row_for(i, module_type(module_of_op[ordinal(i)], i), {OpClass::other, false}, false);
      count_call(r, i, false);
      if (!call_time_us.empty()) call_time_us[ordinal(i)] = std::max(0.0, ev[i].dur_us - child_time[ordinal(i)]);
    }
  }

  // Layouts (docs/trace.md, "Layouts"): the rows of one op shape that differ only in their
  // Input Strides stay apart where layout_groups finds their calls' times differ; the
  // others are merged back into one row.
  if (!strides_of_op.empty()) {
    std::vector<LayoutTimes> times(a.ops.size());
    for (size_t k = 0; k < ops.size(); ++k) {
      if (first_row_of_op[k] == kNone) continue;
      LayoutTimes& t = times[first_row_of_op[k]];
      const double call_s = call_time_us[k] * 1e-6;
      t.fastest_s = t.calls == 0 ? call_s : std::min(t.fastest_s, call_s);
      t.slowest_s = std::max(t.slowest_s, call_s);
      ++t.calls;
    }
    std::unordered_map<RowKey, std::vector<size_t>, RowKeyHash> shapes;  // key without its layout -> rows
    for (const auto& [key, r] : row_of) {
      RowKey shape = key;
      shape.strides = 0;
      shapes[shape].push_back(r);
    }
    std::vector<uint32_t> strides_of_row(a.ops.size(), 0);
    for (const auto& [key, r] : row_of) strides_of_row[r] = key.strides;
    std::vector<size_t> merged_into(a.ops.size());
    for (size_t r = 0; r < merged_into.size(); ++r) merged_into[r] = r;
    bool any_merged = false;
    for (auto& [shape, rows] : shapes) {
      if (rows.size() < 2) continue;
      std::sort(rows.begin(), rows.end());
      std::vector<LayoutTimes> layouts;
      for (size_t r : rows) layouts.push_back(times[r]);
      const std::vector<size_t> group = layout_groups(layouts);
      const size_t groups = *std::max_element(group.begin(), group.end()) + 1;
      for (size_t g = 0; g < groups; ++g) {
        std::optional<size_t> target;
        std::string strides;
        LayoutTimes range;
        for (size_t j = 0; j < rows.size(); ++j) {
          if (group[j] != g) continue;
          const size_t r = rows[j];
          strides += (strides.empty() ? "" : "; ") + (strides_of_row[r] ? std::string(S.at(strides_of_row[r])) : std::string("none"));
          range.fastest_s = range.calls == 0 ? layouts[j].fastest_s : std::min(range.fastest_s, layouts[j].fastest_s);
          range.slowest_s = std::max(range.slowest_s, layouts[j].slowest_s);
          range.calls += layouts[j].calls;
          if (!target) {
            target = r;
            continue;
          }
          merged_into[r] = *target, any_merged = true;
          OpRow& into = a.ops[*target];
          const OpRow& from = a.ops[r];
          into.device_time_s += from.device_time_s;
          into.self_cpu_time_s += from.self_cpu_time_s;
          into.kernel_launches += from.kernel_launches;
          calls_of_row[*target] += calls_of_row[r];
          kernel_names[*target].insert(kernel_names[r].begin(), kernel_names[r].end());
          if (first_kernel_of_row[*target] == kNone) first_kernel_of_row[*target] = first_kernel_of_row[r];
        }
        if (groups > 1) {  // split: each row says its layouts and its calls' range
          a.ops[*target].input_strides = strides;
          a.ops[*target].fastest_call_s = range.fastest_s;
          a.ops[*target].slowest_call_s = range.slowest_s;
        }
      }
    }
    if (any_merged) {  // drop the merged rows; every reference to a row follows it
      std::vector<uint32_t> new_index(a.ops.size());
      std::vector<OpRow> rows;
      std::vector<uint64_t> calls;
      std::vector<uint32_t> firsts, first_kernels;
      std::vector<std::map<std::string_view, bool>> names;
      for (size_t r = 0; r < a.ops.size(); ++r) {
        if (merged_into[r] != r) continue;
        new_index[r] = static_cast<uint32_t>(rows.size());
        a.ops[r].row_id = new_index[r];
        rows.push_back(std::move(a.ops[r]));
        calls.push_back(calls_of_row[r]);
        firsts.push_back(first_of_row[r]);
        first_kernels.push_back(first_kernel_of_row[r]);
        names.push_back(std::move(kernel_names[r]));
      }
      for (size_t r = 0; r < new_index.size(); ++r) new_index[r] = new_index[merged_into[r]];
      for (auto& span : spans)
        if (span.row != Span::kNoRow) span.row = new_index[span.row] & Span::kNoRow;
      for (auto& span : a.timeline)
        if (span.row_id != KernelSpan::kNoRow) span.row_id = new_index[span.row_id];
      a.ops = std::move(rows);
      calls_of_row = std::move(calls);
      first_of_row = std::move(firsts);
      first_kernel_of_row = std::move(first_kernels);
      kernel_names = std::move(names);
    }
  }

  double device_end = w1;
  std::vector<std::pair<double, double>> device_region;
  // Busy and idle: the union of device intervals, per step and over the window. On host
  // step ranges, a step's busy time is the union of its own device events wherever they
  // run (the device may lag the host), at most the step's length.
  {
    // Sorted once: by start, then launch (the host-bound split below walks them in order).
    std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) {
      return x.start_us != y.start_us ? x.start_us < y.start_us : x.launch_us < y.launch_us;
    });
    // Their union, clipped to the window (on host ranges, to the last device event's end):
    // merged in one pass, the spans being sorted.
    double hi = w1;
    if (host_window)
      for (const auto& s : spans) hi = std::max(hi, s.end_us);
    Union all;
    for (const auto& s : spans) {
      const double start = std::max(s.start_us, w0), end = std::min(s.end_us, hi);
      if (end <= start) continue;
      if (!all.merged.empty() && start <= all.merged.back().second)
        all.merged.back().second = std::max(all.merged.back().second, end);
      else
        all.merged.emplace_back(start, end);
    }
    if (host_window) {
      std::vector<std::vector<std::pair<double, double>>> per_step(a.steps.size());
      for (const auto& s : spans) per_step[s.step].emplace_back(s.start_us, s.end_us);
      for (size_t k = 0; k < a.steps.size(); ++k) {
        auto& st = a.steps[k];
        const double length_s = (st.end_us - st.start_us) * 1e-6;
        st.busy_s = std::min(length_s, interval_union(per_step[k], -1e300, 1e300).busy_us * 1e-6);
        st.idle_s = length_s - st.busy_s;
        a.busy_s += st.busy_s;
      }
    } else {
      // Busy inside the steps: a device event may run past its step's end, into the
      // time between steps, which is outside the window.
      for (const auto& [from, to] : window.merged) a.busy_s += overlap_us(all.merged, from, to) * 1e-6;
      for (auto& s : a.steps) {
        s.busy_s = overlap_us(all.merged, s.start_us, s.end_us) * 1e-6;
        s.idle_s = (s.end_us - s.start_us) * 1e-6 - s.busy_s;
      }
    }
    a.idle_s = a.total_s - a.busy_s;
    // Where idle gaps and communication are sought: inside the window's steps; on host
    // ranges, from the window's start to the last device event's end (the device may lag the host).
    device_end = all.merged.empty() ? w1 : std::max(w1, all.merged.back().second);
    device_region = host_window ? std::vector{std::pair(w0, device_end)} : window.merged;
    if (!a.cpu_only) {
      const double end = device_end;
      const std::vector<std::pair<double, double>>& region = device_region;
      for (const auto& [from, to] : region) {
        double cursor = from;
        auto m = std::lower_bound(all.merged.begin(), all.merged.end(), from,
                                  [](const std::pair<double, double>& x, double t) { return x.second <= t; });
        for (; m != all.merged.end() && m->first < to; ++m) {
          if (m->first > cursor) a.idle_gaps.push_back({(cursor - w0) * 1e-6, (m->first - cursor) * 1e-6});
          cursor = std::max(cursor, m->second);
        }
        if (to > cursor) a.idle_gaps.push_back({(cursor - w0) * 1e-6, (to - cursor) * 1e-6});
      }
      std::sort(a.idle_gaps.begin(), a.idle_gaps.end(), [](const Gap& x, const Gap& y) { return x.duration_s > y.duration_s; });
      if (a.idle_gaps.size() > 20) a.idle_gaps.resize(20);
      // Host-bound gaps: the device idles until a kernel whose launch came after the gap
      // began, so nothing was queued: the host was the bottleneck.
      double cursor = w0, host_bound_us = 0;
      for (const auto& s : spans) {
        const double start = std::max(s.start_us, w0);
        if (start > cursor && s.launch_us > cursor) host_bound_us += overlap_us(region, cursor, std::min(start, end));  // no launch: -inf, never
        cursor = std::max(cursor, std::min(s.end_us, end));
      }
      a.idle_host_bound_s = std::min(a.idle_s, host_bound_us * 1e-6);
      a.idle_other_s = std::max(0.0, a.idle_s - a.idle_host_bound_s);
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
    const OpClass chosen = row.cost.op_class;
    const uint32_t first = first_of_row[r];
    if (row.pseudo_op) {
      row.cost = OpCost{};
      row.cost.why_unknown = "a user annotation standing in for an op the trace does not have: no cost model";
    } else {
      // Concrete Inputs may differ between calls of one shape; the first call's are used.
      OpInputs with_concrete = parse_inputs(row.input_dims, row.input_types, S.at(ev[first].concrete_inputs));
      const EventExtras* x = extras_of(first);
      if ((!x || !(x->in_nelems || x->out_nelems)) && first_kernel_of_row[r] != kNone) x = extras_of(first_kernel_of_row[r]);
      if (x) with_concrete.collective = {x->in_nelems, x->out_nelems, x->group_size, std::string(S.at(x->dtype))};
      row.cost = cost_of(row.name, with_concrete, names, trace.world_size);
      if (!with_concrete.dims_parsed)
        note("Input Dims that do not parse (cost unknown)", fmt::format("op {} {}", row.name, row.input_dims));
      if (!row.cost.bytes && row.cost.why_unknown.find("unknown dtype") != std::string::npos)
        note("unknown dtypes (bytes unknown)", fmt::format("op {} {}", row.name, row.input_types));
    }
    // The cost model's own class stands when the op chose it (it reads the inputs: max of
    // two tensors is elementwise); a module's or kernel's class replaces it.
    if (std::string_view(row.class_source) != "op" || row.pseudo_op) row.cost.op_class = chosen;
    if (a.cpu_only && has_modeled_descendant[ordinal(first)]) {
      row.cost_counted = false;
      row.cost.flops.reset();
      row.cost.bytes.reset();
      row.cost.why_unknown = "counted at the nested op that carries the cost";
    }
    if (row.cost.op_class == OpClass::communication) {
      row.bound = "communication";
      row.roof_note = "no interconnect roof in the device table";
      set_rates(row);
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
    set_rates(row);
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
  // Exposed communication: the communication intervals (rows of class communication, and
  // unattributed collective kernels) less the time a compute kernel (any other kernel, on
  // any stream; copies and fills are not compute) runs beside them: |C u K| - |K|, each a
  // running union over the spans, sorted by start above.
  if (!a.cpu_only) {
    RunningUnion communication(device_region), compute(device_region), either(device_region);
    for (const auto& s : spans) {
      const bool is_communication =
          s.row != Span::kNoRow ? a.ops[s.row].cost.op_class == OpClass::communication : bool(s.communication_kernel);
      if (is_communication) communication.add(s.start_us, s.end_us);
      else if (s.kernel) compute.add(s.start_us, s.end_us);
      if (is_communication || s.kernel) either.add(s.start_us, s.end_us);
    }
    a.communication_s = communication.measure_us() * 1e-6;
    a.exposed_communication_s = std::max(0.0, either.measure_us() - compute.measure_us()) * 1e-6;
  }
  std::sort(a.ops.begin(), a.ops.end(), op_row_order);

  // The class tables (lmroof's and Ivanov's) and the module table.
  std::vector<std::pair<std::string, double>> unattributed;
  for (const auto& [name, t] : unattributed_names) unattributed.emplace_back(std::string(name), t);
  summarize(a, unattributed);
  std::sort(a.timeline.begin(), a.timeline.end(), [](const KernelSpan& x, const KernelSpan& y) { return x.start_us < y.start_us; });
  return a;
}

std::optional<double> finite_ratio(double num, double den) {
  if (!(den > 0)) return std::nullopt;
  const double q = num / den;
  return std::isfinite(q) ? std::optional(q) : std::nullopt;
}

void set_rates(OpRow& row) {
  row.fraction_of_roof.reset();
  row.algbw_bytes_per_s.reset();
  row.busbw_bytes_per_s.reset();
  if (row.roof_time_s) row.fraction_of_roof = finite_ratio(*row.roof_time_s, row.time_s());
  if (row.cost.message_bytes) {
    row.algbw_bytes_per_s = finite_ratio(*row.cost.message_bytes * row.calls, row.device_time_s);
    if (row.algbw_bytes_per_s && row.cost.bus_factor)
      row.busbw_bytes_per_s = finite_ratio(*row.algbw_bytes_per_s * *row.cost.bus_factor, 1);
  }
}

bool op_row_order(const OpRow& x, const OpRow& y) {
  if (x.time_s() != y.time_s()) return x.time_s() > y.time_s();
  return std::tie(x.name, x.input_dims, x.input_types, x.module) < std::tie(y.name, y.input_dims, y.input_types, y.module);
}

void summarize(TraceAnalysis& a, std::vector<std::pair<std::string, double>> unattributed) {
  a.classes.clear();
  a.ivanov_classes.clear();
  a.modules.clear();
  a.other_by_name.clear();
  a.unattributed_by_name.clear();
  a.total_time_s = 0;
  std::map<OpClass, ClassRow> classes;
  for (OpClass c : kAllClasses) classes[c].op_class = c;
  std::map<IvanovClass, ClassRow> groups;
  for (IvanovClass g : kAllIvanovClasses) groups[g];
  std::map<std::string, ModuleRow> modules;
  std::map<std::string, double> other;
  double flops = 0, bytes = 0, known_time = 0;
  auto add_to = [](ClassRow& c, const OpRow& row) {
    const double t = row.time_s();
    c.time_s += t;
    if (row.cost.flops) c.flops += *row.cost.flops * row.calls;
    if (row.cost.bytes) c.bytes += *row.cost.bytes * row.calls;
    if (row.roof_time_s) c.known_time_s += t, c.roof_time_s += *row.roof_time_s;
  };
  for (const auto& row : a.ops) {
    add_to(classes[row.cost.op_class], row);
    add_to(groups[ivanov_class(row.cost.op_class, row.softmax)], row);
    const double t = row.time_s();
    a.total_time_s += t;
    if (row.cost.flops) flops += *row.cost.flops * row.calls;
    if (row.cost.bytes) bytes += *row.cost.bytes * row.calls;
    if (row.cost.flops && row.cost.bytes) known_time += t;
    if (row.cost.op_class == OpClass::other) other[row.name] += t;
    if (!row.module.empty()) {
      ModuleRow& m = modules[row.module];
      m.type = row.module;
      m.time_s += t;
      m.kernels += row.kernel_launches;
      if (row.cost.flops) m.flops += *row.cost.flops * row.calls;
      if (row.cost.bytes) m.bytes += *row.cost.bytes * row.calls;
      if (row.roof_time_s) m.known_time_s += t, m.roof_time_s += *row.roof_time_s;
    }
  }
  for (const auto& [name, t] : unattributed) {
    const OpClass c = class_of_kernel(name);
    classes[c].time_s += t;
    groups[ivanov_class(c, is_softmax_kernel(name))].time_s += t;
    a.total_time_s += t;
    a.unattributed_by_name.emplace_back(name, t);
    if (c == OpClass::other) other[name] += t;
  }
  auto by_time = [](const auto& x, const auto& y) { return x.second != y.second ? x.second > y.second : x.first < y.first; };
  std::sort(a.unattributed_by_name.begin(), a.unattributed_by_name.end(), by_time);
  a.other_by_name.assign(other.begin(), other.end());
  std::sort(a.other_by_name.begin(), a.other_by_name.end(), by_time);
  if (a.other_by_name.size() > 20) a.other_by_name.resize(20);
  auto shares = [&](ClassRow& row) {
    row.flop_share = flops > 0 ? row.flops / flops : 0;
    row.byte_share = bytes > 0 ? row.bytes / bytes : 0;
    row.time_share = a.total_time_s > 0 ? row.time_s / a.total_time_s : 0;
    row.fraction_of_roof.reset();
    row.fraction_of_roof = finite_ratio(row.roof_time_s, row.known_time_s);
  };
  for (auto& [c, row] : classes) {
    shares(row);
    a.classes.push_back(row);
  }
  for (auto& [g, row] : groups) {
    shares(row);
    a.ivanov_classes.push_back({g, row});
  }
  for (auto& [type, m] : modules) {
    if (auto c = class_of_module(type)) m.module_class = *c, m.gives_class = true;
    m.fraction_of_roof = finite_ratio(m.roof_time_s, m.known_time_s);
    m.time_share = a.total_time_s > 0 ? m.time_s / a.total_time_s : 0;
    a.modules.push_back(m);
  }
  std::sort(a.modules.begin(), a.modules.end(),
            [](const ModuleRow& x, const ModuleRow& y) { return x.time_s != y.time_s ? x.time_s > y.time_s : x.type < y.type; });
  a.known_cost_time_share = a.total_time_s > 0 ? known_time / a.total_time_s : 0;
}

}  // namespace lmroof::trace
