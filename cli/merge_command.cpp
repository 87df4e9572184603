// `lmroof merge A.json B.json ... -o fleet.html`: one report across machines.
#include <cstdio>

#include "analysis/io/atomic_write.h"
#include "analysis/fleet.h"
#include "cli/commands.h"
#include "reports/fleet_report.h"

namespace lmroof::cli {

int merge(const MergeArgs& args) {
  const fleet::Fleet fleet = fleet::read_fleet(args.inputs, args.labels);
  report::write_fleet_report(fleet, args.html);
  std::printf("merged %zu machines:", fleet.machines.size());
  for (const auto& m : fleet.machines) std::printf(" %s (%zu runs)%s", m.label.c_str(), m.runs.size(), &m == &fleet.machines.back() ? "" : ",");
  std::printf("\nwrote %s\n", args.html.c_str());
  if (!args.results.empty()) {
    write_file_atomically(args.results, fleet::to_json(fleet).dump(2) + "\n");
    std::printf("wrote %s\n", args.results.c_str());
  }
  return 0;
}

}  // namespace lmroof::cli
