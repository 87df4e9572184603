#pragma once
// The one place `lmroof compare` reads a results file: what compare::Side needs,
// validated, with errors naming the file and the field.
#include <filesystem>
#include <string>

#include "analysis/compare.h"

namespace lmroof::compare {

// Loads a results file. Throws (one line, "FILE: /runs/3/time_s/samples: ...") for
// a file that is not a results document, or a run without usable repetition times.
Side read_side(const std::filesystem::path& path);

}  // namespace lmroof::compare
