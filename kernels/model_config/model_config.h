#pragma once
// A language model's architecture, read from the Hugging Face `config.json` every
// open model ships (or from a built-in preset in kernels/models/, stored in that same
// format). The pairs derive their shapes from it (PairDef::shapes_for_model in
// registry.h); docs/models.md says how.
//
// Keys read (others are ignored): hidden_size | n_embd, num_attention_heads | n_head,
// num_key_value_heads | n_head_kv | num_kv_heads (absent: MHA; Falcon multi_query: 1),
// head_dim (absent: hidden / heads), intermediate_size | n_inner | ffn_hidden_size
// (absent or null in GPT-2/GPT-J/Falcon: 4·hidden), hidden_act | activation_function,
// num_hidden_layers | n_layer, vocab_size, rms_norm_eps (RMSNorm) or layer_norm_eps |
// layer_norm_epsilon (LayerNorm), sliding_window (with use_sliding_window),
// layer_types, sliding_window_pattern, tie_word_embeddings,
// attn_logit_softcapping, final_logit_softcapping, max_position_embeddings |
// n_positions, and the parallel-block flags parallel_attn (Falcon),
// use_parallel_residual (GPT-NeoX), new_decoder_architecture (Falcon-40B); GPT-J's
// block is parallel by design.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

namespace lmroof {

enum class NormKind { layernorm, rmsnorm };

struct ModelConfig {
  std::string name;    // preset name ("llama3-8b") or the file's stem
  std::string source;  // the file it was read from
  std::string family;  // model_type ("llama", "gpt2", ...), "" when absent
  int64_t hidden = 0;
  int64_t q_heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t d_ff = 0;
  int64_t layers = 0;
  int64_t vocab = 0;
  std::string activation;  // as the config spells it: "silu", "gelu_new", ...
  // A gated MLP (SwiGLU, GeGLU: three matrices) rather than a plain one (two).
  bool gated_mlp = false;
  NormKind norm = NormKind::layernorm;
  double norm_eps = 0;
  bool parallel_block = false;
  std::optional<int64_t> sliding_window;
  // Which layers attend through the window (one flag per layer; all false without a
  // window): `layer_types` when the config lists them, Gemma 2's alternation (even
  // layers local), Gemma 3's `sliding_window_pattern` (every Nth layer global), else
  // every layer (Mistral).
  std::vector<bool> sliding_layers;
  // The LM head shares the embedding matrix (`tie_word_embeddings`; absent: the
  // family's default in transformers, true for gpt2/gemma/falcon and unknown
  // families, false for llama/mistral/qwen2/gptj/gpt_neox).
  bool tied_embeddings = false;
  std::optional<double> attn_softcap, final_softcap;
  std::optional<int64_t> max_context;

  std::string attention_kind() const;  // "MHA", "GQA" or "MQA"
  // One line: "hidden 4096, 32 q heads, 8 kv heads (GQA), head_dim 128, d_ff 14336 (swiglu), ..."
  std::string describe() const;
};

// How a run of a pair stands for (part of) one layer of a model, for `lmroof predict`'s
// per-op model (analysis/predict/run_prediction.h). A pair declares it in its PairDef
// (registry.h: model_mapping); the catalogue carries it into bench.json and results.json
// (docs/results-schema.md), so the analysis reads it without the kernels, and a new pair
// that declares one is predicted with no other edit. Data only.
// Every member has a default ({}): a pair's designated initializer names only the
// members it sets (and GCC's -Wmissing-field-initializers then says nothing).
struct ModelSettings {
  std::optional<std::string> family{};      // e.g. "llama" where the pair runs RoPE and no post-norms
  std::optional<std::string> activation{};  // as a config spells it: "silu", "gelu"
  std::optional<bool> gated_mlp{}, parallel_block{};
  std::optional<NormKind> norm{};
  bool operator==(const ModelSettings&) const = default;
};
// Every member has a default ({}), as ModelSettings's.
struct PairModelMapping {
  // ModelConfig fields taken from the run's dimensions, {field, dimension}: the fields
  // are kMappedModelFields.
  std::vector<std::pair<std::string, std::string>> dims{};
  std::string tokens_dim{};  // the run's sequence length (prefill) or context (decode)
  std::string batch_dim{};   // the sequences run at once; empty: one
  std::vector<std::string> decode_impls{};  // levels timed as one decode step; the others as a prefill
  std::vector<std::string> ops{};  // the per-op model's ops the run executes ("qkv", ...); empty: all of the layer's
  ModelSettings settings{};        // for every run of the pair,
  std::vector<std::pair<std::string, ModelSettings>> variant_settings{};  // then for the runs of one variant
  bool operator==(const PairModelMapping&) const = default;
};
inline constexpr std::string_view kMappedModelFields[] = {"hidden", "q_heads", "kv_heads", "head_dim", "d_ff"};

// The largest nesting a config may have; deeper JSON is refused while parsing, before
// the parser or a destructor recurses that far.
inline constexpr int kMaxConfigDepth = 64;

// Parses config.json text; `source` names the file in errors. Throws
// std::invalid_argument with one line naming the file and the key.
ModelConfig parse_model_config(std::string_view text, const std::string& source, const std::string& name);
ModelConfig load_model_config(const std::filesystem::path& file);

// What results.json's suite.model records: {"name", "source", "dims": {integer dimensions}}
// (dims are integers only; kinds are 0/1 flags; absent optional dimensions are left out).
nlohmann::json model_summary_json(const ModelConfig& model);

// The built-in presets, in kernels/models/ (LMROOF_MODELS_DIR overrides the folder).
std::filesystem::path models_dir();
// The kv_heads of a GQA variant of a model with q_heads query heads when the model does
// not say: the largest group of at most 8 query heads that divides q_heads (the decode
// pair's default shapes and `lmroof predict`'s MHA/GQA/MQA comparison both use it).
int64_t default_gqa_kv_heads(int64_t q_heads);
std::vector<std::string> preset_names();  // sorted
// A preset name, or a path to a config.json. Throws naming both when neither exists.
ModelConfig find_model(const std::string& name_or_path);

}  // namespace lmroof
