#pragma once
// What decided a fails or inconclusive verdict (issue #25, docs/claims.md#causes): the
// architecture (the claim's real test), lmroof's kernel on this machine, the machine
// moving, or noise. One rule per cause, in the order they are tried:
//
//   both:         machine  a side is latency-bound (within 2x of the launch ceiling
//                          t0): the fixed cost per launch decides, not the design;
//   inconclusive: machine  the pair's own A/A floor is beyond kMeasurableFloorBound: the
//                          pair cannot be measured here as set up (not noise);
//                 machine  the DRAM probes next to the two runs moved by more than the
//                          pair's noise floor (or the check's noise_floor without one);
//                 noise    otherwise: the effect is within the floor or the interval.
//   fails:        implementation  a side runs below kArchitectureRoofFraction of the
//                          roof it is judged against (the side and its fraction named);
//                 machine  the probes moved by more than the floor;
//                 architecture    both sides at or above that fraction of their roofs
//                          (or a side no roof judges: said so in the detail).
#include <optional>
#include <string>
#include <vector>

#include "analysis/model/results_model.h"
#include "analysis/rules/rules.h"

namespace lmroof {

// The roof fraction that tells architecture from implementation, and why:
// analysis/rules/rules.h.
inline constexpr double kArchitectureRoofFraction = rules::kArchitectureRoofFraction;

// The widest A/A floor at which a pair's comparisons still mean something here, and
// why: analysis/rules/rules.h.
inline constexpr double kMeasurableFloorBound = rules::kMeasurableFloorBound;
using rules::floor_measurable;

using model::Cause;  // and model::to_string(Cause): the names the JSON and the text use

struct VerdictCause {
  Cause cause = Cause::architecture;
  std::string detail;  // one clause: "candidate norm/rmsnorm/fused/... at 31% of l3_read"
};

struct CauseInputs {
  model::Verdict verdict = model::Verdict::fails;
  std::vector<std::pair<std::string, const model::Run*>> sides;  // {"baseline", run}, ...
  std::optional<double> machine_drift;  // the runs' probed DRAM move (model::probed_drift)
  std::optional<double> floor;          // the pair's A/A floor, or the check's noise floor
  bool floor_is_pairs = false;          // floor is the pair's A/A floor (held to kMeasurableFloorBound)
};

// nullopt for holds and not measured.
std::optional<VerdictCause> cause_of(const CauseInputs& in);

// The fraction of its roof a run is judged at: against the DRAM roofs probed next to it
// where it has them, else against the suite's roofs; nullopt when not judged.
std::optional<double> roof_fraction(const model::Run& run);

}  // namespace lmroof
