// The results model (analysis/model/): one validating reader, one writer. Every field
// of a run, changed to a wrong type or an impossible value, is rejected with its path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <string>

#include "analysis/model/json_input.h"
#include "analysis/numbers/numbers.h"
#include "analysis/model/results_model.h"
#include "analysis/results/results.h"
#include "bench/catalogue.h"
#include "analysis/stats/statistics.h"

namespace lmroof {
namespace {

using nlohmann::json;

json small_results() { return model::read_json_file(std::string(LMROOF_TEST_DATA) + "/results_small.json"); }

std::string error_of(const json& doc) {
  try {
    (void)model::results_from_json(doc, "r.json");
  } catch (const model::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Model, ReadsAndWritesARealResultsFile) {
  const json doc = small_results();
  const model::Results r = model::results_from_json(doc, "results_small.json");
  ASSERT_FALSE(r.runs.empty());
  EXPECT_EQ(r.runs.size(), doc["runs"].size());
  EXPECT_EQ(r.runs[0].id, doc["runs"][0]["id"].get<std::string>());
  EXPECT_DOUBLE_EQ(r.runs[0].time_s.median, doc["runs"][0]["time_s"]["median"].get<double>());
  EXPECT_EQ(r.run(r.runs.back().id), &r.runs.back());
  // Written and read back, the document is the same model.
  const json again = model::to_json(r);
  const model::Results r2 = model::results_from_json(again, "again.json");
  EXPECT_EQ(model::to_json(r2), again);
  EXPECT_EQ(again["schema"], model::kResultsSchema);
}

// The run fields declared once (results_model.h, declared_fields.h): on every committed
// example, the one reader and the one writer give back each such object as the file holds it.
TEST(Model, DeclaredRunFieldsReadAndWriteTheCommittedExamplesUnchanged) {
  size_t objects = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(LMROOF_SOURCE_DIR) / "docs/examples")) {
    const auto file = entry.path() / "results.json";
    if (!std::filesystem::exists(file)) continue;
    const json doc = model::read_json_file(file);
    for (const auto& run : doc.at("runs")) {
      const model::JsonCursor c(run, file.string());
      auto same = [&]<typename T>(const char* key) {
        if (!run.contains(key) || run[key].is_null()) return;
        ++objects;
        // As written then: the class "matrix" is "matmul" since 2026-12-07 (the reader takes both).
        const json written = json::parse(std::regex_replace(run[key].dump(), std::regex(R"("class":"matrix")"), R"("class":"matmul")"));
        json again = model::write_fields(model::read_fields<T>(c.at(key)));
        // A field added since the file was written (roofline.launch, 2026-12-03) reads as
        // absent and is written as null: the one difference allowed.
        for (auto it = again.begin(); it != again.end();)
          it = !written.contains(it.key()) && it.value().is_null() ? again.erase(it) : std::next(it);
        EXPECT_EQ(again, written) << file << " " << key;
      };
      same.template operator()<model::PredictedTime>("predicted");
      same.template operator()<model::DramProbe>("dram_probe");
      same.template operator()<model::Breakdown>("breakdown");
      same.template operator()<model::Kernels>("kernels");
      same.template operator()<model::TimeStats>("time_s");
      same.template operator()<model::Flops>("flops");
      same.template operator()<model::Bytes>("bytes");
      same.template operator()<model::Intensity>("intensity");
      same.template operator()<model::Achieved>("achieved");
      same.template operator()<model::RooflinePlacement>("roofline");
    }
  }
  EXPECT_GT(objects, 1000u);
}

// The fields declared once are the fields docs/results-schema.md documents: a field added
// to a declaration and not to the schema page fails here.
TEST(Model, EveryDeclaredRunFieldIsInTheSchemaDocument) {
  std::ifstream in(std::filesystem::path(LMROOF_SOURCE_DIR) / "docs/results-schema.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(doc.empty());
  auto documented = [&]<typename T>(const char* object) {
    for (const std::string& name : model::field_names<T>())
      EXPECT_TRUE(doc.find("`" + name + "`") != std::string::npos || doc.find("\"" + name + "\"") != std::string::npos)
          << object << "." << name << " is not in docs/results-schema.md";
  };
  documented.template operator()<model::TimeStats>("time_s");
  documented.template operator()<model::Flops>("flops");
  documented.template operator()<model::Bytes>("bytes");
  documented.template operator()<model::Intensity>("intensity");
  documented.template operator()<model::Achieved>("achieved");
  documented.template operator()<model::RooflinePlacement>("roofline");
  documented.template operator()<model::DramProbe>("dram_probe");
  documented.template operator()<model::PredictedTime>("predicted");
  documented.template operator()<model::Breakdown>("breakdown");
  documented.template operator()<model::ClassShare>("breakdown.classes[]");
  documented.template operator()<model::Kernels>("kernels");
  documented.template operator()<model::KernelTime>("kernels.list[]");
}

TEST(Model, RejectsUnknownSchemaAndEmptyNames) {
  json doc = small_results();
  doc["schema"] = "lmroof.results/2";
  EXPECT_EQ(error_of(doc), "r.json: /schema: this lmroof reads lmroof.results/1 documents (is \"lmroof.results/2\")");
  doc.erase("schema");
  EXPECT_NE(error_of(doc).find("r.json: /: missing 'schema'"), std::string::npos);
  EXPECT_NE(error_of(json::array()).find("r.json: /: must be an object"), std::string::npos);
}

TEST(Model, OperatorClassesAreTheOneVocabulary) {
  // A breakdown's class is an OpClass (kernels/run_names/op_class.h): "matrix", matmul's
  // name before 2026-12-07, reads as matmul and is written so; anything else is refused.
  json doc = small_results();
  size_t with_breakdown = doc["runs"].size();
  for (size_t i = 0; i < doc["runs"].size(); ++i)
    if (doc["runs"][i]["breakdown"].is_object()) with_breakdown = i;
  ASSERT_LT(with_breakdown, doc["runs"].size()) << "the fixture has a block run with a breakdown";
  json& cls = doc["runs"][with_breakdown]["breakdown"]["classes"][0]["class"];
  cls = "matrix";
  const json again = model::to_json(model::results_from_json(doc, "r.json"));
  EXPECT_EQ(again["runs"][with_breakdown]["breakdown"]["classes"][0]["class"], "matmul");
  cls = "tensor contraction";
  EXPECT_NE(error_of(doc).find("/runs/" + std::to_string(with_breakdown) + "/breakdown/classes/0/class: must be an operator class"),
            std::string::npos)
      << error_of(doc);
}

TEST(Model, RejectsDuplicateRunIds) {
  json doc = small_results();
  doc["runs"].push_back(doc["runs"][0]);
  const std::string last = std::to_string(doc["runs"].size() - 1);
  EXPECT_NE(error_of(doc).find("/runs/" + last + "/id: run id"), std::string::npos) << error_of(doc);
}

TEST(Model, RejectsCudaRunsInACpuFile) {
  json doc = small_results();
  doc["runs"][0]["backend"] = "cuda";
  EXPECT_NE(error_of(doc).find("/runs/0/backend: a cuda run in a cpu results file"), std::string::npos);
}

TEST(Model, RejectsLongStrings) {
  json doc = small_results();
  doc["machine"]["hostname"] = std::string(2'000'000, 'h');
  EXPECT_NE(error_of(doc).find("/machine/hostname: a string of 2000000 characters is longer"), std::string::npos);
}

TEST(Model, DepthLimitOnParse) {
  std::string deep(5000, '[');
  deep += std::string(5000, ']');
  try {
    (void)model::parse_json(deep, "deep.json");
    FAIL() << "no error";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("deep.json: JSON nested deeper than 64 levels"), std::string::npos);
  }
  // Very deep too: the parser stops long before the stack matters.
  std::string deeper(200000, '[');
  EXPECT_THROW((void)model::parse_json(deeper, "x"), model::InputError);
  EXPECT_NO_THROW((void)model::parse_json("[[[[1]]]]", "x"));
  try {
    (void)model::parse_json("{\"a\": }", "bad.json");
    FAIL();
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json:1:"), std::string::npos);
  }
  // A number no double holds is bad input naming the file, not an escaped
  // nlohmann::out_of_range (a fuzz finding, 2026-11-30).
  try {
    (void)model::parse_json("{\"a\": 9.88e58620}", "huge.json");
    FAIL();
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("huge.json: malformed JSON: number overflow"), std::string::npos) << e.what();
  }
}

