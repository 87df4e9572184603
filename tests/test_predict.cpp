// `lmroof predict`: hand-checkable memory figures (the lecture's KV formula, the
// published parameter counts), sliding-window layers counted one by one, the device
// table's peaks all dense, bad device files refused, and the step model's FLOPs.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include <string>

#include "analysis/model/input_error.h"
#include "analysis/predict/devices.h"
#include "analysis/predict/model_memory.h"
#include "analysis/predict/prediction.h"
#include "analysis/predict/step_cost.h"
#include "kernels/model_config/model_config.h"
#include "reports/text/predict_format.h"

namespace lmroof::predict {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

const Device& table_device(const std::vector<Device>& table, const std::string& name) {
  for (const auto& d : table)
    if (d.name == name) return d;
  throw std::runtime_error("no device " + name);
}

TEST(PredictMemory, Llama3_8bKvCacheIsTheLecturesFormula) {
  const ModelConfig m = find_model("llama3-8b");
  const ModelMemory mem = model_memory(m, Dtype::bf16);
  EXPECT_EQ(mem.kv_bytes_per_token, 131072);  // 2 · 32 layers · 8 kv heads · 128 · 2 bytes
  EXPECT_EQ(kv_bytes_per_sequence(m, m.kv_heads, 131072, Dtype::bf16), 16 * kGiB);
  // Meta's published count: 8,030,261,248 (untied 128256 x 4096 embedding and LM head).
  EXPECT_EQ(mem.parameters, 8030261248);
  EXPECT_EQ(mem.weight_bytes, 2 * 8030261248);
  EXPECT_EQ(model_memory(m, Dtype::fp8).kv_bytes_per_token, 65536);
}

TEST(PredictMemory, Llama3_70bDoesNotFitOneH200) {
  const ModelConfig m = find_model("llama3-70b");
  EXPECT_EQ(model_memory(m, Dtype::bf16).kv_bytes_per_token, 327680);
  const auto table = load_device_file(bundled_devices_file());
  const Prediction p = predict(m, Dtype::bf16, {8192}, {1}, {table_device(table, "H200 SXM")});
  EXPECT_EQ(p.memory.parameters, 70553706496);  // 80 layers of 855,654,400, two 128256 x 8192 matrices, final norm
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].fits_weights, false);
  EXPECT_EQ(p.devices[0].contexts[0].max_batch, 0);
  const std::string statement = report::weights_fit_statement(p, p.devices[0]);
  EXPECT_NE(statement.find("do not fit on one H200 SXM"), std::string::npos) << statement;
  EXPECT_NE(statement.find("141107412992 B"), std::string::npos) << statement;
  EXPECT_NE(report::predict_text(p).find("do not fit"), std::string::npos);
}

TEST(PredictMemory, MaxBatchIsWhatFitsBesideTheWeights) {
  const ModelConfig m = find_model("llama3-8b");
  const auto table = load_device_file(bundled_devices_file());
  const Prediction p = predict(m, Dtype::bf16, {8192}, {1}, {table_device(table, "H100 SXM")});
  // (80e9 - 16,060,522,496) / (8192 · 131072) = 59.55...
  EXPECT_EQ(p.devices[0].fits_weights, true);
  EXPECT_EQ(p.devices[0].contexts[0].max_batch, 59);
}

