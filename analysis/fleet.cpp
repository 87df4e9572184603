// Results files -> fleet::Fleet, and the merged file; see analysis/fleet.h.
#include "analysis/fleet.h"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/results.h"

namespace lmroof::fleet {

namespace {

using nlohmann::json;

std::string text_at(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> number_at(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number() || !std::isfinite(it->get<double>())) return std::nullopt;
  return it->get<double>();
}

const json& object_at(const json& obj, const char* key) {
  static const json empty = json::object();
  auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? *it : empty;
}

const json& array_at(const json& obj, const char* key) {
  static const json empty = json::array();
  auto it = obj.find(key);
  return it != obj.end() && it->is_array() ? *it : empty;
}

[[noreturn]] void bad(const std::string& file, const std::string& where, const std::string& why) {
  throw std::invalid_argument(fmt::format("{}: {}: {}", file, where, why));
}

// The ceiling a roof names, when it was measured.
std::optional<Roof> roof(const json& doc, const char* which, const std::string& file) {
  const std::string name = text_at(object_at(doc, "roofs"), which);
  if (name.empty()) return std::nullopt;
  const json& ceilings = array_at(doc, "ceilings");
  for (size_t i = 0; i < ceilings.size(); ++i) {
    if (text_at(ceilings[i], "name") != name) continue;
    auto value = number_at(ceilings[i], "value");
    if (!value || *value <= 0) bad(file, fmt::format("/ceilings/{}/value", i), "expected a positive number");
    return Roof{name, *value};
  }
  bad(file, std::string("/roofs/") + which, fmt::format("names '{}', which is not in /ceilings", name));
}

std::string shape_text(const json& shape) {
  std::string out;
  for (const auto& [name, value] : shape.items()) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value.dump());
  return out;
}

Machine read_machine(const std::filesystem::path& path) {
  const std::string file = path.string();
  json doc;
  try {
    doc = load_results(path);
  } catch (const std::exception& e) {
    throw std::invalid_argument(e.what());  // already "FILE: ..."
  }
  Machine m;
  m.file = file;
  const json& machine = object_at(doc, "machine");
  m.description = describe_machine(machine);
  m.backend = text_at(machine, "backend");
  m.date = text_at(machine, "date");
  m.hostname = text_at(machine, "hostname");
  m.bandwidth = roof(doc, "bandwidth", file);
  m.vector = roof(doc, "vector", file);
  m.matrix = roof(doc, "matrix", file);

  const json& runs = doc["runs"];
  for (size_t i = 0; i < runs.size(); ++i) {
    const json& r = runs[i];
    const std::string where = fmt::format("/runs/{}", i);
    if (!r.is_object()) bad(file, where, "expected an object");
    FleetRun run;
    run.id = text_at(r, "id");
    run.pair = text_at(r, "pair");
    run.variant = text_at(r, "variant");
    run.impl = text_at(r, "impl");
    run.dtype = text_at(r, "dtype");
    if (run.id.empty() || run.pair.empty()) bad(file, where, "expected non-empty \"id\" and \"pair\" strings");
    run.shape = shape_text(object_at(r, "shape"));
    auto median = number_at(object_at(r, "time_s"), "median");
    if (!median || *median <= 0) bad(file, where + "/time_s/median", "expected a positive number");
    run.median_s = *median;
    run.intensity = number_at(object_at(r, "intensity"), "value");
    run.flop_per_s = number_at(object_at(r, "achieved"), "flop_per_s");
    run.roof_fraction = number_at(object_at(r, "roofline"), "efficiency");
    run.ridge = number_at(object_at(r, "roofline"), "ridge");
    run.compute = number_at(object_at(r, "roofline"), "compute");
    run.bound = text_at(r, "bound");
    m.runs.push_back(std::move(run));
  }
  const json& claims = array_at(doc, "claims");
  for (size_t i = 0; i < claims.size(); ++i) {
    FleetClaim c{text_at(claims[i], "id"), text_at(claims[i], "statement"), text_at(claims[i], "verdict"),
                 text_at(claims[i], "measured")};
    if (c.id.empty() || c.verdict.empty()) bad(file, fmt::format("/claims/{}", i), "expected \"id\" and \"verdict\" strings");
    m.claims.push_back(std::move(c));
  }
  m.document = std::move(doc);
  return m;
}

}  // namespace

std::string describe_machine(const json& machine) {
  const std::string backend = text_at(machine, "backend");
  const json& gpu = object_at(machine, "gpu");
  if (!text_at(gpu, "name").empty()) return fmt::format("{} ({})", text_at(gpu, "name"), backend.empty() ? "cuda" : backend);
  const std::string cpu = text_at(machine, "cpu_model").empty() ? "unknown CPU" : text_at(machine, "cpu_model");
  auto cores = machine.find("cores");
  if (cores != machine.end() && cores->is_number_integer())
    return fmt::format("{} ({}, {} cores)", cpu, backend.empty() ? "cpu" : backend, cores->get<int64_t>());
  return fmt::format("{} ({})", cpu, backend.empty() ? "cpu" : backend);
}

std::optional<double> Machine::ridge() const {
  if (!bandwidth || !vector) return std::nullopt;
  return vector->value / bandwidth->value;
}

Fleet read_fleet(const std::vector<std::filesystem::path>& inputs, const std::vector<std::string>& labels) {
  if (inputs.empty()) throw std::invalid_argument("merge: no results files given");
  if (!labels.empty() && labels.size() != inputs.size())
    throw std::invalid_argument(fmt::format("--label: {} labels for {} results files (give one per file, or none)",
                                            labels.size(), inputs.size()));
  Fleet fleet;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Machine m = read_machine(inputs[i]);
    if (!labels.empty()) {
      if (labels[i].empty()) throw std::invalid_argument(fmt::format("--label {}: empty label for {}", i + 1, inputs[i].string()));
      m.label = labels[i];
    } else {
      m.label = m.description;
    }
    fleet.machines.push_back(std::move(m));
  }
  // Default labels repeat when one machine kind ran twice: its date, else its file,
  // tells the runs apart.
  auto disambiguate = [&](auto suffix) {
    std::map<std::string, int> count;
    for (const auto& m : fleet.machines) ++count[m.label];
    for (auto& m : fleet.machines)
      if (count[m.label] > 1) m.label += " \u00b7 " + suffix(m);
  };
  if (labels.empty()) {
    disambiguate([](const Machine& m) { return m.date.empty() ? m.file : m.date; });
    disambiguate([](const Machine& m) { return m.file; });
  }
  std::set<std::string> seen;
  for (const auto& m : fleet.machines)
    if (!seen.insert(m.label).second)
      throw std::invalid_argument(labels.empty() ? fmt::format("merge: {} is given twice", m.file)
                                                 : fmt::format("--label: '{}' is given twice", m.label));
  return fleet;
}

json to_json(const Fleet& fleet) {
  json machines = json::array();
  for (const auto& m : fleet.machines)
    machines.push_back({{"label", m.label}, {"description", m.description}, {"file", m.file}, {"results", m.document}});
  return {{"schema", kFleetSchema}, {"machines", machines}};
}

}  // namespace lmroof::fleet
