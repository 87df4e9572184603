#include "cli/shape_options.h"

namespace lmroof::cli {

void add_shape_options(CLI::App& command, ShapeArgs& args) {
  command.add_option("--model", args.model,
                     "A model to derive every pair's shapes from: a preset (lmroof list --models) or a Hugging Face "
                     "config.json");
  command.add_option("--shape", args.shapes,
                     "Add a shape: PAIR:key=value[,key=value...], the pair's first shape with these dimensions "
                     "(e.g. decode:context=32768); repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command.add_option("--context", args.context, "Decode contexts: a list (1k,4k,32k) or a doubling range (1k..128k)");
  command.add_option("--tokens", args.tokens, "Tokens per run for norm, bias, block and mlp (e.g. 2048 or 2k)");
  command.add_option("--batch", args.batch, "Sequences per decode run");
}

}  // namespace lmroof::cli
