// The Hugging Face config.json reader: every built-in preset gives the dimensions its
// authors published, and every kind of bad file gives one line naming file and key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "kernels/model_config/model_config.h"

namespace lmroof {
namespace {

struct Expected {
  const char* preset;
  int64_t hidden, q_heads, kv_heads, head_dim, d_ff, layers, vocab;
  bool gated, rms, parallel;
  int64_t sliding_window;  // 0: none
};

// The published values (kernels/models/README.md links each config).
const Expected kPresets[] = {
    {"gpt2", 768, 12, 12, 64, 3072, 12, 50257, false, false, false, 0},
    {"llama2-7b", 4096, 32, 32, 128, 11008, 32, 32000, true, true, false, 0},
    {"llama3-8b", 4096, 32, 8, 128, 14336, 32, 128256, true, true, false, 0},
    {"llama3-70b", 8192, 64, 8, 128, 28672, 80, 128256, true, true, false, 0},
    {"mistral-7b", 4096, 32, 8, 128, 14336, 32, 32000, true, true, false, 4096},
    {"qwen2.5-7b", 3584, 28, 4, 128, 18944, 28, 152064, true, true, false, 0},
    {"gemma2-9b", 3584, 16, 8, 256, 14336, 42, 256000, true, true, false, 4096},
    {"falcon-7b", 4544, 71, 1, 64, 18176, 32, 65024, false, false, true, 0},
    {"gptj-6b", 4096, 16, 16, 256, 16384, 28, 50400, false, false, true, 0},
};

TEST(ModelConfig, EveryPresetGivesItsPublishedDimensions) {
  for (const auto& e : kPresets) {
    SCOPED_TRACE(e.preset);
    const ModelConfig m = find_model(e.preset);
    EXPECT_EQ(m.name, e.preset);
    EXPECT_EQ(m.hidden, e.hidden);
    EXPECT_EQ(m.q_heads, e.q_heads);
    EXPECT_EQ(m.kv_heads, e.kv_heads);
    EXPECT_EQ(m.head_dim, e.head_dim);
    EXPECT_EQ(m.d_ff, e.d_ff);
    EXPECT_EQ(m.layers, e.layers);
    EXPECT_EQ(m.vocab, e.vocab);
    EXPECT_EQ(m.gated_mlp, e.gated);
    EXPECT_EQ(m.norm == NormKind::rmsnorm, e.rms);
    EXPECT_EQ(m.parallel_block, e.parallel);
    EXPECT_EQ(m.sliding_window.value_or(0), e.sliding_window);
  }
}

TEST(ModelConfig, PresetListIsTheFolder) {
  const auto names = preset_names();
  EXPECT_EQ(names.size(), std::size(kPresets));
  for (const auto& e : kPresets) EXPECT_NE(std::find(names.begin(), names.end(), e.preset), names.end()) << e.preset;
}

TEST(ModelConfig, Llama3_8bIsGqa32Over8) {
  const ModelConfig m = find_model("llama3-8b");
  EXPECT_EQ(m.q_heads, 32);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.attention_kind(), "GQA");
  EXPECT_EQ(find_model("llama2-7b").attention_kind(), "MHA");
  EXPECT_EQ(find_model("falcon-7b").attention_kind(), "MQA");
}

TEST(ModelConfig, GemmaSoftCapsAndGptJParallel) {
  const ModelConfig g = find_model("gemma2-9b");
  EXPECT_DOUBLE_EQ(g.attn_softcap.value_or(0), 50.0);
  EXPECT_DOUBLE_EQ(g.final_softcap.value_or(0), 30.0);
  EXPECT_NE(g.q_heads * g.head_dim, g.hidden);  // 4096 vs 3584: allowed for gemma2
  EXPECT_FALSE(find_model("qwen2.5-7b").sliding_window.has_value());  // use_sliding_window: false
}

// Parses text as "bad.json" and returns the error message ("" when it parsed).
std::string error_of(const std::string& text) {
  try {
    parse_model_config(text, "bad.json", "bad");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const std::string kLlama =
    R"("hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 172,
       "hidden_act": "silu", "num_hidden_layers": 2, "vocab_size": 100, "rms_norm_eps": 1e-5, "model_type": "llama")";

TEST(ModelConfig, MinimalConfigAndUnknownKeysIgnored) {
  const ModelConfig m =
      parse_model_config("{" + kLlama + R"(, "some_future_key": {"nested": [1, 2]}, "rope_scaling": null})", "x.json", "x");
  EXPECT_EQ(m.head_dim, 8);
  EXPECT_EQ(m.kv_heads, 2);
  EXPECT_EQ(m.source, "x.json");
}

TEST(ModelConfig, MissingKeyNamesIt) {
  const std::string e = error_of(R"({"num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 10})");
  EXPECT_NE(e.find("bad.json"), std::string::npos) << e;
  EXPECT_NE(e.find("'hidden_size'"), std::string::npos) << e;
  EXPECT_NE(e.find("missing"), std::string::npos) << e;
}

TEST(ModelConfig, EveryBadValueGivesOneLineNamingFileAndKey) {
  auto with = [](const std::string& key, const std::string& value) {
    // replace (or add) one key of the minimal llama config
    std::string body = kLlama;
    const auto at = body.find("\"" + key + "\"");
    if (at != std::string::npos) {
      const auto end = body.find_first_of(",}", body.find(':', at));
      body.replace(at, end - at, "\"" + key + "\": " + value);
    } else {
      body += ", \"" + key + "\": " + value;
    }
    return "{" + body + "}";
  };
  const std::pair<std::string, std::string> cases[] = {
      {with("hidden_size", "\"4096\""), "'hidden_size' must be a number"},
      {with("hidden_size", "0"), "'hidden_size' must be positive"},
      {with("hidden_size", "-64"), "'hidden_size' must be positive"},
      {with("hidden_size", "64.5"), "'hidden_size' must be a whole number"},
      {with("hidden_size", "1e30"), "'hidden_size' must be a whole number"},
      {with("hidden_size", "99999999999999"), "'hidden_size' = 99999999999999 is larger than the limit"},
      {with("hidden_size", "60"), "'hidden_size' (60) is not divisible by 'num_attention_heads' (8)"},
      {with("num_key_value_heads", "3"), "'num_key_value_heads' (3) does not divide 'num_attention_heads' (8)"},
      {with("num_key_value_heads", "16"), "'num_key_value_heads' (16) does not divide"},
      {with("num_attention_heads", "true"), "'num_attention_heads' must be a number, got boolean"},
      {with("rms_norm_eps", "\"1e-5\""), "'rms_norm_eps' must be a number"},
      {with("rms_norm_eps", "-1"), "'rms_norm_eps' must be positive"},
      {with("hidden_act", "3"), "'hidden_act' must be a string"},
      {with("model_type", "[]"), "'model_type' must be a string"},
      {with("parallel_attn", "\"yes\""), "'parallel_attn' must be true or false"},
      {with("sliding_window", "0"), "'sliding_window' must be positive"},
      {with("attn_logit_softcapping", "\"50\""), "'attn_logit_softcapping' must be a number"},
      {with("intermediate_size", "null"), "'intermediate_size' is missing"},
      {"[1, 2]", "must be a JSON object"},
      {"{\"hidden_size\": 64,", "not valid JSON"},
      {"", "not valid JSON"},
      {"{\"hidden_size\": 1e400}", "not valid JSON"},
      {"{\"hidden_size\": \"\xff\"}", "not valid JSON"},
  };
  for (const auto& [text, want] : cases) {
    const std::string e = error_of(text);
    EXPECT_NE(e.find(want), std::string::npos) << "text: " << text << "\nerror: " << e;
    EXPECT_EQ(e.rfind("bad.json: ", 0), 0u) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(ModelConfig, GptFamiliesFixHeadDim) {
  const std::string gpt2 = R"({"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "vocab_size": 50257,
                               "layer_norm_epsilon": 1e-5, "n_inner": null, "head_dim": 32})";
  const std::string e = error_of(gpt2);
  EXPECT_NE(e.find("'head_dim' (32) x 'n_head' (12) != 'n_embd' (768), which gpt2 requires"), std::string::npos) << e;
  EXPECT_NE(error_of(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 1, "vocab_size": 5, "layer_norm_epsilon": 1e-5})")
                .find("'num_attention_heads' is missing (or 'n_head')"),
            std::string::npos);
}