TEST(PredictMemory, SlidingWindowLayersAreCappedOneByOne) {
  // Gemma 2: 42 layers alternating local (window 4096) and global, 8 kv heads of 256.
  const ModelConfig gemma = find_model("gemma2-9b");
  ASSERT_EQ(gemma.sliding_layers.size(), 42u);
  EXPECT_TRUE(gemma.sliding_layers[0]);
  EXPECT_FALSE(gemma.sliding_layers[1]);
  EXPECT_EQ(std::count(gemma.sliding_layers.begin(), gemma.sliding_layers.end(), true), 21);
  const int64_t per_layer_position = 2 * 8 * 256 * 2;  // 8192 B
  EXPECT_EQ(kv_bytes_per_sequence(gemma, 8, 4096, Dtype::bf16), 42 * 4096 * per_layer_position);
  EXPECT_EQ(kv_bytes_per_sequence(gemma, 8, 8192, Dtype::bf16), 21 * 8192 * per_layer_position + 21 * 4096 * per_layer_position);
  // Mistral-7B: every layer windowed at 4096.
  const ModelConfig mistral = find_model("mistral-7b");
  EXPECT_EQ(std::count(mistral.sliding_layers.begin(), mistral.sliding_layers.end(), true), 32);
  EXPECT_EQ(kv_bytes_per_sequence(mistral, 8, 32768, Dtype::bf16), int64_t{4096} * 131072);
  // Qwen2.5 names a window but turns it off.
  const ModelConfig qwen = find_model("qwen2.5-7b");
  EXPECT_EQ(std::count(qwen.sliding_layers.begin(), qwen.sliding_layers.end(), true), 0);
}

TEST(PredictMemory, LayerTypesListDecidesWhichLayersSlide) {
  const ModelConfig m = parse_model_config(
      R"({"model_type":"custom","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,
          "hidden_act":"silu","num_hidden_layers":3,"vocab_size":100,"rms_norm_eps":1e-6,"sliding_window":16,
          "layer_types":["full_attention","sliding_attention","full_attention"]})",
      "custom.json", "custom");
  EXPECT_EQ(m.sliding_layers, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(kv_bytes_per_sequence(m, 2, 100, Dtype::fp32), (100 + 16 + 100) * 2 * 2 * 16 * 4);
  EXPECT_THROW(parse_model_config(
                   R"({"hidden_size":64,"num_attention_heads":4,"intermediate_size":128,"hidden_act":"silu",
                       "num_hidden_layers":3,"vocab_size":100,"rms_norm_eps":1e-6,"sliding_window":16,"layer_types":["x"]})",
                   "bad.json", "bad"),
               std::invalid_argument);
}

TEST(PredictMemory, TiedEmbeddingsAreCountedOnce) {
  const ModelConfig gpt2 = find_model("gpt2");
  EXPECT_TRUE(gpt2.tied_embeddings);
  // GPT-2 small: 124,439,808 with biases; lmroof counts no biases (82,944 of them here).
  EXPECT_EQ(model_memory(gpt2, Dtype::fp32).parameters, 124439808 - 82944);
  EXPECT_FALSE(find_model("llama3-8b").tied_embeddings);
}

TEST(PredictMemory, KvVariantsSideBySide) {
  const ModelConfig m = find_model("llama3-8b");
  const Prediction p = predict(m, Dtype::bf16, {1024}, {1}, {});
  ASSERT_EQ(p.variants.size(), 3u);
  EXPECT_EQ(p.variants[0].kv_bytes_per_token, 4 * 131072);  // MHA: 32 kv heads
  EXPECT_EQ(p.variants[1].kv_bytes_per_token, 131072);      // GQA: the model's 8
  EXPECT_TRUE(p.variants[1].models_own);
  EXPECT_EQ(p.variants[2].kv_bytes_per_token, 131072 / 8);  // MQA
}

TEST(PredictMemory, OverflowingKvArithmeticIsBadInput) {
  // 2^24 layers of one 2^24-wide KV head: 2^50 bytes per token, 2^74 at 2^24 positions.
  const int64_t big = int64_t{1} << 24;
  const std::string config = fmt::format(
      R"({{"hidden_size":1,"num_attention_heads":1,"head_dim":{0},"intermediate_size":1,
           "hidden_act":"silu","num_hidden_layers":{0},"vocab_size":1,"rms_norm_eps":1e-6}})",
      big);
  const ModelConfig m = parse_model_config(config, "huge.json", "huge");
  EXPECT_EQ(model_memory(m, Dtype::bf16).kv_bytes_per_token, int64_t{1} << 50);
  EXPECT_THROW(predict(m, Dtype::bf16, {big}, {1}, {}), model::InputError);
  // Within 64 bits per sequence, but not for a batch of them.
  EXPECT_THROW(predict(m, Dtype::bf16, {1 << 12}, {big}, {}), model::InputError);
  EXPECT_NO_THROW(predict(m, Dtype::bf16, {1 << 12}, {1}, {}));
}

