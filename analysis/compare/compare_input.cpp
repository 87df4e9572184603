// model::Results -> compare::Side; see analysis/compare/compare_input.h.
#include "analysis/compare/compare_input.h"

#include <fmt/format.h>

#include "analysis/compare/fleet.h"
#include "analysis/model/results_model.h"
#include "analysis/roofs/roof_choice.h"

namespace lmroof::compare {

Side read_side(const std::filesystem::path& path) {
  const model::Results results = model::load_results(path);  // validates; errors name file and field
  Side side;
  side.file = path.string();
  side.machine = fleet::describe_machine(results.machine);
  side.date = results.machine.date;
  side.runs.reserve(results.runs.size());
  for (const auto& r : results.runs) {
    RunTimes t;
    t.id = r.id;
    t.key = {r.pair, r.variant, r.impl, r.backend, r.dtype, r.shape};
    t.label = fmt::format("{}/{}/{}/{}/{}", r.pair, r.variant, r.impl, r.backend, r.dtype);
    if (!r.shape.empty()) t.label += fmt::format(" {}", results.catalogue.label(r.shape));
    t.samples = r.time_s.samples;
    t.median = r.time_s.median;
    t.roof_fraction = r.roofline.efficiency;
    if (r.dram_probe) t.probe_read = r.dram_probe->read;
    if (r.judged_against && r.judged_against->roof) {
      t.level = judged_level(*r.judged_against);
      t.judged_rate = r.judged_against->value;
    }
    side.runs.push_back(std::move(t));
  }
  for (const auto& f : results.noise_floors) side.noise_floors[f.pair] = f.floor;
  return side;
}

}  // namespace lmroof::compare
