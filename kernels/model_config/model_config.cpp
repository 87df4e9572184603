#include "kernels/model_config/model_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "kernels/run_names/shape.h"
#include "lmroof/build_info.h"

namespace lmroof {

namespace {

using json = nlohmann::json;

bool in(std::string_view value, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

// Families whose code computes head_dim as hidden / heads (they have no head_dim key).
bool family_fixes_head_dim(std::string_view family) { return in(family, {"gpt2", "gptj", "falcon", "gpt_neox"}); }
// Families whose MLP width defaults to 4·hidden when the config leaves it out (or null).
bool family_defaults_d_ff(std::string_view family) { return in(family, {"gpt2", "gptj", "falcon"}); }

// Reads typed keys from one config object, each error naming the file and the key.
class Reader {
 public:
  Reader(const json& j, const std::string& source) : j_(j), source_(source) {}

  // The first of `names` present and not null; nullptr when none is.
  const json* find(std::initializer_list<const char*> names, std::string* used = nullptr) const {
    for (const char* name : names) {
      auto it = j_.find(name);
      if (it != j_.end() && !it->is_null()) {
        if (used) *used = name;
        return &*it;
      }
    }
    return nullptr;
  }

  [[noreturn]] void fail(std::string_view key, std::string_view what) const {
    throw std::invalid_argument(fmt::format("{}: '{}' {}", source_, key, what));
  }

  std::optional<int64_t> optional_count(std::initializer_list<const char*> names) const {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(key, fmt::format("must be a number, got {} {}", v->type_name(), short_dump(*v)));
    if (!v->is_number_integer()) fail(key, fmt::format("must be a whole number, got {}", v->dump()));
    if (v->is_number_unsigned() ? v->get<uint64_t>() > static_cast<uint64_t>(kMaxDim) : v->get<int64_t>() > kMaxDim)
      fail(key, fmt::format("= {} is larger than the limit {}", v->dump(), kMaxDim));
    const int64_t n = v->get<int64_t>();
    if (n <= 0) fail(key, fmt::format("must be positive, got {}", n));
    return n;
  }

  int64_t count(std::initializer_list<const char*> names) const {
    if (auto n = optional_count(names)) return *n;
    fail(*names.begin(), "is missing" + alternatives(names));
  }

  std::optional<double> optional_positive(std::initializer_list<const char*> names) const {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(key, fmt::format("must be a number, got {} {}", v->type_name(), short_dump(*v)));
    const double x = v->get<double>();
    if (!(x > 0)) fail(key, fmt::format("must be positive, got {}", v->dump()));
    return x;
  }

  std::optional<bool> optional_flag(const char* name) const {
    const json* v = find({name});
    if (!v) return std::nullopt;
    if (!v->is_boolean()) fail(name, fmt::format("must be true or false, got {} {}", v->type_name(), short_dump(*v)));
    return v->get<bool>();
  }

  std::optional<std::string> optional_text(std::initializer_list<const char*> names) const {
    std::string key;
    const json* v = find(names, &key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(key, fmt::format("must be a string, got {} {}", v->type_name(), short_dump(*v)));
    return v->get<std::string>();
  }

 private:
  static std::string short_dump(const json& v) {
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
  }
  static std::string alternatives(std::initializer_list<const char*> names) {
    if (names.size() < 2) return "";
    std::string out = " (or";
    for (auto it = names.begin() + 1; it != names.end(); ++it) out += fmt::format(" '{}'", *it);
    return out + ")";
  }

  const json& j_;
  const std::string& source_;
};

// Parses with a callback that refuses nesting beyond kMaxConfigDepth as soon as the
// parser opens the too-deep level: nothing ever recurses (or destroys) deeper than that.
// It also refuses a key given twice in one object (nlohmann keeps the last silently)
// and a NUL byte (nlohmann's lexer takes it for the end of the input).
json parse_bounded(std::string_view text, const std::string& source) {
  if (text.find('\0') != std::string_view::npos)
    throw std::invalid_argument(fmt::format("{}: not valid JSON: a NUL byte", source));
  std::string top_key;
  // keys_at[d]: the keys seen so far in the object open at depth d.
  std::vector<std::vector<std::string>> keys_at(kMaxConfigDepth + 2);
  auto guard = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && depth == 1 && parsed.is_string()) top_key = parsed.get<std::string>();
    if (event == json::parse_event_t::object_start && depth + 1 < static_cast<int>(keys_at.size()))
      keys_at[depth + 1].clear();
    if (event == json::parse_event_t::key && parsed.is_string() && depth < static_cast<int>(keys_at.size())) {
      auto& seen = keys_at[depth];
      const std::string key = parsed.get<std::string>();
      if (std::find(seen.begin(), seen.end(), key) != seen.end())
        throw std::invalid_argument(fmt::format("{}: the key {} is given twice in one object", source,
                                                json(key).dump(-1, ' ', true, json::error_handler_t::replace)));
      seen.push_back(key);
    }
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxConfigDepth)
      throw std::invalid_argument(
          top_key.empty() ? fmt::format("{}: JSON nested deeper than {} levels", source, kMaxConfigDepth)
                          : fmt::format("{}: '{}' is nested deeper than {} levels", source, top_key, kMaxConfigDepth));
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), guard);
  } catch (const json::exception& e) {  // parse errors, and out_of_range for numbers such as 1e400
    std::string what = e.what();
    std::replace_if(what.begin(), what.end(), [](unsigned char c) { return c < 0x20; }, ' ');
    throw std::invalid_argument(fmt::format("{}: not valid JSON: {}", source, what));
  }
}