TEST(PredictDevices, EveryBundledPeakIsDense) {
  const auto table = load_device_file(bundled_devices_file());
  for (const char* name : {"H100 SXM", "H200 SXM", "A100 80GB SXM", "B200", "MI300X", "L40S", "RTX 4090"}) {
    const Device& d = table_device(table, name);
    EXPECT_FALSE(d.source.empty()) << name;
    EXPECT_GT(*d.memory_bytes, 0) << name;
    for (const auto& [dtype, flops] : d.dense_peak_flops) EXPECT_LE(flops, *dense_peak_bound(d.architecture, dtype)) << name;
  }
  // The figure PyTorch's device table once got wrong (1979, the sparse one).
  EXPECT_DOUBLE_EQ(table_device(table, "H100 SXM").dense_peak_flops.at("bf16"), 989.5e12);
  EXPECT_DOUBLE_EQ(table_device(table, "H200 SXM").dense_peak_flops.at("bf16"), 989.5e12);
  EXPECT_DOUBLE_EQ(table_device(table, "MI300X").dense_peak_flops.at("bf16"), 1307.4e12);
}

std::string device_file(const std::string& entry_fields) {
  return R"({"schema":"lmroof.devices/1","devices":[{"name":"X","architecture":"hopper","memory_gb":80,
            "bandwidth_tb_per_s":3.35,"launch_us":3,"launch_source":"s","source":"s")" +
         entry_fields + "}]}";
}

