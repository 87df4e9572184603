#pragma once
// How a run names the model its shapes came from: results.json's suite.model
// ({"name", "source", "dims": {integer dimensions}}) and the line printed after a run.
#include <nlohmann/json.hpp>
#include <string>

#include "model_config.h"

namespace lmroof::cli {

nlohmann::json model_json(const ModelConfig& model);
// "model: llama3-8b (kernels/models/llama3-8b.json): d_model 4096, ..."; empty without a model.
std::string format_model_line(const nlohmann::json& results);

}  // namespace lmroof::cli
