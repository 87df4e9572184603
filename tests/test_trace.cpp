// lmroof trace (analysis/trace/): the cost models' hand-checked examples (docs/trace.md),
// the reader's bad inputs (one line naming file, byte offset and field) and tolerated
// oddities (counted as anomalies), attribution, and the device match.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/model/input_error.h"
#include "analysis/predict/devices.h"
#include "analysis/trace/cost_models.h"
#include "analysis/trace/layout_split.h"
#include "analysis/trace/op_classes.h"
#include "analysis/trace/trace_analysis.h"
#include "analysis/trace/trace_output.h"
#include "analysis/trace/trace_reader.h"
#include "kernels/run_names/kernel_names.h"
#include "reports/text/trace_text.h"

namespace {

using namespace lmroof::trace;
namespace fs = std::filesystem;

OpCost cost(std::string_view name, std::string_view dims, std::string_view types, std::string_view concrete = "") {
  return cost_of(name, parse_inputs(dims, types, concrete), {}, std::nullopt);
}

TEST(TraceCost, AddmmWithBias) {
  // bias [3072], x [4096, 1024], w [1024, 3072], bf16: 2·M·N·K + M·N; each operand once plus the output.
  const OpCost c = cost("aten::addmm", "[[3072],[4096,1024],[1024,3072],[],[]]",
                        R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])");
  EXPECT_EQ(c.op_class, OpClass::matmul);
  ASSERT_TRUE(c.flops && c.bytes);
  EXPECT_EQ(*c.flops, 25782386688.0);  // 2·4096·3072·1024 + 4096·3072
  EXPECT_EQ(*c.bytes, 39852032.0);     // 2·(3072 + 4096·1024 + 1024·3072 + 4096·3072)
  EXPECT_EQ(c.dtype, "bf16");
}

TEST(TraceCost, CausalFlashAttentionIsHalved) {
  const char* dims = "[[2,16,2048,64],[2,16,2048,64],[2,16,2048,64],[],[],[],[]]";
  const char* types = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar",""])";
  const OpCost causal = cost("aten::_scaled_dot_product_flash_attention", dims, types, R"(["","","","0.","True","False",""])");
  ASSERT_TRUE(causal.flops && causal.bytes);
  EXPECT_EQ(*causal.flops, 17179869184.0);  // 4·B·H·N·N·d / 2
  EXPECT_EQ(*causal.bytes, 33816576.0);     // q, k, v, out at 2 bytes + logsumexp B·H·N fp32
  const OpCost full = cost("aten::_scaled_dot_product_flash_attention", dims, types, R"(["","","","0.","False","False",""])");
  EXPECT_EQ(*full.flops, 2 * *causal.flops);
  // Without Concrete Inputs the causality is unknown: no FLOPs, never a guess.
  EXPECT_FALSE(cost("aten::_scaled_dot_product_flash_attention", dims, types).flops);
  // The [B, N, H, d] layout of _flash_attention_forward, causal at index 8; backward 2.5x.
  const OpCost inner = cost("aten::_flash_attention_forward", "[[2,2048,16,64],[2,2048,16,64],[2,2048,16,64]]",
                            R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])", R"(["","","","","","","","0.","True"])");
  EXPECT_EQ(*inner.flops, *causal.flops);
}

TEST(TraceCost, Bf16LayerNorm) {
  const OpCost c = cost("aten::native_layer_norm", "[[8,512,1024],[],[1024],[1024],[]]",
                        R"(["c10::BFloat16","","c10::BFloat16","c10::BFloat16","Scalar"])", R"(["","[1024]","","","1e-05"])");
  EXPECT_EQ(c.op_class, OpClass::normalization);
  ASSERT_TRUE(c.flops && c.bytes);
  EXPECT_EQ(*c.flops, 29376512.0);  // 7 per element with weight and bias, 3 per row and an rsqrt (op_formulas.h)
  EXPECT_EQ(*c.bytes, 16814080.0);  // x and y at 2 bytes, weight and bias, mean and rstd fp32 per row
}

TEST(TraceCost, BroadcastAddCountsEachInputAtItsOwnSize) {
  const OpCost c = cost("aten::add", "[[8,512,1024],[1024],[]]", R"(["c10::BFloat16","c10::BFloat16","Scalar"])");
  EXPECT_EQ(c.op_class, OpClass::elementwise);
  ASSERT_TRUE(c.flops && c.bytes);
  EXPECT_EQ(*c.flops, 4194304.0);
  EXPECT_EQ(*c.bytes, 16779264.0);  // 2·n + 2·1024 + 2·n
}

TEST(TraceCost, UnknownDtypeLeavesBytesUnknown) {
  const OpCost c = cost("aten::add", "[[4,4],[4,4],[]]", R"(["c10::Float4_e2m1","c10::Float4_e2m1","Scalar"])");
  EXPECT_FALSE(c.bytes);
  EXPECT_NE(c.why_unknown.find("unknown dtype"), std::string::npos) << c.why_unknown;
}

TEST(TraceCost, UnparsableDimsAndUnknownOps) {
  EXPECT_FALSE(parse_inputs("[[1,2],[x]]", "", "").dims_parsed);
  EXPECT_FALSE(cost("aten::mm", "[[1,2],[x]]", R"(["float","float"])").flops);
  const OpCost other = cost("aten::my_op", "[[4,4]]", R"(["float"])");
  EXPECT_EQ(other.op_class, OpClass::other);
  EXPECT_FALSE(other.flops);
}

