// results.json's contention fields (analysis/model/contention_model.h), validated here.
#include <fmt/format.h>

#include "analysis/model/contention_model.h"
#include "analysis/model/json_input.h"

namespace lmroof::model {

namespace {
// A process name is its comm: at most 15 bytes on Linux; the bound leaves room for others.
constexpr size_t kMaxProcessName = 64;
constexpr int64_t kMaxCount = int64_t{1} << 40;
}  // namespace

RunContention run_contention_from(const JsonCursor& c) {
  RunContention r;
  r.repetitions = c.at("repetitions").integer(1, kMaxCount);
  r.contended = c.at("contended").integer(0, r.repetitions);
  r.retimes = c.at("retimes").integer(0, kMaxCount);
  r.wait_share = c.at("wait_share").fraction();
  r.worst_wait_share = c.at("worst_wait_share").fraction();
  r.steal_share = c.at("steal_share").fraction();
  r.least_oncpu_share = c.at("least_oncpu_share").fraction();
  if (r.wait_share > r.worst_wait_share)
    c.at("wait_share").fail(fmt::format("{:.6g} exceeds worst_wait_share {:.6g}", r.wait_share, r.worst_wait_share));
  return r;
}

nlohmann::json to_json(const RunContention& c) {
  return {{"repetitions", c.repetitions},         {"contended", c.contended},
          {"retimes", c.retimes},                 {"wait_share", c.wait_share},
          {"worst_wait_share", c.worst_wait_share}, {"steal_share", c.steal_share},
          {"least_oncpu_share", c.least_oncpu_share}};
}

MachineContention machine_contention_from(const JsonCursor& c) {
  MachineContention m;
  m.window_s = c.at("window_s").non_negative();
  m.cpus = c.at("cpus").integer(0, 1 << 20);  // 0: not recorded
  m.threads = c.at("threads").integer(0, 1 << 20);
  m.wait_policy = c.at("wait_policy").one_line(64);
  m.load_before = c.at("load_before").one_line(128);
  m.load_after = c.at("load_after").one_line(128);
  m.steal_share = c.at("steal_share").fraction();
  for (const auto& p : c.at("processes").items()) {
    OtherProcess o;
    o.name = p.at("name").one_line(kMaxProcessName);
    o.cpu_s = p.at("cpu_s").non_negative();
    // Several processes of one name on several cores may exceed one core, never all of them.
    o.core_share = p.at("core_share").non_negative();
    if (m.cpus > 0 && o.core_share > static_cast<double>(m.cpus) * 1.05)
      p.at("core_share").fail(fmt::format("{:.6g} exceeds the machine's {} cores", o.core_share, m.cpus));
    if (!m.processes.empty() && o.cpu_s > m.processes.back().cpu_s)
      p.at("cpu_s").fail("the processes must be listed busiest first");
    m.processes.push_back(std::move(o));
  }
  m.repetitions = c.at("repetitions").integer(0, kMaxCount);
  m.contended = c.at("contended").integer(0, m.repetitions);
  m.retimes = c.at("retimes").integer(0, kMaxCount);
  m.worst_wait_share = c.at("worst_wait_share").fraction();
  return m;
}

nlohmann::json to_json(const MachineContention& m) {
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& p : m.processes) processes.push_back({{"name", p.name}, {"cpu_s", p.cpu_s}, {"core_share", p.core_share}});
  return {{"window_s", m.window_s},
          {"cpus", m.cpus},
          {"threads", m.threads},
          {"wait_policy", m.wait_policy},
          {"load_before", m.load_before},
          {"load_after", m.load_after},
          {"steal_share", m.steal_share},
          {"processes", std::move(processes)},
          {"repetitions", m.repetitions},
          {"contended", m.contended},
          {"retimes", m.retimes},
          {"worst_wait_share", m.worst_wait_share}};
}

}  // namespace lmroof::model
