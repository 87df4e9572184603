#pragma once
// Hand-written bench.json documents for the analysis tests, completed the way `lmroof
// run` completes a real one at measurement time: the registry's pair catalogue in the
// context (unless the test recorded its own), and each pair run's cost as counters (bench/cost_counters.h) where the
// test did not write its own. The analysis itself supplies neither.
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/model/results_model.h"
#include "analysis/model/schema.h"
#include "bench/catalogue.h"
#include "bench/cost_counters.h"
#include "registry.h"

namespace lmroof::test {

// One Google Benchmark repetition of run `name` (Google Benchmark appends "/real_time")
// that took `ms` milliseconds, with `counters` beside its times.
inline nlohmann::json bench_entry(const std::string& name, double ms,
                                  nlohmann::json counters = nlohmann::json::object()) {
  nlohmann::json e = {{"name", name + "/real_time"}, {"run_name", name + "/real_time"}, {"run_type", "iteration"},
                      {"iterations", 10}, {"real_time", ms}, {"cpu_time", ms}, {"time_unit", "ms"}};
  for (auto& [k, v] : counters.items()) e[k] = v;
  return e;
}

inline nlohmann::json as_measured(nlohmann::json bench) {
  if (!bench.is_object()) return bench;
  if (!bench.contains("benchmarks") || !bench["benchmarks"].is_array()) return bench;
  if (!bench.contains("context") || !bench["context"].contains(std::string(model::context::kCatalogue)))
    bench["context"][std::string(model::context::kCatalogue)] = model::to_json(registry_catalogue()).dump();
  for (auto& e : bench["benchmarks"]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) continue;
    const std::string name = e.value("name", "");
    if (name.rfind("ceiling/", 0) == 0 || e.contains(std::string(model::counter::kFlops)) || e.value("error_occurred", false))
      continue;
    try {
      for (const auto& [counter, value] : bench::cost_counters(cost_of(RunSpec::parse_bench_name(name)))) e[counter] = value;
    } catch (const std::exception&) {
      // not a registry run: the analysis says what is wrong with it
    }
  }
  return bench;
}

}  // namespace lmroof::test
