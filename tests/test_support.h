#pragma once
// Shared by the tests: fresh random seeds (printed on failure by each test) and
// readable parameterized test names.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <ostream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "analysis/results/findings.h"
#include "analysis/results/results.h"
#include "bench/catalogue.h"
#include "kernels/run_names/shape.h"

namespace lmroof::test {

// A Results built or changed by hand, with the findings the analysis decides from it
// (lmroof::decide): what check_claims and the reports read.
inline model::Results decided(model::Results r) {
  decide(r);
  return r;
}

// tests/data/results_small.json, read as `lmroof report` reads a results file.
inline model::Results small_results() {
  std::ifstream in(std::string(LMROOF_TEST_DATA) + "/results_small.json");
  EXPECT_TRUE(in);
  return results_from_document(nlohmann::json::parse(in), "results.json", registry_catalogue());
}

inline uint64_t fresh_seed() {
  static std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) | device();
}

inline std::string sanitize(std::string s) {
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// For TestWithParam<tuple<variant, impl, Shape>>.
struct ParamName {
  template <typename Tuple>
  std::string operator()(const ::testing::TestParamInfo<Tuple>& info) const {
    const auto& [variant, impl, shape] = info.param;
    return sanitize(std::string(variant) + "_" + std::string(impl) + "_" + shape.bench_suffix());
  }
};
inline constexpr ParamName param_name{};

}  // namespace lmroof::test

namespace lmroof {
// Readable parameter values in test listings ("tokens=3 d_model=1000", not bytes).
inline void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.label(); }
}  // namespace lmroof
