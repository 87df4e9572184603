#pragma once
// Where and how the numbers were produced: the `machine` object of results.json.
#include <nlohmann/json.hpp>

#include "common/workload.h"

namespace lmroof {

// bench_context: Google Benchmark's "context" object (host name, CPU count, date),
// used when present so an analysis of an older bench.json describes that run.
nlohmann::json describe_machine(Backend backend, const nlohmann::json& bench_context);

std::string cpu_model_name();  // from /proc/cpuinfo, "unknown CPU" when unreadable

}  // namespace lmroof
