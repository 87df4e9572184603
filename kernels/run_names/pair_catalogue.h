#pragma once
// The catalogue's vocabulary of a pair: its combinations, the comparisons it declares
// and the intensity predictions it asks for. One definition for the registry that
// declares them (kernels/registry.h), bench/ that exports them into bench.json and the
// results model that reads them back (analysis/model/results_model.h); plain data, so
// the analysis uses them without linking the kernels.
#include <string>

namespace lmroof {

// One combination of a pair: a variant at an implementation level.
struct VariantImpl {
  std::string variant;
  std::string impl;
  bool operator==(const VariantImpl&) const = default;
};

// "candidate is speedup x faster than baseline": one row of results.json's comparisons.
struct ComparisonDef {
  VariantImpl baseline;
  VariantImpl candidate;
  std::string question;  // e.g. "RMSNorm vs LayerNorm, both fused"
  // The baseline is the candidate's work without the trick, run by the same code (the
  // stability pair's neighbouring pass alone): the cost model must give it strictly less
  // work, and it must then not be slower beyond the pair's A/A floor, else the
  // measurement (not the kernels) made the difference: a less-work control
  // (analysis/claims/identity_controls.h). Declared, not derived: other code doing less
  // work may rightly run slower (GELU's tanh against SwiGLU's product, which the model
  // counts as fewer FLOPs). Absent in results.json: false.
  bool less_work_control = false;
};

// "Draw `model`'s intensity prediction beside the runs of implementation level `impl`"
// (the models analysis/roofs/attention_intensity.h knows).
struct IntensityPrediction {
  std::string impl;
  std::string model;  // "shazeer-decode"
  bool operator==(const IntensityPrediction&) const = default;
};

}  // namespace lmroof
