// Validation before timing (bench/validate_before_timing.h): which shapes a kernel is
// checked on, that a correct kernel passes with its error recorded, and that the
// record travels through bench.json into results.json and back.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/model/results_model.h"
#include "analysis/results/results.h"
#include "bench/suite.h"
#include "bench_fixture.h"
#include "bench/validate_before_timing.h"
#include "registry.h"

namespace lmroof {
namespace {

RunSpec spec(const std::string& pair, const std::string& variant, const std::string& impl) {
  return {pair, variant, impl, Backend::cpu, DType::fp32, {}};
}

TEST(ValidateBeforeTiming, ShapesCoverThePhasesAndOddSizes) {
  // The sliding window is checked with contexts below and above its W: the windowed
  // path and the one where the window changes nothing.
  const auto window = bench::validation_shapes(spec("window", "sliding", "grouped"));
  const auto beyond = [](const Shape& s) { return s["context"] > s["window"]; };
  EXPECT_TRUE(std::any_of(window.begin(), window.end(), beyond));
  EXPECT_TRUE(std::any_of(window.begin(), window.end(), [&](const Shape& s) { return !beyond(s); }));
  // Odd sizes are added where the pair accepts them (vector tails, uneven thread splits).
  const auto norm = bench::validation_shapes(spec("norm", "rmsnorm", "fused"));
  EXPECT_TRUE(std::any_of(norm.begin(), norm.end(), [](const Shape& s) { return s["d_model"] % 2 == 1; }));
  // Attention's prefill level is checked on its prefill shape, the decode level on decode
  // shapes (one token per sequence): each on the phase it runs.
  const auto decode = bench::validation_shapes(spec("attention", "mha", "decode"));
  EXPECT_GE(decode.size(), 2u);
  for (const auto& s : bench::validation_shapes(spec("attention", "mha", "prefill")))
    EXPECT_EQ(std::find(decode.begin(), decode.end(), s), decode.end()) << s.label();
  // Every shape is small: the float64 reference must stay cheap beside the timing.
  for (const auto& s : window) EXPECT_LT(bench::footprint_bytes({"window", "sliding", "grouped", Backend::cpu, DType::fp32, s}), 64e6);
}

TEST(ValidateBeforeTiming, CorrectKernelPassesWithItsWorstErrorRecorded) {
  const auto& v = bench::validate_before_timing(spec("norm", "rmsnorm", "fused"));
  EXPECT_TRUE(v.passed) << v.failure;
  EXPECT_TRUE(v.failure.empty());
  EXPECT_GE(v.error, 0);
  EXPECT_LE(v.error, v.tolerance);
  EXPECT_EQ(v.tolerance, tolerance_for(DType::fp32));
  EXPECT_EQ(v.shapes_checked, static_cast<int>(bench::validation_shapes(spec("norm", "rmsnorm", "fused")).size()));
  EXPECT_TRUE(v.shape.has("d_model"));
  // Once per kernel: the second call returns the first result.
  EXPECT_EQ(&bench::validate_before_timing(spec("norm", "rmsnorm", "fused")), &v);
}

using test::bench_entry;  // tests/bench_fixture.h

TEST(ValidateBeforeTiming, RecordTravelsIntoResultsAndBack) {
  const std::string validated = "norm/rmsnorm/fused/cpu/fp32/tokens:4/d_model:8";
  const std::string older = "norm/layernorm/fused/cpu/fp32/tokens:4/d_model:8";
  nlohmann::json b = nlohmann::json::array();
  b.push_back(bench_entry("ceiling/cpu/copy", 10, {{"ceiling_bytes", 2e8}}));
  b.push_back(bench_entry("ceiling/cpu/fp32_fma", 10, {{"ceiling_flops", 1e9}}));
  for (double t : {1.0, 1.5})
    b.push_back(bench_entry(validated, t, {{"validated_error", 3e-7}, {"validated_tolerance", 1e-5}, {"validated_shapes", 2},
                                      {"validated_shape/tokens", 511}, {"validated_shape/d_model", 1023}}));
  for (double t : {1.0, 1.5}) b.push_back(bench_entry(older, t, nlohmann::json::object()));  // a file from before validation
  const nlohmann::json bench = {{"context", {{"host_name", "test"}, {"num_cpus", 2}}}, {"benchmarks", b}};
  const model::Results results = build_results(parse_bench_json(test::as_measured(bench), "test"), {});
  nlohmann::json doc = model::to_json(results);
  for (const auto& r : doc["runs"]) {
    if (r["id"] == validated) {
      EXPECT_EQ(r["validated"], (nlohmann::json{{"error", 3e-7}, {"tolerance", 1e-5}, {"shapes", 2},
                                                {"shape", {{"tokens", 511}, {"d_model", 1023}}}}));
    } else {
      EXPECT_TRUE(r["validated"].is_null()) << r["id"];
    }
  }
  EXPECT_EQ(model::to_json(model::results_from_json(doc, "ok.json")), doc);
  // Older files without the key still read.
  for (auto& r : doc["runs"]) r.erase("validated");
  EXPECT_NO_THROW(model::results_from_json(doc, "old.json"));
  // A timed run whose validation failed cannot be: the reader refuses it, naming the field.
  doc = model::to_json(results);
  for (auto& r : doc["runs"])
    if (r["id"] == validated) r["validated"]["error"] = 2e-5;
  try {
    model::results_from_json(doc, "bad.json");
    ADD_FAILURE() << "a run that failed validation was accepted as timed";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: /runs/"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/validated/error"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lmroof
