#pragma once
// The options that choose shapes (--model, --shape, --context, --tokens, --batch),
// shared by `lmroof run` and `lmroof list` so both read them the same way.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace lmroof::cli {

void add_shape_options(CLI::App& command, ShapeArgs& args);

}  // namespace lmroof::cli