// Every leaf of a run, in turn: a wrong type (a string where a number is, a number
// where a string is, ...) and, for numbers, an impossible value. Each must be an
// error naming that leaf's path, or a value the reader accepts unchanged (optional
// fields may be null).
void for_each_leaf(const json& j, const std::string& pointer, const std::function<void(const std::string&, const json&)>& f) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) for_each_leaf(v, model::pointer_append(pointer, k), f);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) for_each_leaf(j[i], pointer + "/" + std::to_string(i), f);
  } else {
    f(pointer, j);
  }
}

TEST(Model, EveryRunFieldMutatedIsRejectedWithItsPath) {
  const json doc = small_results();
  int checked = 0;
  for_each_leaf(doc["runs"][0], "/runs/0", [&](const std::string& path, const json& value) {
    std::vector<json> bad;
    if (value.is_number()) {
      bad = {json("12"), json(-1.0), json::array()};
    } else if (value.is_string()) {
      bad = {json(3), json::object()};
    } else if (value.is_boolean()) {
      bad = {json("yes")};
    } else {
      bad = {json(true), json(-1)};  // a null optional: a value of the wrong kind
    }
    for (const json& b : bad) {
      json mutated = doc;
      mutated[json::json_pointer(path)] = b;
      const std::string err = error_of(mutated);
      if (value.is_number() && b.is_number() && err.empty()) {
        // A negative value where the field allows it (none in a run today) would land here.
        ADD_FAILURE() << path << " = -1 was accepted";
        continue;
      }
      EXPECT_FALSE(err.empty()) << path << " = " << b.dump() << " was accepted";
      // The message names the field or one of its parents (a pair of related fields).
      const std::string parent = path.substr(0, path.rfind('/'));
      EXPECT_TRUE(err.find("r.json: " + path) != std::string::npos || err.find("r.json: " + parent) != std::string::npos)
          << path << " = " << b.dump() << ": " << err;
      ++checked;
    }
  });
  EXPECT_GT(checked, 60);
}

