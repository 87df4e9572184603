#pragma once
// This machine's ceilings measured on the spot (no pairs): `lmroof ceilings` prints
// them (reports/text/summary.h writes them), `lmroof predict --device this` predicts
// from them.
#include <filesystem>
#include <string>

#include "analysis/model/results_model.h"

namespace lmroof::cli {

// backend_name: cpu | cuda | auto. Prints a progress line on stderr. The benchmark
// JSON is written to json_out when given (checked by the caller), else to a
// temporary file that is removed.
model::Results measure_ceilings(const std::string& backend_name, bool quick, const std::filesystem::path& json_out);

}  // namespace lmroof::cli
