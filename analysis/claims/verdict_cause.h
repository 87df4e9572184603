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

// The widest A/A floor (bench/paired_rounds.h: a pair's run timed against itself) at
// which a pair's comparisons still mean something here. The lecture's claims are
// mostly 1.1-2x (above); a floor of ±25% already hides a 1.25x effect, and beyond it
// most of the pair's claims could only ever come out "within the noise". Such a floor
// says the setup (a machine shared with others, memory pressure, a cache that holds
// one side but not the other) made identical rounds differ, not that the effects are
// small: the pair is marked "not measurable here as set up" on the first screen and in
// `check`, with the interval its control measured (reports/text/claims_text.cpp), and its
// inconclusive verdicts name that cause instead of noise. Not a machine's number: it
// follows from the size of the claims, on any machine.
inline constexpr double kMeasurableFloorBound = 0.25;
inline bool floor_measurable(double floor) { return floor <= kMeasurableFloorBound; }

enum class Cause { architecture, implementation, machine, noise };
const char* to_string(Cause cause);

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
