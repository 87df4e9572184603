#include "analysis/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "analysis/atomic_write.h"
#include "analysis/machine_info.h"
#include "analysis/roof_choice.h"
#include "analysis/roofline.h"
#include "registry.h"

namespace lmroof {

namespace {

constexpr const char* kCeilingPrefix = "ceiling/";

bool is_ceiling(const BenchEntry& e) { return e.run_name.rfind(kCeilingPrefix, 0) == 0; }

// Iteration entries (one per repetition) grouped by benchmark, in first-seen order.
struct Group {
  std::string run_name;
  std::vector<const BenchEntry*> samples;
  std::string error;
};

std::vector<Group> group_repetitions(const BenchDocument& bench) {
  std::vector<Group> groups;
  std::map<std::string, size_t> index;
  for (const auto& e : bench.entries) {
    if (e.run_type == "aggregate") continue;
    auto [it, inserted] = index.emplace(e.run_name, groups.size());
    if (inserted) groups.push_back({e.run_name, {}, {}});
    Group& g = groups[it->second];
    if (e.error)
      g.error = e.error_message;
    else
      g.samples.push_back(&e);
  }
  return groups;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

nlohmann::json time_stats(const std::vector<double>& samples) {
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
  double var = 0;
  for (double s : samples) var += (s - mean) * (s - mean);
  const double stddev = samples.size() > 1 ? std::sqrt(var / (samples.size() - 1)) : 0.0;
  return {{"median", median_of(samples)},
          {"min", *std::min_element(samples.begin(), samples.end())},
          {"max", *std::max_element(samples.begin(), samples.end())},
          {"mean", mean},
          {"cv", mean > 0 ? stddev / mean : 0.0},
          {"samples", samples}};
}

// ceiling/<backend>/<name>: the best repetition is the roof (as STREAM reports).
nlohmann::json ceiling_from(const Group& g) {
  const std::string rest = g.run_name.substr(std::string(kCeilingPrefix).size());
  const auto slash = rest.find('/');
  std::string backend = rest.substr(0, slash);
  std::string name = slash == std::string::npos ? rest : rest.substr(slash + 1);
  if (auto extra = name.find('/'); extra != std::string::npos) name = name.substr(0, extra);  // "/real_time"
  bool bandwidth = false;
  double best = 0;
  for (const BenchEntry* e : g.samples) {
    auto bytes = e->counters.find("ceiling_bytes");
    auto flops = e->counters.find("ceiling_flops");
    if (bytes != e->counters.end()) {
      bandwidth = true;
      best = std::max(best, bytes->second / e->real_time_s);
    } else if (flops != e->counters.end()) {
      best = std::max(best, flops->second / e->real_time_s);
    }
  }
  nlohmann::json c = {{"name", name},
                      {"kind", bandwidth ? "bandwidth" : "compute"},
                      {"backend", backend},
                      {"value", best},
                      {"unit", bandwidth ? "B/s" : "FLOP/s"},
                      {"source", "measured"},
                      {"detail", g.samples.empty() ? "" : g.samples.front()->label},
                      {"samples", g.samples.size()}};
  // roof choice (analysis/roof_choice.h): a ceiling's working set, the capacity of the
  // cache level it measures and its thread count, when the benchmark published them.
  for (const char* key : {"working_set_bytes", "cache_bytes", "threads"})
    if (!g.samples.empty())
      if (auto it = g.samples.front()->counters.find(key); it != g.samples.front()->counters.end()) c[key] = it->second;
  return c;
}

std::optional<Roof> find_roof(const nlohmann::json& ceilings, const std::string& name) {
  for (const auto& c : ceilings)
    if (c["name"] == name && c["source"] == "measured" && c["value"].get<double>() > 0)
      return Roof{name, c["value"].get<double>()};
  return std::nullopt;
}

nlohmann::json shape_json(const Shape& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : s.dims()) j[k] = v;
  return j;
}

nlohmann::json flops_json(const FlopCount& f) {
  return {{"total", f.total()}, {"matrix", f.matrix}, {"vector", f.vector}, {"special", f.special},
          {"source", "analytic"}, {"analytic_total", f.total()}};
}

// The mean of a counter over the repetitions that carry it; nullopt when none does.
std::optional<double> mean_counter(const std::vector<const BenchEntry*>& samples, const std::string& key) {
  double sum = 0;
  int n = 0;
  for (const BenchEntry* e : samples)
    if (auto it = e->counters.find(key); it != e->counters.end()) sum += it->second, ++n;
  return n ? std::optional<double>(sum / n) : std::nullopt;
}

// Per-class seconds from counters named "<prefix><class>", averaged over repetitions.
std::map<std::string, double> class_seconds(const std::vector<const BenchEntry*>& samples, const std::string& prefix) {
  std::map<std::string, double> seconds;
  for (const BenchEntry* e : samples)
    for (const auto& [key, value] : e->counters)
      if (key.rfind(prefix, 0) == 0) seconds[key.substr(prefix.size())] += value / samples.size();
  return seconds;
}

nlohmann::json breakdown_json(const Cost& cost, const std::vector<const BenchEntry*>& samples) {
  if (cost.flops_by_class.empty()) return nullptr;
  // Kernel-level GPU times (CUPTI trace) beat phase timers when both exist.
  std::map<std::string, double> seconds = class_seconds(samples, "cupti_class_time_s/");
  const bool traced = !seconds.empty();
  if (!traced) seconds = class_seconds(samples, "class_time_s/");
  double total_time = 0;
  for (const auto& [cls, s] : seconds) total_time += s;
  const double total_flops = cost.flops.total();
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& [cls, flops] : cost.flops_by_class) {
    nlohmann::json c = {{"class", cls},
                        {"flops", flops.total()},
                        {"flop_share", total_flops > 0 ? flops.total() / total_flops : 0.0},
                        {"bytes_model", cost.bytes_by_class.count(cls) ? cost.bytes_by_class.at(cls) : 0.0},
                        {"time_s", nullptr},
                        {"time_share", nullptr}};
    if (seconds.count(cls) && total_time > 0) {
      c["time_s"] = seconds[cls];
      c["time_share"] = seconds[cls] / total_time;
    }
    classes.push_back(c);
  }
  return {{"time_source", traced ? "cupti" : seconds.empty() ? "none" : "phase_timers"}, {"classes", classes}};
}

// The run's kernels from its CUPTI trace, in launch order, with each one's share of
// the traced GPU time; null when the run was not traced.
nlohmann::json kernels_json(const nlohmann::json* trace) {
  if (!trace || !trace->is_object()) return nullptr;
  nlohmann::json out = {{"source", "cupti_trace"},
                        {"available", trace->value("available", false)},
                        {"reason", trace->value("reason", nlohmann::json(nullptr))},
                        {"dropped_records", trace->value("dropped_records", 0)},
                        {"total_s", 0.0},
                        {"list", nlohmann::json::array()}};
  if (!out["available"].get<bool>()) return out;
  double total_ns = 0;
  const nlohmann::json& kernels = trace->contains("kernels") ? (*trace)["kernels"] : nlohmann::json::array();
  for (const auto& k : kernels) total_ns += k.value("duration_ns", 0.0);
  for (const auto& k : kernels) {
    const double ns = k.value("duration_ns", 0.0);
    out["list"].push_back({{"name", k.value("name", "")},
                           {"class", k.value("class", "other")},
                           {"grid", k.value("grid", nlohmann::json::array())},
                           {"block", k.value("block", nlohmann::json::array())},
                           {"time_s", ns * 1e-9},
                           {"share", total_ns > 0 ? ns / total_ns : 0.0}});
  }
  out["total_s"] = total_ns * 1e-9;
  return out;
}

nlohmann::json run_json(const RunSpec& spec, const Group& g, const Roofs& roofs, const MachineRoofs& cpu_roofs,
                        const nlohmann::json* trace) {
  const Cost cost = cost_of(spec);
  std::vector<double> times;
  for (const BenchEntry* e : g.samples) times.push_back(e->real_time_s);
  nlohmann::json r;
  r["id"] = spec.bench_name();
  r["pair"] = spec.pair;
  r["variant"] = spec.variant;
  r["impl"] = spec.impl;
  r["backend"] = to_string(spec.backend);
  r["dtype"] = to_string(spec.dtype);
  r["shape"] = shape_json(spec.shape);
  r["time_s"] = time_stats(times);
  r["flops"] = flops_json(cost.flops);
  r["bytes"] = {{"minimum", cost.bytes_minimum}, {"model", cost.bytes_model}, {"measured", nullptr},
                {"measured_source", nullptr}, {"measured_reason", "no profiler counters for this run"}};
  if (!g.samples.empty() && !g.samples.front()->label.empty() && g.samples.front()->label.rfind("cupti:", 0) == 0)
    r["bytes"]["measured_reason"] = g.samples.front()->label;

  // Hardware counters (CUPTI), when the run was measured, replace the model's numbers
  // on the roofline; the analytic ones stay beside them.
  const auto measured_bytes = mean_counter(g.samples, "cupti_dram_bytes");
  const auto measured_flops = mean_counter(g.samples, "cupti_flops");
  // "This kernel moved 1.9x the bytes it must": by design (model) and, with counters,
  // in fact (measured).
  const auto over_minimum = [&](double bytes) {
    return cost.bytes_minimum > 0 ? nlohmann::json(bytes / cost.bytes_minimum) : nlohmann::json(nullptr);
  };
  r["bytes"]["model_over_minimum"] = over_minimum(cost.bytes_model);
  r["bytes"]["measured_over_minimum"] = nullptr;
  r["bytes"]["measured_l2"] = nullptr;
  const auto measured_l2 = mean_counter(g.samples, "cupti_l2_bytes");
  if (measured_bytes) {
    r["bytes"]["measured"] = *measured_bytes;
    r["bytes"]["measured_source"] = "cupti";
    r["bytes"]["measured_reason"] = nullptr;
    r["bytes"]["measured_over_minimum"] = over_minimum(*measured_bytes);
    if (measured_l2) r["bytes"]["measured_l2"] = *measured_l2;
  }
  if (measured_flops) {
    r["flops"]["total"] = *measured_flops;
    r["flops"]["matrix"] = mean_counter(g.samples, "cupti_flops_tensor").value_or(0.0);
    r["flops"]["vector"] = mean_counter(g.samples, "cupti_flops_cuda_core").value_or(0.0);
    r["flops"]["special"] = 0.0;  // MUFU instructions are not counted (docs/metrics.md)
    r["flops"]["source"] = "cupti";
  }
  const double flops = r["flops"]["total"].get<double>();
  const double bytes = measured_bytes ? *measured_bytes : cost.bytes_model;
  r["intensity"] = {{"value", flops / bytes},
                    {"bytes", measured_bytes ? "measured" : "model"},
                    {"minimum", flops / cost.bytes_minimum},
                    {"model", flops / cost.bytes_model},
                    {"measured", measured_bytes ? nlohmann::json(flops / *measured_bytes) : nlohmann::json(nullptr)},
                    // The L2 level of a hierarchical roofline: the same FLOPs over the bytes L2 served.
                    {"measured_l2", measured_bytes && measured_l2 && *measured_l2 > 0
                                        ? nlohmann::json(flops / *measured_l2)
                                        : nlohmann::json(nullptr)}};
  const double t = r["time_s"]["median"].get<double>();
  r["achieved"] = {{"flop_per_s", flops / t}, {"byte_per_s", bytes / t},
                   {"byte_per_s_minimum", cost.bytes_minimum / t}};
  place_on_roofline(r, roofs);
  // Speed of light: the roof this run is judged against by its traffic and working
  // set (analysis/roof_choice.h, docs/cost-model.md), CPU runs only for now.
  r["judged_against"] = spec.backend == Backend::cpu
                            ? judged_against_json(cost, t, cpu_roofs)
                            : nlohmann::json{{"roof", nullptr}, {"reason", "roof choice covers CPU runs only"}};
  r["breakdown"] = breakdown_json(cost, g.samples);
  r["kernels"] = kernels_json(trace);
  return r;
}

Shape without(const Shape& s, const std::vector<std::string>& dims) {
  Shape out;
  for (const auto& [k, v] : s.dims())
    if (std::find(dims.begin(), dims.end(), k) == dims.end()) out.set(k, v);
  return out;
}

nlohmann::json comparisons_json(const std::vector<std::pair<RunSpec, nlohmann::json>>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& pair : all_pairs()) {
    for (const auto& cmp : pair.comparisons) {
      for (const auto& [base_spec, base] : runs) {
        if (base_spec.pair != pair.name || base_spec.variant != cmp.baseline.variant ||
            base_spec.impl != cmp.baseline.impl)
          continue;
        const Shape key = without(base_spec.shape, pair.variant_dims);
        for (const auto& [cand_spec, cand] : runs) {
          if (cand_spec.pair != pair.name || cand_spec.variant != cmp.candidate.variant ||
              cand_spec.impl != cmp.candidate.impl || cand_spec.backend != base_spec.backend ||
              cand_spec.dtype != base_spec.dtype || !(without(cand_spec.shape, pair.variant_dims) == key))
            continue;
          const bool measured = !base["bytes"]["measured"].is_null() && !cand["bytes"]["measured"].is_null();
          const char* bytes_key = measured ? "measured" : "model";
          out.push_back({
              {"pair", pair.name},
              {"question", cmp.question},
              {"baseline", {{"variant", base_spec.variant}, {"impl", base_spec.impl}, {"run", base["id"]}}},
              {"candidate", {{"variant", cand_spec.variant}, {"impl", cand_spec.impl}, {"run", cand["id"]}}},
              {"shape", shape_json(key)},
              {"backend", to_string(base_spec.backend)},
              {"dtype", to_string(base_spec.dtype)},
              {"speedup", base["time_s"]["median"].get<double>() / cand["time_s"]["median"].get<double>()},
              {"bytes_ratio", cand["bytes"][bytes_key].get<double>() / base["bytes"][bytes_key].get<double>()},
              {"bytes_basis", bytes_key},
              {"flops_ratio", cand["flops"]["total"].get<double>() / base["flops"]["total"].get<double>()},
              {"noise", std::max(base["time_s"]["cv"].get<double>(), cand["time_s"]["cv"].get<double>())},
          });
        }
      }
    }
  }
  return out;
}

}  // namespace

