#include "reports/text/model_summary.h"

#include <fmt/format.h>

namespace lmroof::cli {

std::string format_model_line(const model::Results& results) {
  const auto& m = results.machine.suite.model;
  if (!m) return "";
  std::string dims;  // in the catalogue's dimension order, as every shape is shown
  for (const auto& [k, v] : results.catalogue.ordered(m->dims)) dims += fmt::format("{}{} {}", dims.empty() ? "" : ", ", k, v);
  return fmt::format("model: {} ({}): {}\n", m->name, m->source, dims);
}

}  // namespace lmroof::cli
