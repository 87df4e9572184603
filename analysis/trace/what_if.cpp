#include "analysis/trace/what_if.h"

#include "analysis/trace/trace_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/model/input_error.h"
#include "analysis/numbers/numbers.h"

namespace lmroof::trace {

namespace {

// The target's peak for this op; a tensor op whose dtype has no tensor peak there runs
// at the target's fp32 (vector) peak, and `no_fast_path` says so.
std::optional<double> target_peak(const predict::Device& d, const OpCost& cost, std::string& no_fast_path) {
  std::string note;
  if (auto p = peak_for(d, cost, note)) return p;
  if (cost.unit != Unit::tensor) return std::nullopt;
  const auto fp32 = d.dense_peak_flops.find("fp32");
  if (fp32 == d.dense_peak_flops.end()) return std::nullopt;
  no_fast_path = fmt::format("no {} fast path on {}: at its fp32 peak", cost.dtype.empty() ? "tensor" : cost.dtype, d.name);
  return fp32->second;
}

// A grid equal to the source's SM count is taken as sized to the device (a persistent
// kernel): the target's library sizes it to its own, so no wave factor on either side.
std::pair<double, double> wave_factors(uint32_t blocks, std::optional<int64_t> source_sms, std::optional<int64_t> target_sms) {
  if (blocks == 0 || !source_sms || !target_sms || *source_sms <= 0 || *target_sms <= 0) return {1, 1};
  if (blocks == static_cast<uint64_t>(*source_sms)) return {1, 1};
  return {wave_factor(blocks, *source_sms), wave_factor(blocks, *target_sms)};
}

std::string op_label(const OpRetime& r) { return r.input_dims.empty() ? r.name : r.name + " " + r.input_dims; }

// An op's input_dims or input_types (trace.json /2: an array or null) as one text, to match
// a prediction's ops with a measured trace.json's.
std::string shape_key(const nlohmann::json& v) { return v.dump(); }

// The three replays (point, low, high) of the window's kernels.
struct Replay {
  double total_s = 0, busy_s = 0, gap_s = 0;
};

// Kernels in start order; each starts after the kernel whose end is the latest at or
// before its source start (on any stream), by the same gap as on the source, and never
// before the previous kernel of its own stream ends. `scale` is per kernel.
Replay replay(const std::vector<KernelSpan>& spans, const std::vector<double>& scale, double w0, double w1) {
  const size_t n = spans.size();
  Replay out;
  if (n == 0) {
    out.total_s = (w1 - w0) * 1e-6;
    return out;
  }
  std::vector<uint32_t> by_end(n);
  for (uint32_t i = 0; i < n; ++i) by_end[i] = i;
  std::sort(by_end.begin(), by_end.end(), [&](uint32_t x, uint32_t y) {
    const double ex = spans[x].start_us + spans[x].dur_us, ey = spans[y].start_us + spans[y].dur_us;
    return ex != ey ? ex < ey : x < y;
  });
  std::vector<double> start(n), end(n);
  std::vector<uint8_t> done(n, 0);
  std::map<std::pair<int32_t, int32_t>, uint32_t> last_on_stream;
  size_t cursor = 0;
  std::optional<uint32_t> latest;  // the latest-ending replayed kernel ended by the current start
  double last_source_end = w0, last_end = w0;
  for (uint32_t k = 0; k < n; ++k) {
    const KernelSpan& s = spans[k];
    while (cursor < n && spans[by_end[cursor]].start_us + spans[by_end[cursor]].dur_us <= s.start_us) {
      if (done[by_end[cursor]]) latest = by_end[cursor];
      ++cursor;
    }
    double t = s.start_us;  // no predecessor: as far from the window's start as on the source
    if (latest) t = end[*latest] + (s.start_us - (spans[*latest].start_us + spans[*latest].dur_us));
    const auto stream = std::pair(s.device, s.stream);
    if (auto it = last_on_stream.find(stream); it != last_on_stream.end()) t = std::max(t, end[it->second]);
    start[k] = t;
    end[k] = t + s.dur_us * scale[k];
    done[k] = 1;
    last_on_stream[stream] = k;
    last_source_end = std::max(last_source_end, s.start_us + s.dur_us);
    last_end = std::max(last_end, end[k]);
  }
  // The host's time after the last kernel up to the window's end is kept too.
  const double window_end = std::max(last_end, last_end + (w1 - last_source_end));
  out.total_s = (window_end - w0) * 1e-6;
  // Busy: the union of the replayed intervals.
  std::vector<std::pair<double, double>> iv(n);
  for (size_t k = 0; k < n; ++k) iv[k] = {start[k], end[k]};
  std::sort(iv.begin(), iv.end());
  double busy = 0, lo = iv[0].first, hi = iv[0].second;
  for (size_t k = 1; k < n; ++k) {
    if (iv[k].first > hi) {
      busy += hi - lo;
      lo = iv[k].first;
    }
    hi = std::max(hi, iv[k].second);
  }
  busy += hi - lo;
  out.busy_s = busy * 1e-6;
  out.gap_s = out.total_s - out.busy_s;
  return out;
}

}  // namespace

double wave_factor(uint64_t blocks, int64_t units) {
  if (blocks == 0 || units <= 0) return 1;
  const double u = static_cast<double>(units);
  const double waves = std::ceil(static_cast<double>(blocks) / u);
  return waves * u / static_cast<double>(blocks);
}

OpRetime retime_op(const RetimeInput& in, const predict::Device& source, std::optional<int64_t> source_sms,
                   const predict::Device& target) {
  OpRetime r;
  r.op_class = in.cost.op_class;
  r.calls = in.calls;
  r.kernels = in.kernels;
  r.source_s = in.device_time_s;
  r.predicted_s = r.low_s = r.high_s = in.device_time_s;
  const double calls = static_cast<double>(std::max<uint64_t>(in.calls, 1));
  const double t = in.device_time_s / calls;                                   // per call
  const double kernels_per_call = in.cpu_only ? 0.0 : static_cast<double>(in.kernels) / calls;
  if (in.cost.op_class == OpClass::communication) {
    r.kept = true;
    r.source_bound = r.target_bound = "communication";
    r.why = "communication: no interconnect roof in the device table, kept as on the source";
    return r;
  }
  // Launch-bound on the source: its kernels are shorter than a few launch floors, so
  // they take the target's floor in proportion (the same time when the floors agree).
  if (kernels_per_call > 0 && source.launch_s > 0 && t / kernels_per_call < kLaunchBoundMultiple * source.launch_s) {
    const double ratio = target.launch_s > 0 ? target.launch_s / source.launch_s : 1.0;
    r.predicted_s = r.low_s = r.high_s = in.device_time_s * ratio;
    r.source_bound = r.target_bound = "launch";
    r.why = ratio == 1.0 ? "launch-bound (kernels under 2 launch floors): kept, the floors are equal"
                         : fmt::format("launch-bound: at the ratio of the launch floors ({:.3g})", ratio);
    return r;
  }
  if (!in.cost.flops || !in.cost.bytes) {
    r.kept = true;
    r.source_bound = r.target_bound = "no cost";
    r.why = "no cost model: kept as on the source";
    return r;
  }
  std::string note, no_fast_path;
  const auto ps = peak_for(source, in.cost, note);
  const auto pt = target_peak(target, in.cost, no_fast_path);
  if (!ps || !pt) {
    r.kept = true;
    r.source_bound = r.target_bound = "no cost";
    r.why = fmt::format("no peak for this op on {}: kept as on the source", ps ? target.name : source.name);
    return r;
  }
  const auto [qs, qt] = in.cost.unit == Unit::tensor ? wave_factors(in.grid_blocks, source_sms, target.sm_count)
                                                     : std::pair<double, double>(1, 1);
  const double cs = *in.cost.flops / *ps * qs, ct = *in.cost.flops / *pt * qt;
  const double ms = *in.cost.bytes / source.bandwidth_bytes_per_s, mt = *in.cost.bytes / target.bandwidth_bytes_per_s;
  // The effective roof: the bound roof plus one launch floor per kernel (a kernel moving
  // less than bandwidth × floor bytes cannot come near the bandwidth roof).
  const double rs = std::max(cs, ms) + kernels_per_call * source.launch_s;
  const double rt = std::max(ct, mt) + kernels_per_call * target.launch_s;
  r.source_bound = cs >= ms ? "compute" : "memory";
  r.target_bound = ct >= mt ? "compute" : "memory";
  if (t > 0) r.source_fraction = rs / t;
  const double scaled = t > 0 ? t * rt / rs : rt;                 // efficiency kept (the point)
  const double additive = t > rs ? rt + (t - rs) : scaled;        // time above the roof kept
  // Never below the target's launch-bound threshold unless it already was.
  const double floor = std::min(t, kernels_per_call * kLaunchBoundMultiple * target.launch_s);
  const double point = std::max(scaled, floor), other = std::max(additive, floor);
  r.predicted_s = point * calls;
  r.low_s = std::min(point, other) * calls;
  r.high_s = std::max(point, other) * calls;
  if (!no_fast_path.empty()) r.why = no_fast_path;
  else if (r.source_bound != r.target_bound)
    r.why = fmt::format("{}-bound on {}, {}-bound on {}", r.source_bound, source.name, r.target_bound, target.name);
  else if (r.source_bound == "compute")
    r.why = fmt::format("compute-bound: {} peak ratio {:.3g}{}", in.cost.dtype.empty() ? "fp32" : in.cost.dtype, *ps / *pt,
                        qs != 1 || qt != 1 ? fmt::format(", wave factor {:.3g} here, {:.3g} there", qs, qt) : "");
  else
    r.why = fmt::format("memory-bound: bandwidth ratio {:.3g}{}", source.bandwidth_bytes_per_s / target.bandwidth_bytes_per_s,
                        kernels_per_call * source.launch_s > ms ? ", under its bandwidth-latency size (floor dominates)" : "");
  return r;
}

WhatIf what_if(const TraceAnalysis& a, const predict::Device& target, const std::string& target_origin) {
  if (!a.roofs.device)
    throw model::InputError(fmt::format("--what-if: {}: the trace's own device is unknown ({}); give --device NAME or "
                                        "--ceilings RESULTS.json for the source",
                                        a.file, a.roofs.why_unknown));
  const predict::Device& source = *a.roofs.device;
  const std::optional<int64_t> source_sms = a.sm_count ? a.sm_count : source.sm_count;
  WhatIf w;
  w.target = target.name;
  w.target_origin = target_origin;
  w.target_source = target.source;
  w.source = source.name;
  w.step_count = a.window_kind == "steps" ? a.steps.size() : 1;

  // Per row: the largest grid among its kernels (the one its wave factor is taken on).
  uint32_t rows = 0;
  for (const auto& op : a.ops) rows = std::max(rows, op.row_id + 1);
  std::vector<uint32_t> grid(rows, 0);
  for (const auto& s : a.timeline)
    if (s.row_id != KernelSpan::kNoRow && s.row_id < rows) grid[s.row_id] = std::max(grid[s.row_id], s.grid_blocks);

  std::vector<double> scale_point(rows, 1), scale_low(rows, 1), scale_high(rows, 1);
  std::map<OpClass, ClassWhatIf> classes;
  for (const auto& c : a.classes) classes[c.op_class] = {c.op_class, c.time_s, c.time_s, c.time_s, c.time_s};
  double roof_weighted = 0, roof_weight = 0;
  for (const auto& op : a.ops) {
    RetimeInput in{op.cost, op.calls, op.kernel_launches, op.time_s(), grid[op.row_id], a.cpu_only};
    OpRetime r = retime_op(in, source, source_sms, target);
    r.name = op.name;
    r.input_dims = op.input_dims;
    r.input_types = op.input_types;
    if (op.time_s() > 0) {
      scale_point[op.row_id] = r.predicted_s / op.time_s();
      scale_low[op.row_id] = r.low_s / op.time_s();
      scale_high[op.row_id] = r.high_s / op.time_s();
    }
    ClassWhatIf& c = classes[r.op_class];
    c.op_class = r.op_class;
    c.predicted_s += r.predicted_s - r.source_s;
    c.low_s += r.low_s - r.source_s;
    c.high_s += r.high_s - r.source_s;
    if (r.kept) w.kept_kernels += op.kernel_launches, w.kept_s += r.source_s;
    if (r.source_bound == "launch") w.launch_bound_kernels += op.kernel_launches, w.launch_bound_s += r.source_s;
    // The naive datasheet answer: each op at the ratio of its datasheet roofs, no floors.
    std::string n1, n2;
    if (op.cost.flops && op.cost.bytes && op.time_s() > 0)
      if (auto ps = peak_for(source, op.cost, n1), pt = target_peak(target, op.cost, n2); ps && pt) {
        const double rs = std::max(*op.cost.flops / *ps, *op.cost.bytes / source.bandwidth_bytes_per_s);
        const double rt = std::max(*op.cost.flops / *pt, *op.cost.bytes / target.bandwidth_bytes_per_s);
        if (rs > 0) roof_weighted += op.time_s() * rt / rs, roof_weight += op.time_s();
      }
    w.ops.push_back(std::move(r));
  }
  w.datasheet_ratio = roof_weight > 0 ? roof_weighted / roof_weight : 1.0;
  for (const auto& [c, row] : classes) w.classes.push_back(row);
  std::sort(w.ops.begin(), w.ops.end(), [](const OpRetime& x, const OpRetime& y) {
    const double dx = std::abs(x.predicted_s - x.source_s), dy = std::abs(y.predicted_s - y.source_s);
    return dx != dy ? dx > dy : std::tie(x.name, x.input_dims) < std::tie(y.name, y.input_dims);
  });
  uint64_t unattributed = 0;
  for (const auto& s : a.timeline)
    if (s.row_id == KernelSpan::kNoRow) ++unattributed;
  w.kept_kernels += unattributed;
  w.kept_s += a.unattributed_time_s;

  if (a.cpu_only) {
    // No device timeline: the ops ran one after another on the host's threads.
    double d_point = 0, d_low = 0, d_high = 0, busy = 0;
    for (const auto& r : w.ops) {
      d_point += r.predicted_s - r.source_s;
      d_low += r.low_s - r.source_s;
      d_high += r.high_s - r.source_s;
      busy += r.source_s;
    }
    w.source_total_s = a.total_s;
    w.predicted_total_s = a.total_s + d_point, w.low_total_s = a.total_s + d_low, w.high_total_s = a.total_s + d_high;
    w.source_busy_s = busy;
    w.predicted_busy_s = busy + d_point, w.low_busy_s = busy + d_low, w.high_busy_s = busy + d_high;
    w.notes.push_back("CPU-only trace: ops retimed at their self time, in sequence (no device timeline to replay)");
  } else {
    std::vector<double> sp(a.timeline.size()), sl(a.timeline.size()), sh(a.timeline.size());
    for (size_t k = 0; k < a.timeline.size(); ++k) {
      const uint32_t row = a.timeline[k].row_id;
      const bool attributed = row != KernelSpan::kNoRow && row < rows;
      sp[k] = attributed ? scale_point[row] : 1;
      sl[k] = attributed ? scale_low[row] : 1;
      sh[k] = attributed ? scale_high[row] : 1;
    }
    const Replay p = replay(a.timeline, sp, a.window_start_us, a.window_end_us);
    const Replay l = replay(a.timeline, sl, a.window_start_us, a.window_end_us);
    const Replay h = replay(a.timeline, sh, a.window_start_us, a.window_end_us);
    w.source_total_s = a.total_s;
    w.source_busy_s = a.busy_s;
    // The replay runs from the window's first step to its last; the time between steps
    // that do not touch is outside the window (its total is the union of its steps).
    const double between_steps_s = std::max(0.0, (a.window_end_us - a.window_start_us) * 1e-6 - a.total_s);
    w.predicted_total_s = p.total_s - between_steps_s, w.low_total_s = l.total_s - between_steps_s;
    w.high_total_s = h.total_s - between_steps_s;
    w.predicted_busy_s = p.busy_s, w.low_busy_s = l.busy_s, w.high_busy_s = h.busy_s;
    w.host_gap_s = p.gap_s - between_steps_s;
  }
  if (!source_sms || !target.sm_count)
    w.notes.push_back(fmt::format("no wave factor: the SM/CU count of {} is not known", !source_sms ? source.name : target.name));
  if (w.kept_s > 0)
    w.notes.push_back(fmt::format("{} ({}) with no cost, unattributed, copies or communication kept as on the source",
                                  a.cpu_only ? std::string("ops") : fmt::format("{} kernels", w.kept_kernels),
                                  numbers::si(w.kept_s, "s")));
  return w;
}

WhatIf merge_what_if(const std::vector<WhatIf>& ranks) {
  if (ranks.size() == 1) return ranks.front();
  WhatIf m = ranks.front();
  m.ops.clear();
  m.classes.clear();
  m.notes.clear();
  double slowest_step = -1;
  m.source_total_s = m.predicted_total_s = m.low_total_s = m.high_total_s = 0;
  m.source_busy_s = m.predicted_busy_s = m.low_busy_s = m.high_busy_s = m.host_gap_s = m.kept_s = m.launch_bound_s = 0;
  m.kept_kernels = m.launch_bound_kernels = 0;
  std::map<std::tuple<std::string, std::string, std::string>, OpRetime> ops;
  std::map<OpClass, ClassWhatIf> classes;
  double ratio_weighted = 0, ratio_weight = 0;
  for (const auto& r : ranks) {
    m.source_total_s += r.source_total_s, m.predicted_total_s += r.predicted_total_s;
    m.low_total_s += r.low_total_s, m.high_total_s += r.high_total_s;
    m.source_busy_s += r.source_busy_s, m.predicted_busy_s += r.predicted_busy_s;
    m.low_busy_s += r.low_busy_s, m.high_busy_s += r.high_busy_s, m.host_gap_s += r.host_gap_s;
    m.kept_s += r.kept_s, m.kept_kernels += r.kept_kernels;
    m.launch_bound_s += r.launch_bound_s, m.launch_bound_kernels += r.launch_bound_kernels;
    ratio_weighted += r.datasheet_ratio * r.source_busy_s, ratio_weight += r.source_busy_s;
    if (r.step_count > 0 && r.predicted_total_s / r.step_count > slowest_step) slowest_step = r.predicted_total_s / r.step_count;
    for (const auto& n : r.notes)
      if (std::find(m.notes.begin(), m.notes.end(), n) == m.notes.end()) m.notes.push_back(n);
    for (const auto& c : r.classes) {
      ClassWhatIf& x = classes[c.op_class];
      x.op_class = c.op_class;
      x.source_s += c.source_s, x.predicted_s += c.predicted_s, x.low_s += c.low_s, x.high_s += c.high_s;
    }
    for (const auto& op : r.ops)
      if (auto [it, inserted] = ops.try_emplace(std::tuple(op.name, op.input_dims, op.input_types), op); !inserted) {
        OpRetime& x = it->second;
        x.calls += op.calls, x.kernels += op.kernels;
        x.source_s += op.source_s, x.predicted_s += op.predicted_s, x.low_s += op.low_s, x.high_s += op.high_s;
      }
  }
  m.datasheet_ratio = ratio_weight > 0 ? ratio_weighted / ratio_weight : 1.0;
  for (const auto& [c, row] : classes) m.classes.push_back(row);
  for (auto& [key, op] : ops) m.ops.push_back(std::move(op));
  std::sort(m.ops.begin(), m.ops.end(), [](const OpRetime& x, const OpRetime& y) {
    return std::abs(x.predicted_s - x.source_s) > std::abs(y.predicted_s - y.source_s);
  });
  m.notes.push_back(fmt::format("{} ranks: window and busy times summed over ranks; the slowest rank's predicted step is {}",
                                ranks.size(), numbers::si(slowest_step, "s")));
  return m;
}

model::TraceWhatIf what_if_result(const WhatIf& w) {
  const double steps = static_cast<double>(std::max<size_t>(w.step_count, 1));
  model::TraceWhatIf j;
  j.device = w.target;
  j.origin = w.target_origin;
  j.device_source = w.target_source;
  j.source_device = w.source;
  j.step_count = w.step_count;
  j.step_time_s = {w.source_total_s / steps, w.predicted_total_s / steps, w.low_total_s / steps, w.high_total_s / steps};
  j.busy_s = {w.source_busy_s / steps, w.predicted_busy_s / steps, w.low_busy_s / steps, w.high_busy_s / steps};
  j.window = {w.source_total_s, w.predicted_total_s, w.source_busy_s, w.predicted_busy_s, w.host_gap_s};
  j.naive = {w.source_busy_s / steps, w.datasheet_ratio, w.source_busy_s / steps * w.datasheet_ratio};
  j.kept = {w.kept_kernels, w.kept_s};
  j.launch_bound = {w.launch_bound_kernels, w.launch_bound_s};
  for (const auto& c : w.classes) j.classes.push_back({std::string(to_string(c.op_class)), c.source_s, c.predicted_s, c.low_s, c.high_s});
  for (const auto& r : w.ops) {
    if (r.source_s <= 0) continue;
    // Grouped by what they say: the shape, its time on each side, its bounds and why.
    j.ops.push_back({r.name, shapes_json(r.input_dims), shapes_json(r.input_types), std::string(to_string(r.op_class)), r.calls,
                     r.source_s, r.predicted_s, r.low_s, r.high_s, r.source_bound, r.target_bound, r.source_fraction, r.kept,
                     r.why});
  }
  // Which ops make the interval wide.
  std::vector<const OpRetime*> by_range;
  double range = 0;
  for (const auto& r : w.ops) by_range.push_back(&r), range += r.high_s - r.low_s;
  std::sort(by_range.begin(), by_range.end(),
            [](const OpRetime* x, const OpRetime* y) { return x->high_s - x->low_s > y->high_s - y->low_s; });
  for (size_t i = 0; i < by_range.size() && i < 5; ++i) {
    const OpRetime& r = *by_range[i];
    if (r.high_s - r.low_s <= 0) break;
    j.widest_range.push_back({op_label(r), r.high_s - r.low_s, range > 0 ? (r.high_s - r.low_s) / range : 0.0});
  }
  j.notes = w.notes;
  return j;
}

std::vector<std::pair<std::string, std::vector<std::string>>> what_if_csv_columns(const TraceAnalysis& a,
                                                                                  const std::vector<WhatIf>& targets) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& w : targets) {
    std::map<std::tuple<std::string, std::string, std::string>, const OpRetime*> by_key;
    for (const auto& r : w.ops) by_key[{r.name, r.input_dims, r.input_types}] = &r;
    std::vector<std::string> point, low, high;
    for (const auto& op : a.ops) {
      const auto it = by_key.find({op.name, op.input_dims, op.input_types});
      const bool found = it != by_key.end();
      point.push_back(found ? fmt::format("{}", it->second->predicted_s) : "");
      low.push_back(found ? fmt::format("{}", it->second->low_s) : "");
      high.push_back(found ? fmt::format("{}", it->second->high_s) : "");
    }
    out.emplace_back(fmt::format("what_if {} s", w.target), std::move(point));
    out.emplace_back(fmt::format("what_if {} low s", w.target), std::move(low));
    out.emplace_back(fmt::format("what_if {} high s", w.target), std::move(high));
  }
  return out;
}

