#pragma once
// The line printed after a run, and by `lmroof check`, that names the model its shapes
// came from.
#include <string>

#include "analysis/model/results_model.h"

namespace lmroof::cli {

// "model: llama3-8b (kernels/models/llama3-8b.json): d_model 4096, ..."; empty without a model.
std::string format_model_line(const model::Results& results);

}  // namespace lmroof::cli