TEST(TraceCost, AllReduceBusBandwidthFactor) {
  const OpCost c = cost_of("nccl:all_reduce", parse_inputs("[[1048576]]", R"(["c10::BFloat16"])", ""),
                           {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL"}, 8);
  EXPECT_EQ(c.op_class, OpClass::communication);
  EXPECT_EQ(c.collective, "all_reduce");
  EXPECT_EQ(*c.message_bytes, 2097152.0);
  EXPECT_DOUBLE_EQ(*c.bus_factor, 2.0 * 7 / 8);
}

TEST(TraceCost, OutTensorIsCountedOnceAsTheOutput) {
  // mul(self, other, out): two reads and one write, not three reads and a write.
  const char* types = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])";
  const OpCost out = cost("aten::mul", "[[1024,256],[1024,256],[1024,256]]", types);
  ASSERT_TRUE(out.bytes && out.flops);
  EXPECT_EQ(*out.bytes, 3.0 * 1024 * 256 * 2);
  EXPECT_EQ(*out.flops, 1024.0 * 256);
  // Named as the overload: the last tensor is the output whatever the count.
  EXPECT_EQ(*cost("aten::mul.out", "[[1024,256],[1024,256],[1024,256]]", types).bytes, 3.0 * 1024 * 256 * 2);
  EXPECT_EQ(*cost("aten::add.out", "[[1024,256],[256],[],[1024,256]]", R"(["float","float","Scalar","float"])").bytes,
            (1024.0 * 256 + 256 + 1024 * 256) * 4);
  // The functional form is unchanged: a broadcast mul reads both and writes the output.
  EXPECT_EQ(*cost("aten::mul", "[[1024,256],[256]]", R"(["c10::BFloat16","c10::BFloat16"])").bytes, (2.0 * 1024 * 256 + 256) * 2);
}

TEST(TraceCost, CustomNormOpsOfServingStacks) {
  // vLLM's fused_add_rms_norm(input, residual, weight, eps): reads input, residual, weight;
  // writes input and residual. FLOPs: RMSNorm's one formula (4 per element and 3 per row
  // with a weight, kernels/run_names/op_formulas.h), + 1 per element for the add.
  const OpCost fused = cost("_C::fused_add_rms_norm", "[[512,4096],[512,4096],[4096],[]]",
                            R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"])");
  EXPECT_EQ(fused.op_class, OpClass::normalization);
  ASSERT_TRUE(fused.flops && fused.bytes);
  EXPECT_EQ(*fused.flops, 5.0 * 512 * 4096 + 3.0 * 512);
  EXPECT_EQ(*fused.bytes, 4.0 * 512 * 4096 * 2 + 4096 * 2);
  // rms_norm(out, input, weight, eps): the output buffer is not counted twice.
  const OpCost plain = cost("_C::rms_norm", "[[512,4096],[512,4096],[4096],[]]",
                            R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"])");
  EXPECT_EQ(*plain.bytes, 2.0 * 512 * 4096 * 2 + 4096 * 2);
  EXPECT_EQ(*plain.flops, 4.0 * 512 * 4096 + 3.0 * 512);
  EXPECT_EQ(cost("aiter::rmsnorm2d_fwd", "[[512,4096],[4096],[]]", R"(["c10::BFloat16","c10::BFloat16","Scalar"])").op_class,
            OpClass::normalization);
  EXPECT_EQ(cost("vllm::unified_attention_with_output", "[[8,32,128]]", R"(["c10::BFloat16"])").op_class, OpClass::attention);
  EXPECT_FALSE(cost("vllm::unified_attention_with_output", "[[8,32,128]]", R"(["c10::BFloat16"])").flops);
  EXPECT_EQ(cost("sglang::some_new_op", "[[8]]", R"(["float"])").op_class, OpClass::other);
  // A symmetric-memory all-reduce and a gloo collective are communication.
  const OpCost symm = cost("symm_mem::multimem_all_reduce_", "[[65536],[],[]]", R"(["c10::BFloat16","",""])");
  EXPECT_EQ(symm.op_class, OpClass::communication);
  EXPECT_EQ(symm.collective, "all_reduce");
  EXPECT_EQ(*symm.message_bytes, 131072.0);
  EXPECT_EQ(cost("gloo:all_reduce", "[[1000]]", R"(["float"])").op_class, OpClass::communication);
}

