// `lmroof merge A.json B.json ... -o fleet.html`: one report across machines.
#include <cstdio>

#include "analysis/io/atomic_write.h"
#include "analysis/io/output_file.h"
#include "analysis/compare/fleet.h"
#include "analysis/io/output_set.h"
#include "cli/commands.h"
#include "reports/fleet_report.h"

namespace lmroof::cli {

int merge(const MergeArgs& args) {
  // The outputs named on the command line first, before anything is read; the
  // charts' names are known once the fleet is, and are checked then, still before
  // any file is written.
  std::vector<std::filesystem::path> named_outputs = {args.html};
  if (!args.results.empty()) named_outputs.push_back(args.results);
  check_outputs(named_outputs, args.inputs);
  // As report and check: never the old results.json of a folder a killed run left half published.
  for (const auto& input : args.inputs) require_complete_set(input.parent_path());
  const fleet::Fleet fleet = fleet::read_fleet(args.inputs, args.labels);
  std::vector<OutputContents> files = report::fleet_report_files(fleet, args.html);
  if (!args.results.empty()) files.insert(files.end() - 1, {args.results, fleet::to_json(fleet).dump(2) + "\n"});
  check_outputs(output_paths(files), args.inputs);
  write_files_as_set(files);
  std::printf("merged %zu machines:", fleet.machines.size());
  for (const auto& m : fleet.machines) std::printf(" %s (%zu runs)%s", m.label.c_str(), m.runs.size(), &m == &fleet.machines.back() ? "" : ",");
  std::printf("\nwrote %s\n", args.html.c_str());
  if (!args.results.empty()) std::printf("wrote %s\n", args.results.c_str());
  return 0;
}

}  // namespace lmroof::cli