// One flag per layer: does it attend through the sliding window (docs/models.md)?
std::vector<bool> sliding_layers(const Reader& r, const ModelConfig& m) {
  std::vector<bool> out(static_cast<size_t>(m.layers), false);
  if (!m.sliding_window) return out;
  if (const json* types = r.find({"layer_types"})) {
    if (!types->is_array() || types->size() != out.size())
      r.fail("layer_types", fmt::format("must list one type per layer ({}), got {}", m.layers, types->dump().substr(0, 40)));
    for (size_t i = 0; i < out.size(); ++i) {
      const json& t = (*types)[i];
      if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
        r.fail("layer_types", fmt::format("entry {} must be \"sliding_attention\" or \"full_attention\"", i));
      out[i] = t == "sliding_attention";
    }
    return out;
  }
  const auto pattern = r.optional_count({"sliding_window_pattern"});
  for (size_t i = 0; i < out.size(); ++i) {
    if (pattern) out[i] = (i + 1) % static_cast<size_t>(*pattern) != 0;  // Gemma 3: every Nth layer is global
    else if (m.family == "gemma2") out[i] = i % 2 == 0;                   // Gemma 2: local, global, local, ...
    else out[i] = true;                                                   // Mistral: every layer
  }
  return out;
}

std::string mlp_kind(const ModelConfig& m) {
  if (!m.gated_mlp) return m.activation;
  return m.activation.starts_with("gelu") ? "geglu" : "swiglu";
}

}  // namespace

std::string ModelConfig::attention_kind() const {
  if (kv_heads == q_heads) return "MHA";
  return kv_heads == 1 ? "MQA" : "GQA";
}

std::string ModelConfig::describe() const {
  std::string out = fmt::format("hidden {}, {} q heads, {} kv heads ({}), head_dim {}, d_ff {} ({}), {}, {} block, "
                                "{} layers, vocab {}",
                                hidden, q_heads, kv_heads, attention_kind(), head_dim, d_ff, mlp_kind(*this),
                                norm == NormKind::rmsnorm ? "RMSNorm" : "LayerNorm", parallel_block ? "parallel" : "serial",
                                layers, vocab);
  if (sliding_window) out += fmt::format(", sliding window {}", *sliding_window);
  if (attn_softcap) out += fmt::format(", attention soft-cap {}", *attn_softcap);
  if (final_softcap) out += fmt::format(", final soft-cap {}", *final_softcap);
  return out;
}