TEST(ModelConfig, FalconNewDecoderArchitectureNamesItsKvHeads) {
  const ModelConfig m = parse_model_config(
      R"({"model_type": "falcon", "hidden_size": 8192, "num_attention_heads": 128, "num_kv_heads": 8,
          "new_decoder_architecture": true, "multi_query": true, "num_hidden_layers": 60, "vocab_size": 65024,
          "layer_norm_epsilon": 1e-5})",
      "f.json", "falcon-40b");
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_TRUE(m.parallel_block);
  EXPECT_EQ(m.d_ff, 4 * 8192);
}

TEST(ModelConfig, DeepNestingIsRefusedWithoutRecursingIntoIt) {
  // 10,000 deep (and 100,000): the parser callback stops at kMaxConfigDepth, so neither
  // the parser nor the destructor recurses; a stack overflow would crash the test.
  for (int depth : {10000, 100000}) {
    const std::string arrays = "{" + kLlama + ", \"deep\": " + std::string(depth, '[') + std::string(depth, ']') + "}";
    const std::string e = error_of(arrays);
    EXPECT_NE(e.find("bad.json: 'deep' is nested deeper than 64 levels"), std::string::npos) << e;
    std::string objects = "{\"deep\": ";
    for (int i = 0; i < depth; ++i) objects += "{\"a\": ";
// GCC 12 warns, falsely, that "x" + std::string copies overlap (GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
    objects += "1" + std::string(depth + 1, '}');
#pragma GCC diagnostic pop
    EXPECT_NE(error_of(objects).find("'deep' is nested deeper"), std::string::npos);
    EXPECT_NE(error_of(std::string(depth, '[')).find("nested deeper than 64"), std::string::npos);
  }
  // 60 deep is fine (an unknown key, ignored)
  EXPECT_EQ(error_of("{" + kLlama + ", \"deep\": " + std::string(60, '[') + std::string(60, ']') + "}"), "");
}

TEST(ModelConfig, FilesAndNames) {
  const auto dir = std::filesystem::temp_directory_path() / ("lmroof-model-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "MyModel");
  std::ofstream(dir / "MyModel" / "config.json") << "{" << kLlama << "}";
  const ModelConfig m = find_model((dir / "MyModel" / "config.json").string());
  EXPECT_EQ(m.name, "MyModel");  // a config.json is named after its folder
  EXPECT_EQ(find_model("LLAMA3-8B").name, "llama3-8b");
  try {
    find_model((dir / "missing.json").string());
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("neither a preset (falcon-7b, "), std::string::npos) << e.what();
  }
  std::ofstream(dir / "bad.json") << "{\"hidden_size\": \"big\"}";
  try {
    load_model_config(dir / "bad.json");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: 'hidden_size' must be a number, got string"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lmroof
