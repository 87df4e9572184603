#pragma once
// The bandwidth curve checked against the level ceilings (issue #34). The curve's
// points are each the best of a few short repeats; the ceilings each the best of
// longer ones, measured before and after the suite, re-measured when they spread. In
// the run that put 20 runs at 109-148% of their roof, every point's repeats agreed
// within a few percent, yet the whole curve was 41-54% below the ceilings: a machine
// state that lasted as long as the curve took (bench/bandwidth_curve.h). No spread
// check sees that; the ceilings do. So each level's curve is read at its ceiling's own
// working set, and a level whose curve differs from its ceiling by more than
// rules::kCurveCeilingAgreement (plus the repeats' own spread) makes the curve
// unstable: runs are then judged at the level ceilings (analysis/roofs/roof_choice.h),
// and results.json, `check` and the report's first screen say so.
// Pure: the CPU (L1, L2, L3 against l1_read, l2_read, l3_read; DRAM against read) and a
// GPU (L2 against l2_read; HBM against dram_read) alike.
#include <optional>
#include <string>
#include <vector>

#include "analysis/model/results_model.h"

namespace lmroof {

using model::level_ceiling_name;  // analysis/model/results_model.h

// One entry per curve level whose ceiling was measured (with its working set), in the
// curve's level order. The curve's rate is read_at(the ceiling's working set); the
// tolerance is rules::kCurveCeilingAgreement plus the larger of the ceiling's spread
// and the spread of the curve points around that set.
std::vector<model::CurveAgreement> curve_agreement(const model::BandwidthCurve& curve,
                                                   const std::vector<model::Ceiling>& ceilings);

// Sets curve.agreement, and curve.unstable with its reason when a level disagrees
// ("L2: the curve reads 117 GB/s at l2_read's 1 MiB, 54% of its 217 GB/s (tolerance
// 15%)..."), or whose level rate (its plateau) disagrees with the ceiling by as much. A
// curve with no level to check stays as it is (nothing contradicts it).
void check_curve_against_ceilings(model::BandwidthCurve& curve, const std::vector<model::Ceiling>& ceilings);


}  // namespace lmroof