ModelConfig parse_model_config(std::string_view text, const std::string& source, const std::string& name) {
  const json j = parse_bounded(text, source);
  if (!j.is_object()) throw std::invalid_argument(fmt::format("{}: a config.json must be a JSON object, got {}", source, j.type_name()));
  const Reader r(j, source);

  ModelConfig m;
  m.name = name;
  m.source = source;
  m.family = r.optional_text({"model_type"}).value_or("");

  std::string hidden_key, heads_key;
  r.find({"hidden_size", "n_embd"}, &hidden_key);
  r.find({"num_attention_heads", "n_head"}, &heads_key);
  m.hidden = r.count({"hidden_size", "n_embd"});
  m.q_heads = r.count({"num_attention_heads", "n_head"});
  m.layers = r.count({"num_hidden_layers", "n_layer"});
  m.vocab = r.count({"vocab_size"});

  // kv heads: Falcon's multi_query means one, unless its new decoder architecture names a count.
  const bool new_decoder = r.optional_flag("new_decoder_architecture").value_or(false);
  const bool multi_query = r.optional_flag("multi_query").value_or(false);
  std::string kv_key = "num_key_value_heads";
  const auto kv = r.optional_count({"num_key_value_heads", "num_kv_heads", "n_head_kv"});
  r.find({"num_key_value_heads", "num_kv_heads", "n_head_kv"}, &kv_key);
  m.kv_heads = kv && (new_decoder || !multi_query) ? *kv : multi_query && !new_decoder ? 1 : kv.value_or(m.q_heads);
  if (m.q_heads % m.kv_heads != 0)
    r.fail(kv_key, fmt::format("({}) does not divide '{}' ({})", m.kv_heads, heads_key, m.q_heads));

  if (const auto hd = r.optional_count({"head_dim"})) {
    m.head_dim = *hd;
    if (family_fixes_head_dim(m.family) && m.head_dim * m.q_heads != m.hidden)
      r.fail("head_dim", fmt::format("({}) x '{}' ({}) != '{}' ({}), which {} requires", m.head_dim, heads_key, m.q_heads,
                                     hidden_key, m.hidden, m.family));
  } else {
    if (m.hidden % m.q_heads != 0)
      r.fail(hidden_key, fmt::format("({}) is not divisible by '{}' ({}) and there is no 'head_dim'", m.hidden, heads_key,
                                     m.q_heads));
    m.head_dim = m.hidden / m.q_heads;
  }

  if (const auto ff = r.optional_count({"intermediate_size", "n_inner", "ffn_hidden_size"}))
    m.d_ff = *ff;
  else if (family_defaults_d_ff(m.family))
    m.d_ff = 4 * m.hidden;  // GPT-2, GPT-J, Falcon: n_inner null / absent means 4·hidden
  else
    r.fail("intermediate_size", "is missing");

  const auto act = r.optional_text({"hidden_act", "activation_function", "hidden_activation"});
  if (act) m.activation = *act;
  else if (m.family == "falcon") m.activation = "gelu";
  else if (m.family == "gpt2" || m.family == "gptj") m.activation = "gelu_new";
  else r.fail("hidden_act", "is missing");
  if (in(m.family, {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "gemma", "gemma2", "phi3"}))
    m.gated_mlp = true;
  else if (in(m.family, {"gpt2", "gptj", "falcon", "gpt_neox", "opt", "bloom"}))
    m.gated_mlp = false;
  else
    m.gated_mlp = in(m.activation, {"silu", "swish"});  // an unknown family: SiLU MLPs are gated in practice

  if (const auto eps = r.optional_positive({"rms_norm_eps"})) {
    m.norm = NormKind::rmsnorm, m.norm_eps = *eps;
  } else if (const auto leps = r.optional_positive({"layer_norm_eps", "layer_norm_epsilon"})) {
    m.norm = NormKind::layernorm, m.norm_eps = *leps;
  } else {
    r.fail("rms_norm_eps", "is missing (nor is 'layer_norm_eps' or 'layer_norm_epsilon': which norm?)");
  }

  m.sliding_window = r.optional_count({"sliding_window"});
  if (r.optional_flag("use_sliding_window") == false) m.sliding_window.reset();  // Qwen2 names one but turns it off
  m.sliding_layers = sliding_layers(r, m);
  m.tied_embeddings =
      r.optional_flag("tie_word_embeddings").value_or(!in(m.family, {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "gptj", "gpt_neox"}));
  m.attn_softcap = r.optional_positive({"attn_logit_softcapping"});
  m.final_softcap = r.optional_positive({"final_logit_softcapping"});
  m.max_context = r.optional_count({"max_position_embeddings", "n_positions"});

  if (m.family == "gptj") m.parallel_block = true;  // attention and MLP read the same LayerNorm output
  else if (m.family == "falcon") m.parallel_block = new_decoder || r.optional_flag("parallel_attn").value_or(true);
  else if (m.family == "gpt_neox") m.parallel_block = r.optional_flag("use_parallel_residual").value_or(true);
  else m.parallel_block = r.optional_flag("parallel_attn").value_or(false) || r.optional_flag("use_parallel_residual").value_or(false);
  return m;
}

ModelConfig load_model_config(const std::filesystem::path& file) {
  const std::string source = file.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw std::invalid_argument(fmt::format("{}: no such file", source));
  if (std::filesystem::file_size(file, ec) > (16u << 20))
    throw std::invalid_argument(fmt::format("{}: larger than 16 MiB, not a config.json", source));
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw std::invalid_argument(fmt::format("{}: cannot be read", source));
  // A model folder's config.json is named after its folder; any other file after itself.
  std::string name = file.filename() == "config.json" && file.has_parent_path()
                         ? std::filesystem::absolute(file).parent_path().filename().string()
                         : file.stem().string();
  ModelConfig m = parse_model_config(text.str(), source, name);
  return m;
}

std::filesystem::path models_dir() {
  // As with the claims: an environment override for carried builds, then the source
  // tree the build was configured in, then ./kernels/models.
  std::vector<std::filesystem::path> candidates;
  if (const char* dir = std::getenv("LMROOF_MODELS_DIR"); dir && *dir) candidates.emplace_back(dir);
  candidates.push_back(std::filesystem::path(build_info::source_dir) / "kernels" / "models");
  candidates.emplace_back("kernels/models");
  for (const auto& dir : candidates)
    if (std::filesystem::is_directory(dir)) return dir;
  return candidates.front();
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(models_dir(), ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

ModelConfig find_model(const std::string& name_or_path) {
  std::string lower = name_or_path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto names = preset_names();
  if (std::find(names.begin(), names.end(), lower) != names.end()) {
    ModelConfig m = load_model_config(models_dir() / (lower + ".json"));
    m.name = lower;
    return m;
  }
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) return load_model_config(name_or_path);
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument(fmt::format("model '{}' is neither a preset ({}) nor a config.json file", name_or_path,
                                          known.empty() ? "none found in " + models_dir().string() : known));
}

nlohmann::json model_summary_json(const ModelConfig& m) {
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

int64_t default_gqa_kv_heads(int64_t q_heads) {
  for (int64_t group = 8; group > 1; --group)
    if (q_heads % group == 0) return q_heads / group;
  return q_heads;
}

}  // namespace lmroof