TEST(TraceCost, AllGatherMessageAndGroupFromTheArgs) {
  // nccl-tests: an all-gather's S is its output; busbw = algbw (n-1)/n with n the group.
  OpInputs in = parse_inputs("[[25136],[201088]]", R"(["c10::BFloat16","c10::BFloat16"])", "");
  in.collective = {25136, 201088, 8, "BFloat16"};
  const OpCost c = cost_of("record_param_comms", in, {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"}, 2);
  EXPECT_EQ(c.collective, "all_gather");
  EXPECT_EQ(*c.message_bytes, 201088.0 * 2);
  EXPECT_DOUBLE_EQ(*c.bus_factor, 7.0 / 8);
  // reduce_scatter: S is the input.
  in.collective = {201088, 25136, 8, "Float"};
  EXPECT_EQ(*cost_of("record_param_comms", in, {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL"}, 2).message_bytes, 201088.0 * 4);
}

TEST(TraceClasses, KernelNameFallback) {
  const std::pair<const char*, OpClass> kNames[] = {
      {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8", OpClass::matmul},
      {"nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_TNN", OpClass::matmul},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", OpClass::matmul},
      {"Cijk_Ailk_Bljk_BBS_BH_MT128x128x32", OpClass::matmul},
      {"triton_tem_fused_mm_0", OpClass::matmul},
      {"flash_fwd_kernel", OpClass::attention},
      {"fmha_cutlassF_bf16_aligned_64x128_rf_sm80", OpClass::attention},
      {"void vllm::paged_attention_v2_kernel<>", OpClass::attention},
      {"void vllm::rms_norm_kernel<c10::BFloat16>", OpClass::normalization},
      {"ncclDevKernel_AllGather_RING_LL", OpClass::communication},
      {"void c10d::symmetric_memory::multimem_all_reduce_kernel<>", OpClass::communication},
      {"triton_poi_fused_add_mul_0", OpClass::elementwise},
      {"triton_per_fused__softmax_1", OpClass::reduction},
      {"some_custom_kernel", OpClass::other},
  };
  for (const auto& [name, want] : kNames) EXPECT_EQ(class_of_kernel(name), want) << name;
  EXPECT_TRUE(is_softmax_kernel("triton_per_fused__softmax_1"));
}

TEST(TraceClasses, ModuleRuleAndIvanovGrouping) {
  EXPECT_EQ(module_type_of_event("nn.Module: Qwen2RMSNorm_0"), "Qwen2RMSNorm");
  EXPECT_EQ(module_type_of_event("nn.Module: Linear_12"), "Linear");
  EXPECT_EQ(module_type_of_hierarchy("TOP(Model)::forward.norm(Qwen2RMSNorm)::forward"), "Qwen2RMSNorm");
  EXPECT_EQ(class_of_module("Qwen2RMSNorm"), OpClass::normalization);
  EXPECT_EQ(class_of_module("LayerNorm"), OpClass::normalization);
  EXPECT_EQ(class_of_module("LlamaAttention"), OpClass::attention);
  EXPECT_EQ(class_of_module("GPT2Attn"), OpClass::attention);
  EXPECT_FALSE(class_of_module("Qwen2MLP"));
  const auto norm = class_of_module("Qwen2RMSNorm"), attn = class_of_module("Qwen2Attention");
  // Generic ops take the module's class; specific ones keep theirs.
  EXPECT_EQ(choose_class(OpClass::elementwise, true, OpClass::elementwise, norm).op_class, OpClass::normalization);
  EXPECT_EQ(choose_class(OpClass::reduction, true, OpClass::reduction, attn).op_class, OpClass::attention);
  EXPECT_EQ(choose_class(OpClass::matmul, true, OpClass::matmul, attn).op_class, OpClass::matmul);
  EXPECT_EQ(choose_class(OpClass::elementwise, true, OpClass::elementwise, std::nullopt).op_class, OpClass::elementwise);
  // An op without a model: a specific kernel name first, then the module, then the kernel.
  EXPECT_EQ(choose_class(OpClass::other, false, OpClass::matmul, attn).op_class, OpClass::matmul);
  EXPECT_EQ(choose_class(OpClass::other, false, OpClass::elementwise, attn).op_class, OpClass::attention);
  EXPECT_EQ(choose_class(OpClass::other, false, OpClass::elementwise, std::nullopt).op_class, OpClass::elementwise);
  EXPECT_EQ(ivanov_class(OpClass::attention, false), IvanovClass::tensor_contraction);
  EXPECT_EQ(ivanov_class(OpClass::attention, true), IvanovClass::statistical_normalization);  // a softmax
  EXPECT_EQ(ivanov_class(OpClass::reduction, false), IvanovClass::elementwise);
  EXPECT_TRUE(is_softmax_op("aten::_log_softmax"));
  EXPECT_FALSE(is_softmax_op("aten::sum"));
}

// ---- the reader ------------------------------------------------------------------------

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("lmroof-trace-test-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return path / name;
  }
  fs::path write_gz(const std::string& name, const std::string& text) const {
    gzFile f = gzopen((path / name).c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    return path / name;
  }
};

std::string error_of(const fs::path& p) {
  try {
    read_trace(p);
  } catch (const lmroof::model::InputError& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kSmall = R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],
"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10.5,"dur":20,"args":{"External id":9223372036854775808,"Input Dims":[[64,64],[64,64]],"Input type":["float","float"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":3,"args":{"External id":9223372036854775808,"correlation":18446744073709551615}},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":40.25,"dur":8.5,"args":{"External id":9223372036854775808,"correlation":18446744073709551615,"stream":7,"device":0}},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":40.25,"dur":8.5,"args":{"External id":9223372036854775808,"correlation":18446744073709551615,"stream":7,"device":0}},
{"ph":"X","cat":"kernel","name":"lonely","pid":0,"tid":7,"ts":60,"dur":-4,"args":{"correlation":5}},
{"ph":"X","cat":"kernel","name":"no_dur","pid":0,"tid":7,"ts":70},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":40,"dur":5,"args":{"Input Dims":[[2,2],[2,2]],"Input type":["c10::Mystery","c10::Mystery"]}},
{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":50,"dur":5,"args":{"Input Dims":"[[2,2]","Input type":["float"]}},
{"ph":"s","cat":"ac2g","id":424242,"pid":1,"tid":1,"ts":12,"name":"ac2g"},
{"ph":"i","cat":"cpu_instant_event","name":"mark","pid":1,"tid":1,"ts":13,"s":"t"}
]})";

TEST(TraceReader, KeepsIdsBeyond2To53AndCountsTheOddities) {
  TempDir dir;
  const TraceFile t = read_trace(dir.write("small.json", kSmall));
  EXPECT_EQ(t.event_count, 10u);
  bool found = false;
  for (const auto& e : t.events)
    if (e.category == Category::kernel && e.has_correlation) {
      if (e.correlation == 18446744073709551615ull) found = true;
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(t.anomalies.at("negative durations (taken as 0)").count, 1u);
  EXPECT_EQ(t.anomalies.at("kernel events without dur (ignored)").count, 1u);

  const auto table = lmroof::predict::load_device_file(lmroof::predict::bundled_devices_file());
  const Roofs roofs = resolve_roofs(t, table, "", std::nullopt);
  EXPECT_EQ(roofs.source, "trace");
  const TraceAnalysis a = analyze(t, roofs, {});
  EXPECT_EQ(a.anomalies.at("duplicate events (counted once)").count, 1u);
  EXPECT_EQ(a.anomalies.at("flows that link nothing (ignored)").count, 1u);
  EXPECT_EQ(a.unattributed_kernels, 1u);  // "lonely": its launch is not in the trace
  ASSERT_FALSE(a.ops.empty());
  EXPECT_EQ(a.ops[0].name, "aten::mm");
  EXPECT_EQ(a.ops[0].kernel_launches, 1u);  // the duplicate counted once
  EXPECT_DOUBLE_EQ(a.ops[0].device_time_s, 8.5e-6);
  EXPECT_EQ(*a.ops[0].cost.flops, 2.0 * 64 * 64 * 64);
  EXPECT_EQ(a.ops[0].bound, "memory");  // 8.5 µs per launch: above the launch-bound 2 · 2.7 µs
}

TEST(TraceReader, BadInputIsOneLineNamingFileOffsetAndField) {
  TempDir dir;
  std::string e = error_of(dir.write("plain.json.gz", "{\"traceEvents\":[]}"));
  EXPECT_NE(e.find("plain.json.gz: byte 0: not gzip"), std::string::npos) << e;
  e = error_of(dir.write("notjson.json", "{\"traceEvents\": [ {\"ph\": X} ]}"));
  EXPECT_NE(e.find("notjson.json: byte 25: not JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("traceEvents[0].ph"), std::string::npos) << e;
  e = error_of(dir.write("cut.json", std::string(kSmall).substr(0, 400)));
  EXPECT_NE(e.find("cut.json: byte 400: truncated"), std::string::npos) << e;
  const std::string gz = [&] {
    dir.write_gz("full.json.gz", kSmall);
    std::ifstream in(dir.path / "full.json.gz", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  e = error_of(dir.write("cut.json.gz", gz.substr(0, gz.size() / 2)));
  EXPECT_NE(e.find("cut.json.gz: byte"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  {  // the same with the second thread inflating ahead: its error reaches the parser's thread
    ReadOptions two;
    two.threads = 2;
    try {
      read_trace(dir.path / "cut.json.gz", two);
      ADD_FAILURE() << "a truncated gzip read on two threads";
    } catch (const lmroof::model::InputError& err) {
      EXPECT_NE(std::string(err.what()).find("truncated"), std::string::npos) << err.what();
    }
  }
  e = error_of(dir.write("none.json", "{\"schemaVersion\": 1}"));
  EXPECT_NE(e.find("none.json: traceEvents: missing"), std::string::npos) << e;
  e = error_of(dir.write("empty.json", ""));
  EXPECT_NE(e.find("empty.json: byte 0"), std::string::npos) << e;
  // gzip of a good trace reads like the plain file.
  EXPECT_EQ(read_trace(dir.path / "full.json.gz").events.size(), read_trace(dir.write("full.json", kSmall)).events.size());
  ReadOptions two;
  two.threads = 2;
  EXPECT_EQ(read_trace(dir.path / "full.json.gz", two).events.size(), read_trace(dir.path / "full.json").events.size());
}

// Modules, annotations and host-only steps on a trace small enough to check by hand:
// step 1 holds an RMSNorm module (a pow and a mul), a mul in an MLP (of the same shape),
// an op with a Module Hierarchy arg, and a launch in an optimizer annotation with no op.
constexpr const char* kModules = R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],
"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"python_function","name":"nn.Module: Qwen2RMSNorm_0","pid":1,"tid":1,"ts":1,"dur":20},
{"ph":"X","cat":"cpu_op","name":"aten::pow","pid":1,"tid":1,"ts":2,"dur":5,"args":{"External id":1,"Input Dims":[[64,64],[]],"Input type":["float","Scalar"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":3,"dur":1,"args":{"correlation":11}},
{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":10,"dur":5,"args":{"External id":2,"Input Dims":[[64,64],[64]],"Input type":["float","float"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":11,"dur":1,"args":{"correlation":12}},
{"ph":"X","cat":"python_function","name":"nn.Module: Qwen2MLP_0","pid":1,"tid":1,"ts":25,"dur":10},
{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":26,"dur":5,"args":{"External id":3,"Input Dims":[[64,64],[64]],"Input type":["float","float"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":27,"dur":1,"args":{"correlation":13}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":40,"dur":5,"args":{"External id":4,"Input Dims":[[64,64],[64,64],[]],"Input type":["float","float","Scalar"],"Module Hierarchy":"TOP(M)::forward.ln(LayerNorm)::forward"}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":41,"dur":1,"args":{"correlation":14}},
{"ph":"X","cat":"user_annotation","name":"Optimizer.step#FusedAdam.step","pid":1,"tid":1,"ts":60,"dur":10},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":61,"dur":1,"args":{"correlation":15}},
{"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":5,"dur":4,"args":{"correlation":11,"stream":7}},
{"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":13,"dur":4,"args":{"correlation":12,"stream":7}},
{"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":29,"dur":4,"args":{"correlation":13,"stream":7}},
{"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":43,"dur":4,"args":{"correlation":14,"stream":7}},
{"ph":"X","cat":"kernel","name":"multi_tensor_apply_kernel","pid":0,"tid":7,"ts":105,"dur":6,"args":{"correlation":15,"stream":7}}
]})";

TEST(TraceModules, OpsTakeTheirModulesClassAndLaunchesTheirAnnotation) {
  TempDir dir;
  const TraceFile t = read_trace(dir.write("modules.json", kModules));
  const auto table = lmroof::predict::load_device_file(lmroof::predict::bundled_devices_file());
  const TraceAnalysis a = analyze(t, resolve_roofs(t, table, "", std::nullopt), {});
  auto find = [&](std::string_view name, std::string_view module) -> const OpRow* {
    for (const auto& r : a.ops)
      if (r.name == name && r.module == module) return &r;
    return nullptr;
  };
  const OpRow* pow = find("aten::pow", "Qwen2RMSNorm");
  const OpRow* norm_mul = find("aten::mul", "Qwen2RMSNorm");
  const OpRow* mlp_mul = find("aten::mul", "Qwen2MLP");
  const OpRow* add = find("aten::add", "LayerNorm");  // from its Module Hierarchy arg
  const OpRow* adam = find("Optimizer.step#FusedAdam.step", "");
  ASSERT_TRUE(pow && norm_mul && mlp_mul && add && adam);
  EXPECT_EQ(pow->cost.op_class, OpClass::normalization);
  EXPECT_EQ(norm_mul->cost.op_class, OpClass::normalization);
  EXPECT_STREQ(norm_mul->class_source, "module");
  EXPECT_EQ(mlp_mul->cost.op_class, OpClass::elementwise);
  EXPECT_EQ(add->cost.op_class, OpClass::normalization);
  EXPECT_TRUE(adam->pseudo_op);
  EXPECT_EQ(adam->cost.op_class, OpClass::elementwise);  // multi_tensor_apply: by kernel name
  EXPECT_EQ(a.unattributed_kernels, 0u);
  // The host's ProfilerStep range is the window; the optimizer kernel runs after it ends
  // but was launched inside it, so it belongs to the step.
  EXPECT_EQ(a.window_kind, "steps");
  EXPECT_EQ(a.step_source, "user_annotation");
  EXPECT_EQ(a.outside_window, 0u);
  ASSERT_EQ(a.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(a.steps[0].busy_s, 22e-6);
  EXPECT_TRUE(a.steps[0].host_bound());  // idle 78 of 100 µs
  // The module table: the norm's two kernels, the MLP's one, the LayerNorm's one.
  ASSERT_EQ(a.modules.size(), 3u);
  EXPECT_EQ(a.modules[0].type, "Qwen2RMSNorm");
  EXPECT_EQ(a.modules[0].kernels, 2u);
  EXPECT_DOUBLE_EQ(a.modules[0].time_s, 8e-6);
  double norm_share = 0;
  for (const auto& c : a.classes)
    if (c.op_class == OpClass::normalization) norm_share = c.time_share;
  EXPECT_DOUBLE_EQ(norm_share, 12.0 / 22);
}

TEST(TraceModules, GlooOnACpuOnlyTraceIsCommunication) {
  TempDir dir;
  const TraceFile t = read_trace(dir.write("gloo.json", R"({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":10,"args":{"Input Dims":[[8,8],[8,8]],"Input type":["float","float"]}},
{"ph":"X","cat":"cpu_op","name":"gloo:all_reduce","pid":1,"tid":1,"ts":20,"dur":70,"args":{"Input Dims":[[1000]],"Input type":["float"]}}
]})"));
  const TraceAnalysis a = analyze(t, Roofs{}, {});
  ASSERT_TRUE(a.cpu_only);
  double communication = 0;
  for (const auto& c : a.classes)
    if (c.op_class == OpClass::communication) communication = c.time_share;
  EXPECT_DOUBLE_EQ(communication, 70.0 / 80);
  // No device sits idle on a CPU-only trace: its 100 µs step, 80 µs of it ops, is not
  // host-bound, and the text says no "host-bound" (it did, of an HTA CPU-only trace).
  const lmroof::model::TraceResult r = to_trace_result(a, {a});
  EXPECT_EQ(r.window.host_bound_steps, 0u);
  ASSERT_EQ(r.window.steps.size(), 1u);
  EXPECT_FALSE(r.window.steps[0].host_bound);
  EXPECT_EQ(lmroof::trace::host_bound_line(r), "");
}

// A CPU-only trace whose collective is a gloo user_annotation range, as HTA's cpu_only
// trace holds it: the range is the op (communication, its self CPU time: 70 - 5 µs of a
// nested aten::empty), and the fix-first list names it, bounded by the 100 µs window.
TEST(TraceModules, AGlooAnnotationOnACpuOnlyTraceIsTheCollective) {
  TempDir dir;
  const TraceFile t = read_trace(dir.write("gloo_annotation.json", R"({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","cat":"user_annotation","name":"gloo:all_reduce","pid":1,"tid":1,"ts":20,"dur":70,"args":{"Input Dims":[[1000]],"Input type":["float"]}},
{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":30,"dur":5,"args":{"Input Dims":[[]],"Input type":[""]}}
]})"));
  const TraceAnalysis a = analyze(t, Roofs{}, {});
  ASSERT_TRUE(a.cpu_only);
  double communication = -1;
  for (const auto& c : a.classes)
    if (c.op_class == OpClass::communication) communication = c.time_s;
  EXPECT_NEAR(communication, 65e-6, 1e-12);
  const lmroof::model::TraceResult r = to_trace_result(a, {a});
  ASSERT_FALSE(r.fix_first.empty());
  EXPECT_EQ(r.fix_first[0].kind, "exposed_communication");
  EXPECT_NEAR(r.fix_first[0].saving_s, 65e-6, 1e-12);
}

// Class by op name where the trace gives no cost (docs/trace.md, "Classes"), and by
// kernel name where the op has no model: a convolution is a tensor contraction, a
// pooling a reduction, a random fill element-wise; cuDNN's batch norm stays a norm.
TEST(TraceClasses, ConvolutionPoolingAndFillsHaveTheirClassWithoutACost) {
  EXPECT_EQ(cost_of("aten::cudnn_convolution", {}, {}, std::nullopt).op_class, OpClass::matmul);
  EXPECT_EQ(cost_of("aten::convolution_backward", {}, {}, std::nullopt).op_class, OpClass::matmul);
  EXPECT_FALSE(cost_of("aten::cudnn_convolution", {}, {}, std::nullopt).flops);
  EXPECT_EQ(cost_of("aten::max_pool2d_with_indices", {}, {}, std::nullopt).op_class, OpClass::reduction);
  EXPECT_EQ(cost_of("aten::linalg_vector_norm", {}, {}, std::nullopt).op_class, OpClass::reduction);
  EXPECT_EQ(cost_of("aten::uniform_", {}, {}, std::nullopt).op_class, OpClass::elementwise);
  EXPECT_EQ(cost_of("aten::cat", {}, {}, std::nullopt).op_class, OpClass::elementwise);
  EXPECT_EQ(lmroof::class_of_kernel_name("cudnn_infer_volta_scudnn_128x128_relu_small_nn_v1"), OpClass::matmul);
  EXPECT_EQ(lmroof::class_of_kernel_name("cask_cudnn_infer::computeBOffsetsKernel(cask_cudnn_infer::ComputeBOffsetsParams)"),
            OpClass::matmul);
  EXPECT_EQ(lmroof::class_of_kernel_name("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>"),
            OpClass::normalization);
  EXPECT_EQ(lmroof::class_of_kernel_name("void at::native::max_pool_forward_nchw<float, float>(int)"), OpClass::reduction);
  EXPECT_EQ(lmroof::class_of_kernel_name("void vllm::rotary_embedding_kernel<c10::BFloat16, true>"), OpClass::elementwise);
  EXPECT_EQ(lmroof::class_of_kernel_name("void split_embedding_codegen_forward_unweighted_kernel<float>"), OpClass::reduction);
  EXPECT_EQ(lmroof::class_of_kernel_name("void at::native::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>"),
            OpClass::elementwise);
  EXPECT_EQ(lmroof::class_of_kernel_name("void cub::DeviceScanKernel<int>"), OpClass::reduction);
  EXPECT_EQ(lmroof::class_of_kernel_name("triton__0d1d2d"), OpClass::other);  // an Inductor kernel that names no kind
}

// Exposed communication, by hand: a GEMM on stream 7 at [10, 30) µs, an all-reduce on
// stream 13 at [20, 50), a copy on stream 9 at [40, 45) (not compute), and a collective
// kernel queued before the profiler (unattributed) at [60, 70). Communication: 30 + 10 =
// 40 µs; the GEMM hides [20, 30): exposed 20 + 10 = 30 µs.
TEST(TraceCommunication, ExposedIsTheCollectivesTimeNoComputeKernelOverlaps) {
  TempDir dir;
  const TraceFile t = read_trace(dir.write("comm.json", R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],
"traceEvents":[
{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#0","pid":0,"tid":7,"ts":0,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":3,"args":{"Input Dims":[[64,64],[64,64]],"Input type":["float","float"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{"correlation":1}},
{"ph":"X","cat":"cpu_op","name":"nccl:all_reduce","pid":1,"tid":1,"ts":5,"dur":3,"args":{"Input Dims":[[1024]],"Input type":["float"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":6,"dur":1,"args":{"correlation":2}},
{"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":9,"dur":3,"args":{"Input Dims":[[64],[64],[]],"Input type":["float","float","bool"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":10,"dur":1,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":20,"args":{"correlation":1,"stream":7}},
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":13,"ts":20,"dur":30,"args":{"correlation":2,"stream":13}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD","pid":0,"tid":9,"ts":40,"dur":5,"args":{"correlation":3,"stream":9}},
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":13,"ts":60,"dur":10,"args":{"correlation":99,"stream":13}}
]})"));
  const auto table = lmroof::predict::load_device_file(lmroof::predict::bundled_devices_file());
  const TraceAnalysis a = analyze(t, resolve_roofs(t, table, "", std::nullopt), {});
  EXPECT_EQ(a.unattributed_kernels, 1u);
  ASSERT_TRUE(a.communication_s && a.exposed_communication_s);
  EXPECT_NEAR(*a.communication_s, 40e-6, 1e-15);
  EXPECT_NEAR(*a.exposed_communication_s, 30e-6, 1e-15);
  const auto doc = lmroof::model::to_json(to_trace_result(a, {a}));
  EXPECT_NEAR(doc["communication"]["exposed_share"].get<double>(), 0.75, 1e-12);
  EXPECT_EQ(lmroof::model::to_json(lmroof::model::read_trace_result(doc, "t/trace.json")), doc);
  // A CPU-only trace has no device timeline: nothing to overlap, so null, not 0.
  const TraceFile cpu = read_trace(dir.write("cpu.json", R"({"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"gloo:all_reduce","pid":1,"tid":1,"ts":20,"dur":70,"args":{"Input Dims":[[1000]],"Input type":["float"]}}]})"));
  const TraceAnalysis c = analyze(cpu, Roofs{}, {});
  EXPECT_FALSE(c.communication_s);
  EXPECT_TRUE(lmroof::model::to_json(to_trace_result(c, {c}))["communication"]["exposed_s"].is_null());
}

// ---- layouts (Input Strides) -------------------------------------------------------------

TEST(TraceLayouts, AGroupSplitsOnlyWhereNoCallOverlapsAndTheSeparationIsSignificant) {
  // 4 calls against 4 that never overlap: 2 / C(8, 4) = 0.029 < 0.05, two groups.
  EXPECT_EQ(layout_groups({{4.0, 4.25, 4}, {5.5, 5.75, 4}}), (std::vector<size_t>{0, 1}));
  // The same with 3 calls each: 2 / C(6, 3) = 0.1, not significant, one group.
  EXPECT_EQ(layout_groups({{4.0, 4.25, 3}, {5.5, 5.75, 3}}), (std::vector<size_t>{0, 0}));
  // Overlapping ranges: one group, however many calls.
  EXPECT_EQ(layout_groups({{4.0, 5.0, 100}, {4.5, 5.5, 100}}), (std::vector<size_t>{0, 0}));
  // Touching is overlapping (the slower layout's fastest call equals the other's slowest).
  EXPECT_EQ(layout_groups({{4.0, 5.0, 100}, {5.0, 6.0, 100}}), (std::vector<size_t>{0, 0}));
  // Three layouts, given out of order: the two fast ones overlap, the slow one stands apart.
  EXPECT_EQ(layout_groups({{9.0, 9.5, 5}, {4.0, 4.5, 5}, {4.25, 4.75, 5}}), (std::vector<size_t>{1, 0, 0}));
}

// A RoPE-like mul of [2, 8, 64] bf16 on a contiguous input (strides [1024, 64, 1]) and on a
// transposed one ([64, 128, 1]), the calls alternating; each call's kernel time (µs) from
// `contiguous_us` and `transposed_us` in turn.
std::string layouts_trace(const std::vector<double>& contiguous_us, const std::vector<double>& transposed_us) {
  std::string events = R"({"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#0","pid":0,"tid":7,"ts":0,"dur":10000})";
  double cpu = 1, gpu = 5;
  uint64_t id = 0;
  auto call = [&](std::string_view strides, double kernel_us) {
    ++id;
    events += fmt::format(R"(,
{{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":{},"dur":3,"args":{{"Input Dims":[[2,8,64],[2,8,64]],"Input type":["c10::BFloat16","c10::BFloat16"],"Input Strides":[{},[1024,64,1]]}}}},
{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":1,"args":{{"correlation":{}}}}},
{{"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":{},"dur":{},"args":{{"correlation":{},"stream":7}}}})",
                          cpu, strides, cpu + 1, id, gpu, kernel_us, id);
    cpu += 10, gpu += 20;
  };
  for (size_t i = 0; i < std::max(contiguous_us.size(), transposed_us.size()); ++i) {
    if (i < contiguous_us.size()) call("[1024,64,1]", contiguous_us[i]);
    if (i < transposed_us.size()) call("[64,128,1]", transposed_us[i]);
  }
  return R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[)" + events + "]}";
}

TEST(TraceLayouts, AnOpShapeSplitsByInputStridesOnlyWhenItsTimesDiffer) {
  TempDir dir;
  auto muls = [&](const std::string& name, const std::string& text) {
    const TraceFile t = read_trace(dir.write(name, text));
    const TraceAnalysis a = analyze(t, Roofs{}, {});
    std::vector<OpRow> rows;
    for (const auto& r : a.ops)
      if (r.name == "aten::mul") rows.push_back(r);
    return rows;
  };
  // 4 calls of 4.0 and 4.25 µs contiguous against 5.5 and 5.75 µs transposed: two rows,
  // each with its layout and the range of its calls.
  auto rows = muls("split.json", layouts_trace({4.0, 4.25, 4.0, 4.25}, {5.5, 5.75, 5.5, 5.75}));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].input_strides, "[[64,128,1],[1024,64,1]]");  // by time: the slower first
  EXPECT_EQ(rows[0].calls, 4u);
  EXPECT_DOUBLE_EQ(rows[0].device_time_s, 22.5e-6);
  EXPECT_DOUBLE_EQ(*rows[0].fastest_call_s, 5.5e-6);
  EXPECT_DOUBLE_EQ(*rows[0].slowest_call_s, 5.75e-6);
  EXPECT_EQ(rows[1].input_strides, "[[1024,64,1],[1024,64,1]]");
  EXPECT_DOUBLE_EQ(rows[1].device_time_s, 16.5e-6);
  // Three calls each cannot show it (p = 0.1): one row, no layout shown.
  rows = muls("few.json", layouts_trace({4.0, 4.25, 4.0}, {5.5, 5.75, 5.5}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].calls, 6u);
  EXPECT_EQ(rows[0].input_strides, "");
  EXPECT_FALSE(rows[0].fastest_call_s);
  // Layouts that run alike: one row with every call.
  rows = muls("alike.json", layouts_trace({4.0, 4.25, 4.0, 4.25}, {4.0, 4.25, 4.25, 4.0}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].calls, 8u);
  EXPECT_DOUBLE_EQ(rows[0].device_time_s, 33e-6);
  EXPECT_EQ(rows[0].kernel_launches, 8u);
  // Input Strides that are no array (a string, a number) are no layout: ignored, the row
  // whole; one that is an array of odd content is a layout like any other, its text as written.
  std::string odd = layouts_trace({4.0, 4.25, 4.0, 4.25}, {5.5, 5.75, 5.5, 5.75});
  for (auto [from, to] : {std::pair<std::string, std::string>("[[1024,64,1],[1024,64,1]]", "\"[[1024,64,1]]\""),
                          std::pair<std::string, std::string>("[[64,128,1],[1024,64,1]]", "7")})
    for (size_t at = odd.find(from); at != std::string::npos; at = odd.find(from, at)) odd.replace(at, from.size(), to);
  rows = muls("odd.json", odd);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].calls, 8u);
  std::string nested = layouts_trace({4.0, 4.25, 4.0, 4.25}, {5.5, 5.75, 5.5, 5.75});
  for (size_t at = nested.find("[[64,128,1],"); at != std::string::npos; at = nested.find("[[64,128,1],", at + 1))
    nested.replace(at, 11, "[[[-1],\"s\",1.5]");
  rows = muls("nested.json", nested);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].input_strides, "[[[-1],\"s\",1.5],[1024,64,1]]");
}

// ---- ranks -----------------------------------------------------------------------------

// One rank: an fp32 add of two [1024, 1024] tensors (3 · 4 MiB = 12,582,912 bytes a call,
// memory-bound everywhere) in one step of `step_us`, its kernel `kernel_us` long.
std::string rank_trace(std::string_view device, int rank, int world, double step_us, double kernel_us, bool steps = true) {
  return fmt::format(R"({{"deviceProperties":[{{"id":0,"name":"{}"}}],"distributedInfo":{{"rank":{},"world_size":{}}},
"traceEvents":[
{}{{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1,"dur":3,"args":{{"Input Dims":[[1024,1024],[1024,1024],[]],"Input type":["float","float","Scalar"]}}}},
{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{{"correlation":1}}}},
{{"ph":"X","cat":"kernel","name":"vectorized_elementwise_kernel","pid":0,"tid":7,"ts":5,"dur":{},"args":{{"correlation":1,"stream":7}}}},
{{"ph":"X","cat":"kernel","name":"vectorized_elementwise_kernel","pid":0,"tid":7,"ts":900,"dur":1,"args":{{"correlation":77,"stream":7}}}}
]}})",
                     device, rank, world,
                     steps ? fmt::format(R"({{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#0","pid":0,"tid":7,"ts":0,"dur":{}}},)", step_us)
                           : std::string(),
                     kernel_us);
}