// Issue 9: an impossible value in a single field. A field derived from others (the
// intensity from FLOPs and bytes, rates from work and time, the roofline placement, a
// comparison's ratios) that disagrees with them beyond a relative 1e-6 is refused with
// its path, by `report` and `check` alike (tests/e2e/reader_errors.sh runs the CLI).
TEST(Model, DerivedFieldsMustAgreeWithWhatTheyAreDerivedFrom) {
  const json doc = small_results();
  ASSERT_EQ(error_of(doc), "");
  struct Case {
    std::string pointer;
    double factor;       // the field times this
    std::string needle;  // in the message, after "r.json: <pointer>: "
  };
  const std::vector<Case> cases = {
      {"/runs/3/intensity/value", 1.5, "is 0.75 but flops.total / bytes.model is 0.5 "},
      {"/runs/3/intensity/model", 1.01, "but flops.total / bytes.model is"},
      {"/runs/3/intensity/minimum", 0.5, "but flops.total / bytes.minimum is"},
      {"/runs/8/achieved/flop_per_s", 2, "but flops.total / time_s.median is"},
      {"/runs/8/achieved/byte_per_s", 2, "but bytes.model / time_s.median is"},
      {"/runs/8/achieved/byte_per_s_minimum", 0.9, "but bytes.minimum / time_s.median is"},
      {"/runs/0/flops/total", 2, "but matrix + vector + special is"},
      {"/runs/2/time_s/min", 0.5, "but the smallest sample is"},
      {"/runs/2/time_s/max", 2, "but the largest sample is"},
      {"/runs/2/time_s/mean", 1.001, "but the mean of the samples is"},
      {"/runs/5/roofline/ridge", 2, "but roofline.compute / roofline.bandwidth is"},
      {"/runs/5/roofline/attainable_flop_per_s", 0.5, "but min(roofline.compute, intensity.value x roofline.bandwidth)"},
      {"/runs/5/roofline/efficiency", 1.2, "but achieved.flop_per_s / attainable_flop_per_s is"},
      {"/runs/5/roofline/bandwidth_utilization", 0.8, "but achieved.byte_per_s / roofline.bandwidth is"},
      {"/comparisons/0/speedup", 2, "but the baseline's time_s.median / the candidate's is"},
      {"/comparisons/2/bytes_ratio", 3, "but the candidate's bytes.model / the baseline's is"},
      {"/comparisons/3/flops_ratio", 0.5, "but the candidate's flops.total / the baseline's is"},
  };
  for (const auto& c : cases) {
    json mutated = doc;
    auto& v = mutated[json::json_pointer(c.pointer)];
    v = v.get<double>() * c.factor;
    const std::string err = error_of(mutated);
    EXPECT_EQ(err.rfind("r.json: " + c.pointer + ": ", 0), 0u) << c.pointer << ": " << err;
    EXPECT_NE(err.find(c.needle), std::string::npos) << c.pointer << ": " << err;
    EXPECT_NE(err.find("must agree within a relative 1e-06"), std::string::npos) << err;
    // Within the tolerance (a value printed with fewer digits) is accepted.
    mutated = doc;
    auto& w = mutated[json::json_pointer(c.pointer)];
    w = w.get<double>() * (1 + 1e-8);
    EXPECT_EQ(error_of(mutated), "") << c.pointer << " within 1e-8";
  }
  // Bytes over the minimum (results_measured.json has them).
  const json measured = model::read_json_file(std::string(LMROOF_TEST_DATA) + "/results_measured.json");
  ASSERT_EQ(error_of(measured), "");
  for (const char* key : {"model_over_minimum", "measured_over_minimum"}) {
    json m = measured;
    m["runs"][0]["bytes"][key] = m["runs"][0]["bytes"][key].get<double>() * 1.1;
    EXPECT_NE(error_of(m).find(std::string("r.json: /runs/0/bytes/") + key + ": is "), std::string::npos) << error_of(m);
  }
  json m = measured;
  m["runs"][0]["intensity"]["value"] = m["runs"][0]["intensity"]["model"];  // model bytes, though it says measured
  EXPECT_NE(error_of(m).find("r.json: /runs/0/intensity/value: is 0.281263351 but flops.total / bytes.measured is 0.216356424"),
            std::string::npos)
      << error_of(m);
  // A bound that contradicts the intensity and the ridge.
  json mutated = doc;
  mutated["runs"][0]["bound"] = "compute";
  EXPECT_NE(error_of(mutated).find("r.json: /runs/0/bound: says compute but intensity.value 0.281263 is below the ridge 6.62171"),
            std::string::npos)
      << error_of(mutated);
  // Repetitions: at least one, and the smaller of the two runs' sample counts (5 here).
  mutated = doc;
  mutated["comparisons"][0]["repetitions"] = 0;
  EXPECT_NE(error_of(mutated).find("r.json: /comparisons/0/repetitions: must be an integer in [1, "), std::string::npos)
      << error_of(mutated);
  mutated["comparisons"][0]["repetitions"] = 3;
  EXPECT_NE(error_of(mutated).find("r.json: /comparisons/0/repetitions: is 3 but the runs have 5 and 5 samples"),
            std::string::npos)
      << error_of(mutated);
  mutated["comparisons"][0]["repetitions"] = 5;
  EXPECT_EQ(error_of(mutated), "");
  // A comparison describes the runs it names.
  mutated = doc;
  mutated["comparisons"][0]["candidate"]["variant"] = "layernorm";
  EXPECT_NE(error_of(mutated).find("r.json: /comparisons/0/candidate/variant: is 'layernorm' but run "), std::string::npos)
      << error_of(mutated);
}

