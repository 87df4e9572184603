#pragma once
// The one place `lmroof compare` reads a results file: what compare::Side needs,
// validated, with errors naming the file and the field.
#include <filesystem>
#include <string>

#include "analysis/compare/compare.h"

namespace lmroof::compare {

// Loads and validates a results file (model::load_results). Throws model::InputError,
// one line naming the file and the field ("FILE: /runs/3/time_s/samples/1: ...").
Side read_side(const std::filesystem::path& path);

}  // namespace lmroof::compare
