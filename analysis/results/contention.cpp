#include "analysis/results/contention.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/model/json_input.h"
#include "analysis/model/schema.h"
#include "analysis/rules/rules.h"
#include "analysis/stats/statistics.h"

namespace lmroof {

namespace {

namespace counter = model::counter;

std::optional<double> value_of(const BenchEntry& e, std::string_view key) {
  const auto it = e.counters.find(std::string(key));
  return it == e.counters.end() ? std::nullopt : std::optional(it->second);
}

}  // namespace

std::optional<model::RunContention> contention_of(const std::vector<const BenchEntry*>& repetitions) {
  model::RunContention c;
  std::vector<double> waits;
  c.least_oncpu_share = 1;
  for (const BenchEntry* e : repetitions) {
    const auto wait = value_of(*e, counter::kMachineWaitShare);
    const auto steal = value_of(*e, counter::kMachineStealShare);
    if (!wait || !steal) continue;
    // bench.json's counters are checked finite and non-negative when read; shares above
    // 1 are not the bench's (it clamps them) and are held to 1 here.
    const double w = std::min(1.0, *wait), s = std::min(1.0, *steal);
    waits.push_back(w);
    ++c.repetitions;
    // Decided again from the shares, by this build's rule: the bench's flag is its own.
    if (rules::is_contended(w, s)) ++c.contended;
    c.retimes += static_cast<int64_t>(value_of(*e, counter::kMachineRetimes).value_or(0));
    c.worst_wait_share = std::max(c.worst_wait_share, w);
    c.steal_share = std::max(c.steal_share, s);
    c.least_oncpu_share = std::min(c.least_oncpu_share, std::min(1.0, value_of(*e, counter::kMachineOnCpuShare).value_or(1.0)));
  }
  if (c.repetitions == 0) return std::nullopt;
  c.wait_share = std::min(c.worst_wait_share, stats::median(waits));
  return c;
}

std::optional<model::MachineContention> machine_contention(const BenchDocument& bench) {
  model::MachineContention m;
  bool any = false;
  const std::string key(model::context::kContention);
  if (const auto it = bench.context.find(key); it != bench.context.end()) {
    const std::string pointer = model::pointer_append("/context", key);
    if (!it->is_string())
      throw model::InputError(fmt::format("{}: {}: must be a string holding a JSON object", bench.origin, pointer));
    const nlohmann::json doc = nlohmann::json::parse(it->get<std::string>(), nullptr, false);
    if (!doc.is_object())
      throw model::InputError(fmt::format("{}: {}: is not a JSON object", bench.origin, pointer));
    // The context's own part, read by the results reader's rules; the totals are this file's.
    nlohmann::json whole = doc;
    whole["repetitions"] = 0, whole["contended"] = 0, whole["retimes"] = 0, whole["worst_wait_share"] = 0;
    m = model::machine_contention_from(model::JsonCursor(whole, bench.origin, pointer));
    any = true;
  }
  for (const BenchEntry& e : bench.entries) {
    if (e.run_type == "aggregate" || e.error) continue;
    const auto wait = value_of(e, counter::kMachineWaitShare);
    const auto steal = value_of(e, counter::kMachineStealShare);
    if (!wait || !steal) continue;
    any = true;
    ++m.repetitions;
    if (rules::is_contended(std::min(1.0, *wait), std::min(1.0, *steal))) ++m.contended;
    m.retimes += static_cast<int64_t>(value_of(e, counter::kMachineRetimes).value_or(0));
    m.worst_wait_share = std::max(m.worst_wait_share, std::min(1.0, *wait));
  }
  if (!any) return std::nullopt;
  return m;
}

}  // namespace lmroof