void expect_refused(const std::string& text, const std::string& words) {
  try {
    parse_device_file(text, "mine.json");
    FAIL() << "accepted: " << text;
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(PredictDevices, SparseOrMissingPeaksAreRefused) {
  EXPECT_EQ(parse_device_file(device_file(R"(,"dense_tflops":{"bf16":989.5})"), "ok.json").size(), 1u);
  expect_refused(device_file(R"(,"dense_tflops":{"bf16":1979})"), "/devices/0/dense_tflops/bf16");
  expect_refused(device_file(R"(,"dense_tflops":{"bf16":1979})"), "sparse");
  expect_refused(device_file(R"(,"dense_tflops":{"bf16":900},"sparse":true)"), "sparsity");
  expect_refused(device_file(R"(,"sparse_tflops":{"bf16":1979},"dense_tflops":{"bf16":900})"), "sparsity");
  expect_refused(device_file(""), "dense_tflops");
  expect_refused(device_file(R"(,"dense_tflops":{})"), "needs a dense peak");
  expect_refused(device_file(R"(,"dense_tflops":{"int4":5})"), "is not a dtype");
  expect_refused(device_file(R"(,"dense_tflops":{"bf16":-1})"), "/devices/0/dense_tflops/bf16");
  expect_refused(R"({"schema":"lmroof.devices/1","devices":[{"name":"X","architecture":"kepler"}]})", "not a known architecture");
  expect_refused(R"({"schema":"lmroof.devices/1","devices":[]})", "lists no device");
  std::string huge_memory = device_file(R"(,"dense_tflops":{"bf16":900})");
  huge_memory.replace(huge_memory.find("\"memory_gb\":80"), 14, "\"memory_gb\":1e300");
  expect_refused(huge_memory, "/devices/0/memory_gb");
  std::string nanoseconds = device_file(R"(,"dense_tflops":{"bf16":900})");
  nanoseconds.replace(nanoseconds.find("\"launch_us\":3"), 13, "\"launch_us\":3000000");
  expect_refused(nanoseconds, "/devices/0/launch_us");
}

Roof h100_bf16() { return {.peak_flops = 989.5e12, .bandwidth_bytes_per_s = 3.35e12, .launch_s = 0}; }

TEST(PredictStep, GemmFlopsAreTwicePerWeightPerToken) {
  const ModelConfig m = find_model("llama3-8b");
  const StepCost prefill = prefill_step(m, 1024, Dtype::bf16, h100_bf16());
  double gemm_flops = 0;
  for (const auto& op : prefill.ops)
    if (op.name == "qkv" || op.name == "o_proj" || op.name == "mlp_up" || op.name == "mlp_down") gemm_flops += op.flops;
  // Each layer's 218,103,808 matrix weights, twice per token.
  EXPECT_DOUBLE_EQ(gemm_flops, 2.0 * 1024 * 32 * 218103808);
}

TEST(PredictStep, SmallDecodeIsTheWeightsOverBandwidthAndTurnsComputeBound) {
  const ModelConfig m = find_model("llama3-8b");
  const StepCost step = decode_step(m, 1, 128, Dtype::bf16, h100_bf16());
  EXPECT_EQ(step.bound, StepBound::memory);
  // Every weight is read once, but of the embedding only the rows gathered.
  const double weights_time = 2.0 * (8030261248 - 128256 * 4096) / 3.35e12;
  EXPECT_GT(step.time_s, weights_time);
  EXPECT_LT(step.time_s, weights_time * 1.02);
  // A decode GEMM does 2·b FLOPs per 2-byte weight: each GEMM is compute-bound from
  // b = P/W = 295, and the GEMMs are most of the step's time from there on (the
  // attention's and activations' bytes, memory-bound, push it a little later).
  const auto table = load_device_file(bundled_devices_file());
  const Prediction p = predict(m, Dtype::bf16, {128}, {1, 512}, {table_device(table, "H100 SXM")});
  const auto from = p.devices[0].compute_bound_from_batch[0];
  ASSERT_TRUE(from);
  EXPECT_GE(*from, 295);
  EXPECT_LE(*from, 400);
  EXPECT_EQ(p.devices[0].decode[1].bound, StepBound::compute);
}

TEST(PredictStep, LaunchTermDominatesATinyModel) {
  const ModelConfig gpt2 = find_model("gpt2");
  const Roof roof{.peak_flops = 989.5e12, .bandwidth_bytes_per_s = 3.35e12, .launch_s = 5e-6};
  const StepCost step = decode_step(gpt2, 1, 64, Dtype::bf16, roof);
  EXPECT_EQ(step.bound, StepBound::latency);
  int64_t launches = 0;
  for (const auto& op : step.ops) launches += op.launches;
  EXPECT_DOUBLE_EQ(step.launch_s, launches * 5e-6);
}

TEST(PredictJson, KeepsTheNamesScriptsRelyOn) {
  const auto table = load_device_file(bundled_devices_file());
  const nlohmann::json j = to_json(predict(find_model("llama3-8b"), Dtype::bf16, {131072}, {1}, {table_device(table, "H200 SXM")}));
  EXPECT_EQ(j["weight_bytes"], 2 * int64_t{8030261248});
  EXPECT_EQ(j["kv_bytes_per_token"], 131072);
  const auto& d = j["devices"][0];
  EXPECT_EQ(d["name"], "H200 SXM");
  EXPECT_EQ(d["memory_bytes"], 141e9);
  EXPECT_EQ(d["fits_weights"], true);
  EXPECT_EQ(d["contexts"][0]["context"], 131072);
  EXPECT_EQ(d["contexts"][0]["kv_bytes_per_sequence"], 16 * kGiB);
  EXPECT_TRUE(d["contexts"][0]["max_batch"].is_number_integer());
  for (const char* key : {"batch", "context", "tokens_per_s", "bound"}) EXPECT_TRUE(d["decode"][0].contains(key)) << key;
  EXPECT_GT(d["prefill"][0]["tokens_per_s"].get<double>(), 0);
}

}  // namespace
}  // namespace lmroof::predict
