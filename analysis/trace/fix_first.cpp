#include "analysis/trace/fix_first.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/numbers/numbers.h"

namespace lmroof::trace {

namespace {

// A kernel a fused pass can absorb: vector work (not a matmul or attention on tensor
// cores) bound by memory or by its launch, with a known cost.
bool fusable(const OpRow& row) {
  return row.cost.unit == Unit::vector && (row.bound == "memory" || row.bound == "launch") && row.cost.flops &&
         row.cost.bytes && row.roof_time_s;
}

// One fused pass over a module call: its largest tensor read once and written once at
// the narrowest dtype that tensor has among the module's ops, plus each distinct 1-d
// parameter of that tensor's last dimension once. nullopt when no tensor is readable.
std::optional<double> fused_bytes_per_call(const std::vector<const OpRow*>& rows) {
  double largest = 0;
  std::vector<int64_t> shape;
  int narrowest = 0;
  std::vector<OpInputs> parsed;
  for (const OpRow* row : rows) parsed.push_back(parse_inputs(row->input_dims, row->input_types, ""));
  for (const auto& in : parsed)
    for (const auto& t : in.inputs) {
      const auto size = dtype_bytes(t.type);
      if (!t.is_tensor || !size) continue;
      double n = 1;
      for (auto d : t.dims) n *= static_cast<double>(d);
      if (n > largest) largest = n, shape = t.dims, narrowest = *size;
      else if (n == largest) narrowest = std::min(narrowest, *size);
    }
  if (largest <= 0 || shape.empty()) return std::nullopt;
  std::set<std::pair<int64_t, std::string>> params;
  double param_bytes = 0;
  for (const auto& in : parsed)
    for (const auto& t : in.inputs)
      if (t.is_tensor && t.dims.size() == 1 && t.dims[0] == shape.back() && shape.size() > 1 &&
          params.emplace(t.dims[0], t.type).second)
        param_bytes += static_cast<double>(t.dims[0]) * dtype_bytes(t.type).value_or(0);
  return 2 * largest * narrowest + param_bytes;
}

}  // namespace

double fused_pass_seconds(double bytes, const predict::Device& device) {
  return bytes / device.bandwidth_bytes_per_s + device.launch_s;
}

std::vector<FixItem> fix_first(const TraceAnalysis& a, size_t limit) {
  using numbers::si;
  std::vector<FixItem> items;
  std::set<std::string> fused_modules;
  const auto& device = a.roofs.device;
  if (device && !a.cpu_only) {
    // (a) Fusing a module's memory-bound kernels.
    std::map<std::string, std::vector<const OpRow*>> by_module;
    for (const auto& row : a.ops)
      if (!row.module.empty() && fusable(row)) by_module[row.module].push_back(&row);
    for (const auto& [type, rows] : by_module) {
      const auto it = a.module_instances.find(type);
      const uint64_t calls = it == a.module_instances.end() ? 0 : it->second;
      double current = 0, kernels = 0;
      for (const OpRow* r : rows) current += r->time_s(), kernels += static_cast<double>(r->kernel_launches);
      if (calls == 0 || kernels / static_cast<double>(calls) < 2) continue;  // one kernel a call: nothing to fuse
      const auto bytes = fused_bytes_per_call(rows);
      if (!bytes) continue;
      const double per_call = fused_pass_seconds(*bytes, *device);
      const double estimate = static_cast<double>(calls) * per_call;
      if (current <= estimate) continue;
      fused_modules.insert(type);
      items.push_back({"fuse_module", type, current, estimate, current - estimate,
                       fmt::format("one kernel per call instead of {:.3g}: reads the module's input and writes its output once "
                                   "({} a call: its largest tensor twice at its narrowest dtype, plus its 1-d parameters) at "
                                   "the memory roof {}, plus one launch ({}); {} calls",
                                   kernels / static_cast<double>(calls), si(*bytes, "B"), si(device->bandwidth_bytes_per_s, "B/s"),
                                   si(device->launch_s, "s"), calls)});
    }
    // (b) Ops far below their roof, outside the modules fused above.
    for (const auto& row : a.ops) {
      if (!row.roof_time_s || !row.fraction_of_roof || *row.fraction_of_roof >= kAttainableFraction) continue;
      if (!row.module.empty() && fused_modules.count(row.module)) continue;
      // No kernel gets below a launch: a call's estimate is at least one launch time.
      const double estimate = std::max(*row.roof_time_s / kAttainableFraction, row.calls * device->launch_s);
      if (row.time_s() <= estimate) continue;
      std::string dims = row.input_dims.size() > 60 ? row.input_dims.substr(0, 57) + "..." : row.input_dims;
      items.push_back({"below_roof", fmt::format("{} {}{}", row.name, dims, row.module.empty() ? "" : " in " + row.module),
                       row.time_s(), estimate, row.time_s() - estimate,
                       fmt::format("a tuned kernel at {:.0f}% of its roof (it runs at {:.1f}%; {}-bound), and at least one "
                                   "launch ({}) a call",
                                   100 * kAttainableFraction, 100 * *row.fraction_of_roof, row.bound, si(device->launch_s, "s"))});
    }
  }
  // (c) Idle gaps in which nothing was queued.
  if (a.idle_host_bound_s > 0)
    items.push_back({"host_bound_idle", "idle gaps with nothing queued", a.idle_host_bound_s, 0, a.idle_host_bound_s,
                     fmt::format("an upper bound: the gaps close if the host queues work ahead (CUDA graphs, less Python per "
                                 "step, an asynchronous data loader); the host's own work is not shortened. {} kernels are "
                                 "launch-bound ({})",
                                 a.launch_bound_kernels, si(a.launch_bound_time_s, "s"))});
  // (d) Communication no compute ran beside: on a device timeline the exposed part; on a
  // CPU-only trace (no timeline to overlap on) the collectives' own time.
  double communication = 0;
  for (const auto& c : a.classes)
    if (c.op_class == OpClass::communication) communication = c.time_s;
  // (Summed over threads, a CPU-only trace's collectives can exceed the window: the window bounds what it can save.)
  const double exposed = a.cpu_only ? std::min(communication, a.total_s) : a.exposed_communication_s.value_or(0);
  if (exposed > 0)
    items.push_back({"exposed_communication", a.cpu_only ? "collectives (CPU-only trace)" : "communication not overlapped by compute",
                     exposed, 0, exposed,
                     fmt::format("an upper bound: the collectives run beside compute (bucketed gradients overlapped with the "
                                 "backward pass, or asynchronous collectives); their own time is not shortened ({} of "
                                 "communication in all, summed over threads and streams)",
                                 si(communication, "s"))});
  std::stable_sort(items.begin(), items.end(), [](const FixItem& x, const FixItem& y) { return x.saving_s > y.saving_s; });
  if (items.size() > limit) items.resize(limit);
  return items;
}

}  // namespace lmroof::trace
