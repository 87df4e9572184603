#pragma once
// Verdicts the machine, not the kernels, decided (issue 45): a measured claim whose
// evidence rests on a run (or paired rounds) that stayed contended, or on the median of
// a disturbed run that no paired rounds back, cannot hold or fail. It becomes
// inconclusive with the cause `machine` and the reason "busy: 48% of a core taken by
// `chromium`" (or, for a disturbed run on an otherwise quiet machine, `noise`); never
// `implementation` or `architecture`. A claim on a ridge point, model evidence included,
// likewise when most of the measurement's timed repetitions stayed contended: its ridge
// comes from ceilings measured on the busy machine.
#include <vector>

#include "analysis/model/results_model.h"

namespace lmroof {

// Reads results.decided()'s contended and disturbed runs and comparisons.
void mark_machine_verdicts(std::vector<model::ClaimVerdict>& verdicts, const model::Results& results);

}  // namespace lmroof