nlohmann::json prediction_versus_measured(const model::TraceResult& base, const model::TraceResult& next) {
  using nlohmann::json;
  const std::string measured_name = next.device.table_name.value_or(next.device.name);
  const model::TraceWhatIf* prediction = nullptr;
  if (!base.what_if) return nullptr;
  for (const auto& w : *base.what_if)
    if (!w.device.empty() && predict::same_device_name(w.device, measured_name)) prediction = &w;
  if (!prediction) return nullptr;
  const model::TraceWhatIf& p = *prediction;
  const double steps = std::max(1.0, static_cast<double>(next.window.step_count));
  const double measured_busy = next.window.busy_s.value_or(0.0) / steps;
  auto error = [&](double predicted) { return measured_busy > 0 ? json((predicted - measured_busy) / measured_busy) : json(nullptr); };
  json out;
  out["device"] = p.device;
  out["busy_s"] = {{"measured", measured_busy},
                   {"predicted", p.busy_s.predicted},
                   {"low", p.busy_s.low},
                   {"high", p.busy_s.high},
                   {"error", error(p.busy_s.predicted)},
                   {"inside_interval", measured_busy >= p.busy_s.low && measured_busy <= p.busy_s.high},
                   {"same_time_error", error(p.naive.same_time_busy_s)},
                   {"datasheet_error", error(p.naive.datasheet_busy_s)}};
  const double measured_step = next.window.total_s / steps;
  out["step_time_s"] = {{"measured", measured_step}, {"predicted", p.step_time_s.predicted}};
  // Per class and per op: the prediction's time per step against the measured one's.
  const double base_steps = p.steps();
  std::map<std::string, std::pair<double, double>> classes;
  for (const auto& c : p.classes) classes[c.op_class].first = c.predicted_s / base_steps;
  for (const auto& c : next.classes) classes[c.op_class].second = c.time_s / steps;
  json class_rows = json::array();
  for (const auto& [name, t] : classes)
    if (t.first > 0 || t.second > 0)
      class_rows.push_back({{"class", name}, {"predicted_s", t.first}, {"measured_s", t.second},
                            {"error", t.second > 0 ? json((t.first - t.second) / t.second) : json(nullptr)}});
  out["classes"] = class_rows;
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::pair<double, double>> ops;
  for (const auto& o : p.ops) ops[Key(o.name, shape_key(o.input_dims), shape_key(o.input_types))].first += o.predicted_s / base_steps;
  for (const auto& o : next.ops)
    if (auto it = ops.find(Key(o.name, shape_key(o.input_dims), shape_key(o.input_types))); it != ops.end())
      it->second.second += o.time_s / steps;
  std::vector<std::pair<Key, std::pair<double, double>>> matched;
  for (const auto& [k, t] : ops)
    if (t.first > 0 && t.second > 0) matched.emplace_back(k, t);
  std::sort(matched.begin(), matched.end(), [](const auto& x, const auto& y) { return x.second.second > y.second.second; });
  json op_rows = json::array();
  for (const auto& [k, t] : matched)
    op_rows.push_back({{"name", std::get<0>(k)}, {"input_dims", json::parse(std::get<1>(k))}, {"input_types", json::parse(std::get<2>(k))},
                       {"predicted_s", t.first}, {"measured_s", t.second}, {"error", (t.first - t.second) / t.second}});
  out["ops"] = op_rows;
  return out;
}

}  // namespace lmroof::trace