TEST(TraceRanks, EachRankOnItsOwnDeviceWarnedWhenMixedAndSlowestByStepTime) {
  TempDir dir;
  const auto table = lmroof::predict::load_device_file(lmroof::predict::bundled_devices_file());
  std::vector<TraceAnalysis> ranks;
  for (const auto& [name, text] : {std::pair("a100.json", rank_trace("NVIDIA A100-SXM4-80GB", 0, 2, 50, 20)),
                                   std::pair("v100.json", rank_trace("Tesla V100-SXM2-32GB", 1, 4, 100, 20))}) {
    const TraceFile t = read_trace(dir.write(name, text));
    ranks.push_back(analyze(t, resolve_roofs(t, table, "", std::nullopt), {}));
  }
  const TraceAnalysis merged = merge_ranks(ranks);
  // One row per device, each at its own bandwidth: 12,582,912 B / 2.039 TB/s and / 0.9 TB/s, over 20 µs.
  const OpRow* a100 = nullptr;
  const OpRow* v100 = nullptr;
  for (const auto& r : merged.ops) {
    if (r.device == "A100 80GB SXM") a100 = &r;
    if (r.device == "V100 SXM2") v100 = &r;
  }
  ASSERT_TRUE(a100 && v100);
  EXPECT_NEAR(*a100->fraction_of_roof, 12582912 / 2.039e12 / 20e-6, 1e-9);
  EXPECT_NEAR(*v100->fraction_of_roof, 12582912 / 0.9e12 / 20e-6, 1e-9);
  EXPECT_EQ(merged.roofs.source, "per_rank");
  EXPECT_FALSE(merged.roofs.device);  // no single device's roofs stand for the folder
  const auto doc = lmroof::model::to_json(to_trace_result(merged, ranks));
  ASSERT_EQ(doc["rank_warnings"].size(), 2u);
  EXPECT_EQ(doc["rank_warnings"][0]["kind"], "mixed_devices");
  EXPECT_NE(doc["rank_warnings"][0]["message"].get<std::string>().find("Tesla V100-SXM2-32GB (rank 1)"), std::string::npos);
  EXPECT_EQ(doc["rank_warnings"][1]["kind"], "mixed_world_sizes");
  EXPECT_EQ(doc["ranks"][1]["roofs"], "V100 SXM2");
  EXPECT_DOUBLE_EQ(doc["ranks"][0]["step_time_s"].get<double>(), 50e-6);
  EXPECT_EQ(doc["slowest_rank"], 1);
  // trace.json's one reader gives back what its one writer wrote, field for field.
  EXPECT_EQ(lmroof::model::to_json(lmroof::model::read_trace_result(doc, "t/trace.json")), doc);

  // A rank without ProfilerStep ranges has no step time (not its capture's 896 µs), and
  // is not named slowest for it. Same devices and world sizes: no warning, one row.
  std::vector<TraceAnalysis> same;
  for (const auto& [name, text] : {std::pair("r0.json", rank_trace("NVIDIA A100-SXM4-80GB", 0, 2, 50, 20)),
                                   std::pair("r1.json", rank_trace("NVIDIA A100-SXM4-80GB", 1, 2, 0, 20, false))}) {
    const TraceFile t = read_trace(dir.write(name, text));
    same.push_back(analyze(t, resolve_roofs(t, table, "", std::nullopt), {}));
  }
  const auto same_doc = lmroof::model::to_json(to_trace_result(merge_ranks(same), same));
  EXPECT_TRUE(same_doc["rank_warnings"].empty());
  EXPECT_TRUE(same_doc["ranks"][1]["step_time_s"].is_null());
  EXPECT_EQ(same_doc["slowest_rank"], 0);
  EXPECT_EQ(same_doc["device"]["table_name"], "A100 80GB SXM");
  EXPECT_FALSE(same_doc["ops"][0].contains("device"));
}

