#pragma once
// Shapes of the user's choosing: a model (`--model`), sizes (`--tokens`, `--batch`,
// `--context`) and extra shapes (`--shape PAIR:key=value,...`). bench::plan_suite
// (suite.h) turns them into runs; docs/models.md describes the rules.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/run_names/workload.h"
#include "kernels/model_config/model_config.h"

namespace lmroof::bench {

// One `--shape PAIR:key=value[,key=value...]`: adds one shape to PAIR, its first
// shape with these dimensions changed.
struct ShapeOverride {
  std::string text;  // as given, for error messages
  std::string pair;
  std::vector<std::pair<std::string, int64_t>> dims;
};

struct ShapeRequest {
  std::optional<ModelConfig> model;
  std::optional<int64_t> tokens;
  std::optional<int64_t> batch;
  std::vector<int64_t> contexts;  // empty: the suite's (or, with a model, the default sweep)
  std::vector<ShapeOverride> overrides;

  // False for a plain run: the suites' own shapes, exactly as before.
  bool active() const { return model || tokens || batch || !contexts.empty() || !overrides.empty(); }
};

// "4096", "4k" (x1024) or "1m" (x1024²); positive, at most kMaxDim. `what` names the
// option in the error ("--tokens").
int64_t parse_size(std::string_view text, std::string_view what);
// "1k,4k,32k" (a list) or "1k..128k" (from..to, doubling; `to` included when reached).
std::vector<int64_t> parse_context_list(std::string_view text);
// "decode:context=32768,batch=2". Pair and key names are checked against the catalogue
// later (plan_suite), where the pair's dimensions are known.
ShapeOverride parse_shape_override(std::string_view text);

// The request from the command line's strings (empty = not given), for `lmroof run`,
// `lmroof list` and lmroof_bench alike. Throws std::invalid_argument naming the option.
ShapeRequest make_shape_request(const std::string& model, const std::string& tokens, const std::string& batch,
                                const std::string& context, const std::vector<std::string>& shapes);

// The sizes a model-derived suite runs at: the user's, else these defaults.
struct ModelSizes {
  int64_t tokens;
  int64_t batch;
  std::vector<int64_t> contexts;
};
ModelSizes default_model_sizes(Backend backend, bool quick);

// "1k" for 1024, else the number.
std::string size_label(int64_t n);

}  // namespace lmroof::bench
