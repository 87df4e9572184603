// Shapes of the user's choosing: each pair's derivation from a model, the size options
// (--context, --tokens, --batch, --shape) and the memory check, all before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <algorithm>
#include <set>
#include <string>

#include "bench/suite.h"
#include "registry.h"

namespace lmroof {
namespace {

std::vector<RunSpec> runs_of(const std::vector<RunSpec>& runs, const std::string& pair, const std::string& variant = "") {
  std::vector<RunSpec> out;
  for (const auto& r : runs)
    if (r.pair == pair && (variant.empty() || r.variant == variant)) out.push_back(r);
  return out;
}

bench::SuiteOptions model_suite(const std::string& model, bool quick = false) {
  bench::SuiteOptions o;
  o.quick = quick;
  o.shapes.model = find_model(model);
  return o;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ModelShapes, Llama3_8bDecodeKeepsItsHeadsAndComparesMhaGqaMqa) {
  bench::SuiteOptions o = model_suite("llama3-8b", /*quick=*/true);
  o.pairs = {"decode"};
  const auto plan = bench::plan_suite(o);
  for (const auto& [variant, kv] : {std::pair{"mha", 32}, std::pair{"gqa", 8}, std::pair{"mqa", 1}}) {
    const auto runs = runs_of(plan.runs, "decode", variant);
    ASSERT_EQ(runs.size(), 3u * 3u) << variant;  // naive, grouped, blas x the quick contexts 128, 256, 512
    std::set<int64_t> contexts;
    for (const auto& r : runs) {
      EXPECT_EQ(r.shape["q_heads"], 32);
      EXPECT_EQ(r.shape["kv_heads"], kv) << variant;
      EXPECT_EQ(r.shape["head_dim"], 128);
      EXPECT_EQ(r.shape["batch"], 2);
      contexts.insert(r.shape["context"]);
    }
    EXPECT_EQ(contexts, (std::set<int64_t>{128, 256, 512}));
  }
  const std::string notes = [&] {
    std::string all;
    for (const auto& n : plan.notes) all += n + "\n";
    return all;
  }();
  EXPECT_NE(notes.find("--quick scales the model's runs down"), std::string::npos) << notes;
  EXPECT_NE(notes.find("llama3-8b is GQA (32 q heads, 8 kv heads, head_dim 128)"), std::string::npos) << notes;
}

TEST(ModelShapes, EveryPairDerivesFromTheModel) {
  bench::SuiteOptions o = model_suite("llama3-8b");
  o.shapes.tokens = 128;
  const auto runs = bench::plan_suite(o).runs;
  for (const auto& r : runs_of(runs, "norm")) EXPECT_EQ(r.shape, (Shape{{"tokens", 128}, {"d_model", 4096}}));
  for (const auto& r : runs_of(runs, "bias"))
    EXPECT_EQ(r.shape, (Shape{{"tokens", 128}, {"in_features", 4096}, {"out_features", 14336}}));
  for (const auto& r : runs_of(runs, "block"))
    EXPECT_EQ(r.shape, (Shape{{"tokens", 128}, {"d_model", 4096}, {"d_ff", 14336}, {"q_heads", 32}, {"head_dim", 128}}));
  // mlp: the model's SwiGLU at its d_ff, GeLU at the same parameters (3·14336 = 2·21504)
  for (const auto& r : runs_of(runs, "mlp", "swiglu")) EXPECT_EQ(r.shape["d_ff"], 14336);
  for (const auto& r : runs_of(runs, "mlp", "gelu")) EXPECT_EQ(r.shape["d_ff"], 21504);
  // decode: the default CPU sweep 1k..8k at batch 4
  std::set<int64_t> contexts;
  for (const auto& r : runs_of(runs, "decode")) contexts.insert(r.shape["context"]);
  EXPECT_EQ(contexts, (std::set<int64_t>{1024, 2048, 4096, 8192}));
  for (const auto& r : runs) EXPECT_NO_THROW(cost_of(r)) << r.bench_name();
}

TEST(ModelShapes, PlainMlpModelsRunTheGatedAlternativeAtMatchedParameters) {
  const auto runs = bench::plan_suite(model_suite("gpt2")).runs;
  for (const auto& r : runs_of(runs, "mlp", "gelu")) EXPECT_EQ(r.shape["d_ff"], 3072);
  for (const auto& r : runs_of(runs, "mlp", "swiglu")) EXPECT_EQ(r.shape["d_ff"], 2048);
}

TEST(ModelShapes, BlockSaysWhatItCannotRepresent) {
  // Gemma-2: q_heads·head_dim = 4096 != hidden 3584, which the block kernel needs equal
  bench::SuiteOptions o = model_suite("gemma2-9b", true);
  const auto plan = bench::plan_suite(o);
  EXPECT_TRUE(runs_of(plan.runs, "block").empty());
  EXPECT_FALSE(runs_of(plan.runs, "decode").empty());
  bool said = false;
  for (const auto& n : plan.notes) said |= n.find("block: skipped for gemma2-9b") != std::string::npos;
  EXPECT_TRUE(said);
  // Falcon: MQA and LayerNorm, noted; the block still runs at its dimensions
  const auto falcon = bench::plan_suite(model_suite("falcon-7b", true));
  EXPECT_FALSE(runs_of(falcon.runs, "block").empty());
  std::string notes;
  for (const auto& n : falcon.notes) notes += n + "\n";
  EXPECT_NE(notes.find("falcon-7b uses LayerNorm; the block kernel runs RMSNorm"), std::string::npos) << notes;
  EXPECT_NE(notes.find("falcon-7b's own block is parallel"), std::string::npos) << notes;
}

TEST(ModelShapes, EveryPresetPlansEveryPairOnBothBackends) {
  for (const auto& name : preset_names())
    for (bool quick : {false, true}) {
      bench::SuiteOptions o = model_suite(name, quick);
      const auto plan = bench::plan_suite(o);
      EXPECT_FALSE(runs_of(plan.runs, "decode").empty()) << name;
      EXPECT_FALSE(runs_of(plan.runs, "norm").empty()) << name;
      for (const auto& r : plan.runs) EXPECT_GT(bench::footprint_bytes(r), 0) << r.bench_name();
    }
}

TEST(ShapeOptions, ContextListsAndRanges) {
  EXPECT_EQ(bench::parse_context_list("1k..8k"), (std::vector<int64_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(bench::parse_context_list("1k,4k,32k"), (std::vector<int64_t>{1024, 4096, 32768}));
  EXPECT_EQ(bench::parse_context_list("1000..5000"), (std::vector<int64_t>{1000, 2000, 4000}));
  EXPECT_EQ(bench::parse_context_list("1k..128k").size(), 8u);
  EXPECT_EQ(bench::parse_context_list(" 512 "), (std::vector<int64_t>{512}));
  for (const char* bad : {"", "0", "-1", "abc", "1k,", "8k..1k", "1x", "1.5k", "99999999999", "1k..", "k"})
    EXPECT_THROW(bench::parse_context_list(bad), std::invalid_argument) << bad;
  EXPECT_NE(error_of([] { bench::parse_context_list("-4k"); }).find("--context: '-4k' must be positive"), std::string::npos);
  EXPECT_NE(error_of([] { bench::parse_size("many", "--tokens"); }).find("--tokens: 'many' is not a whole number"),
            std::string::npos);
}

TEST(ShapeOptions, ShapeOverrideParses) {
  const auto o = bench::parse_shape_override("decode:context=32768,batch=2");
  EXPECT_EQ(o.pair, "decode");
  ASSERT_EQ(o.dims.size(), 2u);
  EXPECT_EQ(o.dims[0], (std::pair<std::string, int64_t>{"context", 32768}));
  EXPECT_EQ(o.dims[1], (std::pair<std::string, int64_t>{"batch", 2}));
  for (const char* bad : {"decode", "decode:", ":context=1", "decode:context", "decode:context=", "decode:context=0",
                          "decode:context=-5", "decode:context=abc", "decode:=4"})
    EXPECT_THROW(bench::parse_shape_override(bad), std::invalid_argument) << bad;
}

TEST(ShapeOptions, ShapeAddsOneShapeToEachVariant) {
  bench::SuiteOptions o = model_suite("llama3-8b", true);
  o.pairs = {"decode"};
  o.shapes.overrides = {bench::parse_shape_override("decode:context=32768")};
  const auto runs = bench::plan_suite(o).runs;
  for (const char* variant : {"mha", "gqa", "mqa"}) {
    int found = 0;
    for (const auto& r : runs_of(runs, "decode", variant))
      if (r.shape["context"] == 32768) {
        ++found;
        EXPECT_EQ(r.shape["q_heads"], 32);
      }
    EXPECT_EQ(found, 3) << variant;  // naive, grouped and blas
  }
}

TEST(ShapeOptions, ShapeWithoutModelAndVariantDims) {
  bench::SuiteOptions o;
  o.quick = true;
  o.pairs = {"decode"};
  o.shapes.overrides = {bench::parse_shape_override("decode:kv_heads=4,context=64")};
  const auto runs = bench::plan_suite(o).runs;
  // gqa takes kv_heads=4; mha and mqa keep their own
  for (const auto& r : runs)
    if (r.shape["context"] == 64) {
      EXPECT_EQ(r.shape["kv_heads"], r.variant == "gqa" ? 4 : r.variant == "mha" ? r.shape["q_heads"] : 1) << r.bench_name();
    }
}

TEST(ShapeOptions, BadShapesFailBeforeAnythingRuns) {
  auto plan_error = [](const std::string& shape) {
    return error_of([&] {
      bench::SuiteOptions o = model_suite("llama3-8b", true);
      o.shapes.overrides = {bench::parse_shape_override(shape)};
      bench::plan_suite(o);
    });
  };
  EXPECT_NE(plan_error("decode:colour=3").find("pair 'decode' has no dimension 'colour' (its dimensions: batch, q_heads, "
                                               "kv_heads, head_dim, context)"),
            std::string::npos);
  EXPECT_NE(plan_error("decode:kv_heads=5").find("kv_heads=5 does not divide q_heads=32"), std::string::npos)
      << plan_error("decode:kv_heads=5");
  EXPECT_NE(plan_error("nosuch:tokens=4").find("unknown pair 'nosuch'"), std::string::npos);
  EXPECT_NE(plan_error("block:q_heads=3").find("--shape 'block:q_heads=3'"), std::string::npos);
  const std::string absurd = plan_error("norm:tokens=16000000");
  EXPECT_NE(absurd.find("x would hold"), std::string::npos) << absurd;
  EXPECT_NE(absurd.find("lower --tokens"), std::string::npos) << absurd;  // what to do
  // a pair outside --suite
  EXPECT_NE(error_of([] {
              bench::SuiteOptions o;
              o.pairs = {"norm"};
              o.shapes.overrides = {bench::parse_shape_override("decode:context=64")};
              bench::plan_suite(o);
            }).find("pair 'decode' is not in the suite"),
            std::string::npos);
}

TEST(ShapeOptions, TokensBatchAndContextResizeTheSuiteWithoutAModel) {
  bench::SuiteOptions o;
  o.quick = true;
  o.shapes.tokens = 32;
  o.shapes.batch = 1;
  o.shapes.contexts = {100, 200};
  const auto runs = bench::plan_suite(o).runs;
  for (const auto& r : runs) {
    if (r.shape.has("tokens")) {
      EXPECT_EQ(r.shape["tokens"], 32) << r.bench_name();
    }
    if (r.shape.has("batch")) {
      EXPECT_EQ(r.shape["batch"], 1) << r.bench_name();
    }
    if (r.shape.has("context")) {
      EXPECT_TRUE(r.shape["context"] == 100 || r.shape["context"] == 200) << r.bench_name();
    }
  }
}

TEST(ShapeOptions, PlainSuiteIsUnchanged) {
  for (bool quick : {false, true}) {
    bench::SuiteOptions o;
    o.quick = quick;
    // The suites' own shapes exactly as before --model existed, each pair's runs of one
    // shape (apart from its variant dimensions) back to back, in the order the shapes
    // first appear in the catalogue's order, and within a shape in the catalogue's order
    // (bench/suite_plan.cpp, group_by_shape).
    std::vector<std::string> expected;
    for (const auto& p : all_pairs()) {
      std::vector<std::pair<std::map<std::string, int64_t>, std::vector<std::string>>> groups;
      for (const auto& c : p.combos)
        for (const auto& s : quick ? p.quick_shapes : p.default_shapes)
          if (!p.runs_shape || p.runs_shape(c, s)) {  // a combination's own shapes (attention's phases)
            const RunSpec spec{p.name, c.variant, c.impl, Backend::cpu, DType::fp32, p.complete_shape(c.variant, s)};
            std::map<std::string, int64_t> key(spec.shape.dims().begin(), spec.shape.dims().end());
            for (const auto& d : p.variant_dims) key.erase(d);
            auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
            if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
            it->second.push_back(spec.bench_name());
          }
      for (const auto& g : groups) expected.insert(expected.end(), g.second.begin(), g.second.end());
    }
    const auto plan = bench::plan_suite(o);
    std::vector<std::string> names;
    for (const auto& r : plan.runs) names.push_back(r.bench_name());
    EXPECT_EQ(names, expected);
    EXPECT_TRUE(plan.notes.empty());
  }
}

// A pair without a model derivation (attention) runs its usual runs under --model:
// each combination at its own shapes (prefill and decode take different ones), not
// every combination at every shape.
TEST(ShapeOptions, PairWithoutModelDerivationRunsItsUsualRuns) {
  bench::SuiteOptions plain;
  plain.pairs = {"attention"};
  bench::SuiteOptions with_model = model_suite("llama3-8b");
  with_model.pairs = {"attention"};
  std::vector<std::string> expected, names;
  for (const auto& r : bench::plan_suite(plain).runs) expected.push_back(r.bench_name());
  for (const auto& r : bench::plan_suite(with_model).runs) names.push_back(r.bench_name());
  EXPECT_EQ(names, expected);
}

// The decode runs of one context, every variant and impl, run back to back: their
// workloads reuse each other's memory (kernels/common/host_buffer.h).
TEST(ShapeOptions, RunsOfOneShapeRunBackToBack) {
  bench::SuiteOptions o;
  o.pairs = {"decode"};
  const auto runs = bench::plan_suite(o).runs;
  ASSERT_GE(runs.size(), 9u);
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(runs[i].shape["context"], runs[0].shape["context"]) << runs[i].bench_name();
  EXPECT_NE(runs[9].shape["context"], runs[0].shape["context"]);
}

TEST(MemoryCheck, RefusesWithTheEstimateAndTheLimit) {
  bench::SuiteOptions o = model_suite("llama3-70b");
  o.pairs = {"decode"};
  o.shapes.contexts = {32768};
  o.shapes.batch = 2;
  const auto runs = bench::plan_suite(o).runs;
  // MHA at 32k: 2 x 64 heads x 32768 x 128 x 4 B x 2 (K and V) = 4.295 GB (+ q and out)
  const std::string e = error_of([&] { bench::check_footprint(runs, 1e9, "test limit"); });
  EXPECT_NE(e.find("decode/mha/"), std::string::npos) << e;
  EXPECT_NE(e.find("needs at least 4.3"), std::string::npos) << e;
  EXPECT_NE(e.find("more than the 1.00 GB of test limit"), std::string::npos) << e;
  // A shape beyond the per-tensor limit is refused while planning, naming the model
  o.shapes.contexts = {131072};
  o.shapes.batch = 8;
  const std::string big = error_of([&] { bench::plan_suite(o); });
  EXPECT_NE(big.find("--model llama3-70b: decode/mha: "), std::string::npos) << big;
  EXPECT_NE(big.find("the K cache would hold 8.59e+09 elements at batch=8 q_heads=64"), std::string::npos) << big;
  // what the limit is (one buffer's int32 element count, not memory) and what to do
  EXPECT_NE(big.find("more than the 2147483648 (2^31) one buffer may hold"), std::string::npos) << big;
  EXPECT_NE(big.find("not memory"), std::string::npos) << big;
  EXPECT_NE(big.find("lower --batch or --context"), std::string::npos) << big;
  EXPECT_EQ(big.find("batch=8", big.find("batch=8") + 1), std::string::npos) << "the shape twice: " << big;
  EXPECT_NO_THROW(bench::check_footprint(runs, 1e12, "a big machine"));
}

}  // namespace
}  // namespace lmroof