// A run's pair, variant and impl are one of the combinations the file's catalogue lists.
TEST(Model, RunsAreOfTheCataloguesPairsVariantsAndImpls) {
  json doc = small_results();
  json catalogue = model::to_json(registry_catalogue());
  doc["catalogue"] = catalogue;
  ASSERT_EQ(error_of(doc), "");
  json mutated = doc;
  mutated["runs"][0]["impl"] = "nonexistent";
  EXPECT_EQ(error_of(mutated).rfind("r.json: /runs/0/impl: pair 'norm' has no impl 'nonexistent' in the catalogue (has: ", 0), 0u)
      << error_of(mutated);
  mutated = doc;
  mutated["runs"][0]["variant"] = "nonexistent";
  EXPECT_EQ(error_of(mutated).rfind("r.json: /runs/0/variant: pair 'norm' has no variant 'nonexistent' in the catalogue (has: ", 0), 0u)
      << error_of(mutated);
  mutated = doc;
  mutated["runs"][0]["pair"] = "nonexistent";
  EXPECT_EQ(error_of(mutated), "r.json: /runs/0/pair: pair 'nonexistent' is not in the catalogue");
  // A variant and an impl the pair has, but not together.
  mutated = doc;
  for (auto& pair : mutated["catalogue"]["pairs"])
    if (pair["name"] == "norm") {
      json combos = json::array();
      for (const auto& c : pair["combos"])
        if (!(c["variant"] == "layernorm" && c["impl"] == "fused")) combos.push_back(c);
      pair["combos"] = combos;
    }
  EXPECT_EQ(error_of(mutated), "r.json: /runs/1/impl: pair 'norm' has no impl 'fused' of variant 'layernorm' in the catalogue");
}

