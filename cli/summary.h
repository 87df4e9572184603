#pragma once
// Terminal tables printed after a run.
#include <string>

#include <nlohmann/json.hpp>

namespace lmroof::cli {

std::string format_runs_table(const nlohmann::json& results);
std::string format_ceilings_table(const nlohmann::json& ceilings);

}  // namespace lmroof::cli
