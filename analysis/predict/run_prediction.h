#pragma once
// `lmroof run --model M` checked against measurement: each run of a pair that declares
// a model mapping (today attention, MLP and block) it measured, predicted by `lmroof predict`'s own per-op model (step_cost.h:
// per launch max(F/P, B/W) + t0, summed over the ops the run executes) on the ceilings
// of the same results (measured_device.h), at the run's shape and dtype, with the
// model's norm, activation and RoPE. The prediction is a speed of light: a negative
// error (predicted below measured) is the usual case; docs/predict.md#checked-against-measurement.
#include <optional>
#include <string>

#include "analysis/model/results_model.h"
#include "analysis/predict/devices.h"
#include "kernels/model_config/model_config.h"

namespace lmroof::predict {

// The prediction of one run, the model reduced to the part of one layer its pair's
// `mapping` says the run executes (PairModelMapping, kernels/model_config.h: the pair
// declares it in its PairDef); nullopt without a mapping (norm, bias, decode alone, ...).
std::optional<model::PredictedTime> predict_run(const model::Run& run, const PairModelMapping* mapping,
                                                const ModelConfig& model, const Device& device);

// Fills runs[].predicted for every run whose pair declares a model mapping in
// results.catalogue. Returns the reason nothing was predicted ("no bandwidth ceiling to
// predict from"), or nullopt.
std::optional<std::string> predict_runs(model::Results& results, const ModelConfig& model);

}  // namespace lmroof::predict