nlohmann::json build_results(const BenchDocument& bench, const AnalysisOptions& options) {
  const auto groups = group_repetitions(bench);

  nlohmann::json ceilings = nlohmann::json::array();
  nlohmann::json skipped = nlohmann::json::array();
  std::vector<std::pair<RunSpec, const Group*>> pair_groups;
  for (const Group& g : groups) {
    if (!g.error.empty() || g.samples.empty()) {
      skipped.push_back({{"id", g.run_name}, {"reason", g.error.empty() ? "no samples" : g.error}});
      continue;
    }
    if (is_ceiling(*g.samples.front()))
      ceilings.push_back(ceiling_from(g));
    else
      pair_groups.emplace_back(RunSpec::parse_bench_name(g.run_name), &g);
  }
  if (ceilings.empty() && pair_groups.empty())
    throw std::runtime_error("the benchmark output holds no lmroof ceilings or runs");

  Backend backend = Backend::cpu;
  if (!pair_groups.empty())
    backend = pair_groups.front().first.backend;
  else if (ceilings.front()["backend"] == "cuda")
    backend = Backend::cuda;

  const bool cuda = backend == Backend::cuda;
  // The bandwidth roof is the best copy the machine sustained: on the CPU, with
  // streaming stores when they beat ordinary ones (they skip the write-allocate read).
  std::optional<Roof> bandwidth = find_roof(ceilings, cuda ? "dram_copy" : "copy");
  if (!cuda)
    if (auto nt = find_roof(ceilings, "copy_nt"); nt && (!bandwidth || nt->value > bandwidth->value)) bandwidth = nt;
  Roofs roofs{bandwidth, find_roof(ceilings, "fp32_fma"),
              find_roof(ceilings, cuda ? "bf16_tensor_gemm" : "sgemm"),
              cuda ? find_roof(ceilings, "l2_read") : std::nullopt};
  Roofs fp32_on_cuda = roofs;  // fp32 GEMMs on the GPU run on CUDA cores: the FMA roof applies
  fp32_on_cuda.matrix = roofs.vector;

  const MachineRoofs cpu_roofs = cpu_roofs_from_ceilings(ceilings);  // for run["judged_against"]
  std::vector<std::pair<RunSpec, nlohmann::json>> runs;
  for (const auto& [spec, g] : pair_groups) {
    const auto trace = bench.kernel_traces.find(spec.bench_name());
    runs.emplace_back(spec, run_json(spec, *g,
                                     spec.backend == Backend::cuda && spec.dtype == DType::fp32 ? fp32_on_cuda : roofs,
                                     cpu_roofs,
                                     trace == bench.kernel_traces.end() ? nullptr : &*trace));
  }

  nlohmann::json results;
  results["schema"] = kResultsSchema;
  results["machine"] = describe_machine(backend, bench.context);
  results["machine"]["suite"] = options.suite;
  results["metrics"] = options.metrics.is_null()
                           ? nlohmann::json{{"source", "analytic"},
                                            {"reason", cuda ? "CUPTI counters were not collected for this run"
                                                            : "the CPU backend reads no hardware counters; FLOPs "
                                                              "and bytes come from the cost model"}}
                           : options.metrics;
  results["ceilings"] = ceilings;
  auto roof_name = [](const std::optional<Roof>& r) { return r ? nlohmann::json(r->name) : nlohmann::json(nullptr); };
  results["roofs"] = {{"bandwidth", roof_name(roofs.bandwidth)}, {"vector", roof_name(roofs.vector)},
                      {"matrix", roof_name(roofs.matrix)}, {"l2_bandwidth", roof_name(roofs.l2)}};
  results["runs"] = nlohmann::json::array();
  for (const auto& [spec, run] : runs) results["runs"].push_back(run);
  results["skipped"] = skipped;
  results["comparisons"] = comparisons_json(runs);
  results["claims"] = nlohmann::json::array();
  results["bench_json"] = options.bench_json_name;
  return results;
}

nlohmann::json load_results(const std::filesystem::path& path) {
  nlohmann::json doc = read_json_file(path);
  if (!doc.is_object() || doc.value("schema", "") != kResultsSchema)
    throw std::runtime_error(fmt::format("{}: not a {} document (schema is {})", path.string(), kResultsSchema,
                                         doc.is_object() && doc.contains("schema") ? doc["schema"].dump() : "missing"));
  for (const char* key : {"machine", "ceilings", "runs", "comparisons"})
    if (!doc.contains(key)) throw std::runtime_error(fmt::format("{}: missing '{}'", path.string(), key));
  if (!doc["runs"].is_array()) throw std::runtime_error(fmt::format("{}: 'runs' is not an array", path.string()));
  return doc;
}

void write_results(const nlohmann::json& results, const std::filesystem::path& path) {
  write_file_atomically(path, results.dump(2) + "\n");
}

}  // namespace lmroof
