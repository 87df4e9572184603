#pragma once
// Several machines' results side by side (`lmroof merge`): what the fleet report
// shows of each machine, and the merged file (schema lmroof.fleet/1, docs/cluster.md).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/results_model.h"

namespace lmroof::fleet {

inline constexpr const char* kFleetSchema = "lmroof.fleet/1";

struct Roof {
  std::string name;  // the ceiling's name ("copy_nt", "fp32_fma", ...)
  double value = 0;  // B/s or FLOP/s
};

struct FleetRun {
  std::string id, pair, variant, impl, dtype;
  std::string shape;  // "tokens=4096 d_model=1024"
  double median_s = 0;
  std::optional<double> intensity, flop_per_s;  // FLOP/byte (the bytes the roofline used), FLOP/s
  std::optional<double> roof_fraction;          // achieved / attainable
  std::optional<double> ridge, compute;         // the run's own roof: ridge (FLOP/byte) and compute roof (FLOP/s)
  std::string bound;                            // "memory", "compute" or ""
};

struct FleetClaim {
  std::string id, statement, verdict, measured;
};

struct Machine {
  std::string label;        // unique within the fleet
  std::string description;  // "AMD EPYC (cpu, 2 cores)" / "NVIDIA H200 (cuda)"
  std::string backend, date, hostname, file;
  std::optional<Roof> bandwidth, vector, matrix;  // the roofline's roofs; nullopt when not measured
  std::vector<FleetRun> runs;
  std::vector<FleetClaim> claims;
  model::Results results;  // the file as read, for the merged file
  // The ridge of the vector roof (FLOP/byte), when both roofs were measured.
  std::optional<double> ridge() const;
};

struct Fleet {
  std::vector<Machine> machines;
};

// Reads and validates each results file (model::load_results; errors: one line
// naming the file and field). `labels`
// is empty or one per input; without one a machine is labelled by its description,
// made unique with its date or file name. Throws std::invalid_argument for no
// input, a label count that does not match, or two equal labels.
Fleet read_fleet(const std::vector<std::filesystem::path>& inputs, const std::vector<std::string>& labels);

// "AMD EPYC (cpu, 2 cores)" or "NVIDIA H200 (cuda)".
std::string describe_machine(const model::Machine& machine);

// {"schema": "lmroof.fleet/1", "machines": [{"label", "description", "file", "results": {...}}]}
nlohmann::json to_json(const Fleet& fleet);

}  // namespace lmroof::fleet