// A results file with no runs is a valid document (`analyze` of a ceilings-only
// bench.json writes one), but `report`, `check` and `compare` refuse it: nothing to do.
TEST(Model, NoRunsIsReadButRefusedByTheCommandsThatNeedRuns) {
  json doc = small_results();
  doc["runs"] = json::array();
  doc["comparisons"] = json::array();
  const model::Results r = model::results_from_json(doc, "r.json");
  EXPECT_TRUE(r.runs.empty());
  try {
    require_runs(r, "r.json", "check");
    FAIL() << "no error";
  } catch (const model::InputError& e) {
    EXPECT_STREQ(e.what(), "r.json: /runs: holds no runs: nothing to check");
  }
  EXPECT_NO_THROW(require_runs(model::results_from_json(small_results(), "r.json"), "r.json", "check"));
}

TEST(Model, RunMetricsByName) {
  const model::Results r = model::results_from_json(small_results(), "r.json");
  const auto& run = r.runs[0];
  EXPECT_EQ(model::run_metric(run, "time_s.median"), run.time_s.median);
  EXPECT_EQ(model::run_metric(run, "bytes.model"), run.bytes.model);
  EXPECT_TRUE(model::is_run_metric("intensity.model"));
  EXPECT_FALSE(model::is_run_metric("bytes.modle"));
  EXPECT_THROW((void)model::run_metric(run, "bytes.modle"), std::invalid_argument);
}

TEST(Model, ChartIdsAreSafe) {
  EXPECT_EQ(model::chart_id_for_pair("norm"), "pair-norm");
  EXPECT_EQ(model::chart_id_for_pair("moe(top2)"), "pair-moe-top2");
  EXPECT_EQ(model::chart_id_for_pair("moe.v2"), "pair-moe-v2");
  EXPECT_EQ(model::chart_id_for_pair("/../../../tmp/x/owned"), "pair-tmp-x-owned");
  json doc = small_results();
  doc["catalogue"] = {{"pairs", {{{"name", "norm"}, {"title", "t"}, {"chart", "../x"}, {"combos", json::array()}}}}};
  EXPECT_NE(error_of(doc).find("/catalogue/pairs/0/chart: a chart id must be"), std::string::npos) << error_of(doc);
}

TEST(Model, IntensityPredictionsAreValidatedByName) {
  // catalogue.pairs[].intensity_predictions (issue #26, contract step 5): wrong types, an
  // unknown model, nesting where an object belongs: one error naming the field.
  auto with = [](const json& predictions) {
    json doc = small_results();
    doc["catalogue"] = {{"pairs", {{{"name", "norm"}, {"title", "t"}, {"chart", "pair-norm"}, {"combos", json::array()},
                                    {"intensity_predictions", predictions}}}}};
    return error_of(doc);
  };
  EXPECT_NE(with("x").find("/catalogue/pairs/0/intensity_predictions: must be an array"), std::string::npos) << with("x");
  const json unknown = json::array({{{"impl", "decode"}, {"model", "nope"}}});
  EXPECT_NE(with(unknown).find("/intensity_predictions/0/model: must be one of \"shazeer-decode\""), std::string::npos)
      << with(unknown);
  const json nested = json::array({json::array({json::array({1})})});
  EXPECT_NE(with(nested).find("/intensity_predictions/0: must be an object"), std::string::npos) << with(nested);
  const json number = json::array({{{"impl", 5}, {"model", "shazeer-decode"}}});
  EXPECT_NE(with(number).find("/intensity_predictions/0/impl: must be a string"), std::string::npos) << with(number);
}