TEST(TraceDevices, NamesMatchTheTable) {
  const auto table = lmroof::predict::load_device_file(lmroof::predict::bundled_devices_file());
  EXPECT_EQ(match_device_name("NVIDIA H100 80GB HBM3", table), "H100 SXM");
  EXPECT_EQ(match_device_name("NVIDIA H100 PCIe", table), "H100 PCIe");
  EXPECT_EQ(match_device_name("NVIDIA H200", table), "H200 SXM");
  EXPECT_EQ(match_device_name("NVIDIA A100-SXM4-40GB", table), "A100 40GB");
  EXPECT_EQ(match_device_name("NVIDIA A100-SXM4-80GB", table), "A100 80GB SXM");
  EXPECT_EQ(match_device_name("Tesla V100-SXM2-32GB", table), "V100 SXM2");
  EXPECT_EQ(match_device_name("AMD Instinct MI300X", table), "MI300X");
  EXPECT_EQ(match_device_name("AMD Instinct MI250X", table), "MI250X");
  EXPECT_EQ(match_device_name("NVIDIA GeForce RTX 4090", table), "RTX 4090");
  EXPECT_EQ(match_device_name("NVIDIA L40S", table), "L40S");
  EXPECT_EQ(match_device_name("NVIDIA B200", table), "B200");
  EXPECT_FALSE(match_device_name("NVIDIA H100 NVL", table));
  EXPECT_FALSE(match_device_name("Radeon 780M", table));
  // An A100 named by its board (HTA's test traces): its memory tells the entry; without it, none.
  EXPECT_EQ(match_device_name("NVIDIA A100-PG509-200", table, 42297524224.0), "A100 40GB");
  EXPECT_EQ(match_device_name("NVIDIA A100-PG509-200", table, 85e9), "A100 80GB SXM");
  EXPECT_FALSE(match_device_name("NVIDIA A100-PG509-200", table));
  TraceFile t;
  EXPECT_THROW(resolve_roofs(t, table, "Voodoo 2", std::nullopt), lmroof::model::InputError);
  t.devices.push_back({0, "Radeon 780M", {}, {}, {}, {}});
  const Roofs r = resolve_roofs(t, table, "", std::nullopt);
  EXPECT_FALSE(r.device);
  EXPECT_NE(r.why_unknown.find("Radeon 780M"), std::string::npos);
}

}  // namespace
