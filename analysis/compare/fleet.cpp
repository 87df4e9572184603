// Results files -> fleet::Fleet, and the merged file; see analysis/compare/fleet.h.
#include "analysis/compare/fleet.h"

#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/model/json_input.h"

namespace lmroof::fleet {

namespace {

// The ceiling a roof names (the model checked that it exists).
std::optional<Roof> roof(const model::Results& results, const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  const model::Ceiling* c = results.ceiling(*name);
  if (!c) return std::nullopt;
  return Roof{c->name, c->value};
}

// One machine from its validated results; `file` is where they came from.
Machine machine_from(model::Results results, const std::string& file) {
  Machine m;
  m.results = std::move(results);
  const model::Results& r = m.results;
  m.file = file;
  m.description = describe_machine(r.machine);
  m.backend = r.machine.backend;
  m.date = r.machine.date;
  m.hostname = r.machine.hostname;
  m.bandwidth = roof(r, r.roofs.bandwidth);
  m.vector = roof(r, r.roofs.vector);
  m.matrix = roof(r, r.roofs.matrix);
  for (const auto& run : r.runs) {
    FleetRun f;
    f.id = run.id;
    f.pair = run.pair;
    f.variant = run.variant;
    f.impl = run.impl;
    f.dtype = run.dtype;
    f.shape = r.catalogue.label(run.shape);
    f.median_s = run.time_s.median;
    if (run.intensity.value > 0) f.intensity = run.intensity.value;
    if (run.achieved.flop_per_s > 0) f.flop_per_s = run.achieved.flop_per_s;
    f.roof_fraction = run.roofline.efficiency;
    f.ridge = run.roofline.ridge;
    f.compute = run.roofline.compute;
    if (run.bound) f.bound = std::string(model::to_string(*run.bound));
    m.runs.push_back(std::move(f));
  }
  for (const auto& c : r.claims) m.claims.push_back({c.id, c.statement, std::string(model::to_string(c.verdict)), c.measured});
  return m;
}

// The machines of a merged file (lmroof.fleet/1, written by `merge --results`), each
// validated like a results file; an error names the fleet file and the full pointer
// ("fleet.json: /machines/1/results/runs/3/id: ...").
std::vector<Machine> machines_of_fleet_file(const nlohmann::json& doc, const std::string& file) {
  const model::JsonCursor root(doc, file);
  const model::JsonCursor list = root.at("machines");
  std::vector<Machine> out;
  const std::vector<model::JsonCursor> entries = list.items();
  if (entries.empty()) list.fail("a merged file with no machines");
  for (const model::JsonCursor& entry : entries) {
    const std::string prefix = entry.pointer() + "/results";
    model::Results results;
    try {
      results = model::results_from_json(entry.at("results").json(), file);
    } catch (const model::InputError& e) {
      // The reader names pointers inside the results document: put them under this entry.
      std::string what = e.what();
      const std::string head = file + ": /";
      if (what.rfind(head, 0) == 0) what = file + ": " + prefix + "/" + what.substr(head.size());
      throw model::InputError(what);
    }
    Machine m = machine_from(std::move(results), entry.at("file").string(model::kMaxTextLength));
    m.label = entry.at("label").one_line(model::kMaxNameLength);
    if (m.label.empty()) entry.at("label").fail("empty label");
    out.push_back(std::move(m));
  }
  return out;
}

// A results file is one machine; a merged fleet file is each of its machines, with
// the labels it was merged under.
std::vector<Machine> read_input(const std::filesystem::path& path, bool& labelled) {
  const nlohmann::json doc = model::read_json_file(path);
  if (doc.is_object() && doc.contains("schema") && doc["schema"] == kFleetSchema) {
    labelled = true;
    return machines_of_fleet_file(doc, path.string());
  }
  labelled = false;
  std::vector<Machine> one;
  one.push_back(machine_from(model::results_from_json(doc, path.string()), path.string()));
  return one;
}

}  // namespace

std::string describe_machine(const model::Machine& machine) {
  const std::string backend = machine.backend.empty() ? (machine.gpu ? "cuda" : "cpu") : machine.backend;
  if (machine.gpu && !machine.gpu->name.empty()) return fmt::format("{} ({})", machine.gpu->name, backend);
  const std::string cpu = machine.cpu_model.empty() ? "unknown CPU" : machine.cpu_model;
  if (machine.cores > 0) return fmt::format("{} ({}, {} cores)", cpu, backend, machine.cores);
  return fmt::format("{} ({})", cpu, backend);
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
  std::vector<bool> keeps_label;  // machines from a merged file keep the label they had
  // One machine's results given twice (a.json and a fleet already holding it) would be
  // counted twice under two labels: refused, by content.
  std::vector<std::string> contents;
  for (size_t i = 0; i < inputs.size(); ++i) {
    bool labelled = false;
    std::vector<Machine> machines = read_input(inputs[i], labelled);
    if (labelled && !labels.empty())
      throw std::invalid_argument(fmt::format(
          "--label: {} is a merged file whose machines keep their labels; give --label only with results files",
          inputs[i].string()));
    for (Machine& m : machines) {
      if (!labelled) {
        if (!labels.empty() && labels[i].empty())
          throw std::invalid_argument(fmt::format("--label {}: empty label for {}", i + 1, inputs[i].string()));
        if (!labels.empty())
          if (const auto bad = model::terminal_unsafe_character(labels[i]))
            throw std::invalid_argument(fmt::format("--label {}: holds {}, a control or direction character; a label must print as one line",
                                                    i + 1, *bad));
        m.label = labels.empty() ? m.description : labels[i];
      }
      std::string content = model::to_json(m.results).dump();
      for (size_t k = 0; k < contents.size(); ++k)
        if (contents[k] == content)
          throw std::invalid_argument(fmt::format(
              "{}: the results of machine '{}' are already merged from {} (as '{}'); give each machine once",
              inputs[i].string(), m.label, fleet.machines[k].file, fleet.machines[k].label));
      contents.push_back(std::move(content));
      keeps_label.push_back(labelled);
      fleet.machines.push_back(std::move(m));
    }
  }
  // Default labels repeat when one machine kind ran twice: its date, else its file,
  // tells the runs apart.
  auto disambiguate = [&](auto suffix) {
    std::map<std::string, int> count;
    for (const auto& m : fleet.machines) ++count[m.label];
    for (size_t k = 0; k < fleet.machines.size(); ++k) {
      Machine& m = fleet.machines[k];
      if (count[m.label] > 1 && !keeps_label[k]) m.label += " \u00b7 " + suffix(m);
    }
  };
  if (labels.empty()) {
    disambiguate([](const Machine& m) { return m.date.empty() ? m.file : m.date; });
    disambiguate([](const Machine& m) { return m.file; });
  }
  std::set<std::string> seen;
  for (const auto& m : fleet.machines)
    if (!seen.insert(m.label).second)
      throw std::invalid_argument(labels.empty() ? fmt::format("merge: machine '{}' ({}) is given twice", m.label, m.file)
                                                 : fmt::format("--label: '{}' is given twice", m.label));
  return fleet;
}

nlohmann::json to_json(const Fleet& fleet) {
  nlohmann::json machines = nlohmann::json::array();
  for (const auto& m : fleet.machines)
    machines.push_back({{"label", m.label}, {"description", m.description}, {"file", m.file}, {"results", model::to_json(m.results)}});
  return {{"schema", kFleetSchema}, {"machines", machines}};
}

}  // namespace lmroof::fleet
