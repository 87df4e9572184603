#include "cli/model_summary.h"

#include <fmt/format.h>

namespace lmroof::cli {

nlohmann::json model_json(const ModelConfig& m) {
  // dims are integers only (results.json's typed reader takes them as such); the kinds
  // are 0/1 flags, absent optional dimensions are left out.
  nlohmann::json dims = {{"d_model", m.hidden},
                         {"q_heads", m.q_heads},
                         {"kv_heads", m.kv_heads},
                         {"head_dim", m.head_dim},
                         {"d_ff", m.d_ff},
                         {"layers", m.layers},
                         {"vocab", m.vocab},
                         {"gated_mlp", m.gated_mlp ? 1 : 0},
                         {"rms_norm", m.norm == NormKind::rmsnorm ? 1 : 0},
                         {"parallel_block", m.parallel_block ? 1 : 0}};
  if (m.sliding_window) dims["sliding_window"] = *m.sliding_window;
  if (m.max_context) dims["max_context"] = *m.max_context;
  return {{"name", m.name}, {"source", m.source}, {"dims", dims}};
}

std::string format_model_line(const nlohmann::json& results) {
  const auto machine = results.find("machine");
  if (machine == results.end() || !machine->contains("suite")) return "";
  const auto& suite = (*machine)["suite"];
  if (!suite.is_object() || !suite.contains("model") || !suite["model"].is_object()) return "";
  const auto& m = suite["model"];
  std::string dims;
  const nlohmann::json dim_values = m.value("dims", nlohmann::json::object());
  for (const auto& [k, v] : dim_values.items())
    dims += fmt::format("{}{} {}", dims.empty() ? "" : ", ", k, v.dump());
  return fmt::format("model: {} ({}): {}\n", m.value("name", "?"), m.value("source", "?"), dims);
}

}  // namespace lmroof::cli