// catalogue.pairs[].model_mapping and comparisons[].less_work_control (issue #36, #34):
// the registry's declarations read back as written, and hostile values get one error
// naming the field.
TEST(Model, ModelMappingsAndLessWorkControlsRoundTripAndAreValidated) {
  const model::Catalogue registry = registry_catalogue();
  const model::Catalogue back = model::catalogue_from_json(model::to_json(registry), "x.json");
  ASSERT_EQ(back.pairs.size(), registry.pairs.size());
  int mappings = 0, less_work = 0;
  for (size_t i = 0; i < registry.pairs.size(); ++i) {
    // (JSON objects come back in key order: dims and variant_settings compared sorted)
    auto sorted = [](std::optional<PairModelMapping> m) {
      if (m) std::sort(m->dims.begin(), m->dims.end()), std::sort(m->variant_settings.begin(), m->variant_settings.end(),
                                                                    [](const auto& a, const auto& b) { return a.first < b.first; });
      return m;
    };
    EXPECT_EQ(sorted(back.pairs[i].model_mapping), sorted(registry.pairs[i].model_mapping)) << registry.pairs[i].name;
    mappings += registry.pairs[i].model_mapping.has_value();
    for (size_t j = 0; j < registry.pairs[i].comparisons.size(); ++j) {
      EXPECT_EQ(back.pairs[i].comparisons[j].less_work_control, registry.pairs[i].comparisons[j].less_work_control);
      less_work += registry.pairs[i].comparisons[j].less_work_control;
    }
  }
  EXPECT_EQ(mappings, 3);    // attention, mlp, block
  EXPECT_EQ(less_work, 8);   // stability's

  auto with = [](const json& mapping) {
    json doc = small_results();
    doc["catalogue"] = {{"pairs", {{{"name", "norm"}, {"title", "t"}, {"chart", "pair-norm"}, {"combos", json::array()},
                                    {"model_mapping", mapping}}}}};
    return error_of(doc);
  };
  const json good = {{"dims", {{"hidden", "d_model"}}}, {"tokens_dim", "tokens"}};
  EXPECT_EQ(with(good).find("model_mapping"), std::string::npos) << with(good);
  json bad = good;
  bad["dims"]["layers"] = "tokens";
  EXPECT_NE(with(bad).find("/model_mapping/dims/layers: is no model field"), std::string::npos) << with(bad);
  bad = good;
  bad.erase("tokens_dim");
  EXPECT_NE(with(bad).find("/model_mapping: missing 'tokens_dim'"), std::string::npos) << with(bad);
  bad = good;
  bad["settings"] = {{"norm", "batchnorm"}};
  EXPECT_NE(with(bad).find("/model_mapping/settings/norm: must be one of"), std::string::npos) << with(bad);
  bad = good;
  bad["variant_settings"] = {{"swiglu", {{"gated", true}}}};
  EXPECT_NE(with(bad).find("/model_mapping/variant_settings/swiglu/gated: must be one of"), std::string::npos)
      << with(bad);
  bad = good;
  bad["settings"] = {{"gated_mlp", "yes"}};
  EXPECT_NE(with(bad).find("/model_mapping/settings/gated_mlp: must be true or false"), std::string::npos) << with(bad);
}

TEST(Statistics, MedianMeanCv) {
  const std::vector<double> odd = {3, 1, 2}, even = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(stats::median(odd), 2);
  EXPECT_DOUBLE_EQ(stats::median(even), 2.5);
  EXPECT_DOUBLE_EQ(stats::mean(even), 2.5);
  EXPECT_NEAR(stats::stddev(odd), 1.0, 1e-12);
  EXPECT_NEAR(stats::cv(odd), 0.5, 1e-12);
  EXPECT_EQ(stats::cv(std::vector<double>{5}), 0);
  const auto s = stats::summarize(even);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
}

TEST(Numbers, OneFormatting) {
  EXPECT_EQ(numbers::si(1.27e-3, "s"), "1.27 ms");
  EXPECT_EQ(numbers::sig(1.5), "1.50");
  EXPECT_EQ(numbers::percent(0.0123), "1.23%");
  EXPECT_EQ(numbers::integer_or_sig(4096), "4096");
  EXPECT_EQ(numbers::si(std::nan(""), "s"), numbers::kDash);
}

}  // namespace
}  // namespace lmroof
