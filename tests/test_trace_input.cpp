// Hostile input to `lmroof trace`'s readers (issue 47): the Kineto trace reader's
// document-level and value checks, the trace.json reader of check and compare, the
// output set's refusal of another command's folder, and the escaping of names shown
// on a terminal. The CLI's side of the same defects is tests/e2e/trace_hostile.sh.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "analysis/io/output_set.h"
#include "analysis/model/input_error.h"
#include "analysis/model/trace_result.h"
#include "analysis/predict/devices.h"
#include "analysis/trace/trace_analysis.h"
#include "analysis/trace/trace_compare.h"
#include "analysis/trace/trace_output.h"
#include "analysis/trace/trace_reader.h"
#include "reports/text/terminal_text.h"

namespace {

namespace fs = std::filesystem;
using namespace lmroof::trace;

// A scratch folder for one test's trace files, removed after it.
class TraceInput : public ::testing::Test {
 protected:
  fs::path folder = fs::temp_directory_path() /
                    ("lmroof-trace-input-" + std::to_string(::getpid()) + "-" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { fs::create_directories(folder); }
  void TearDown() override { fs::remove_all(folder); }

  fs::path file(const std::string& name, const std::string& bytes) const {
    std::ofstream(folder / name, std::ios::binary) << bytes;
    return folder / name;
  }
  // Each text a gzip member of its own, one after the other in one file.
  fs::path gzip_members(const std::string& name, const std::vector<std::string>& members) const {
    std::string bytes;
    for (const auto& m : members) {
      const fs::path part = folder / "member.gz";
      gzFile out = gzopen(part.c_str(), "wb");
      gzwrite(out, m.data(), static_cast<unsigned>(m.size()));
      gzclose(out);
      std::ifstream in(part, std::ios::binary);
      bytes.append(std::istreambuf_iterator<char>(in), {});
    }
    return file(name, bytes);
  }
  // The message read_trace refuses `path` with ("" when it reads it).
  static std::string refusal(const fs::path& path, const ReadOptions& options = {}) {
    try {
      read_trace(path, options);
    } catch (const lmroof::model::InputError& e) {
      return e.what();
    }
    return "";
  }
};

// One kernel in a GPU step, the step's name and the kernel's fields given.
std::string one_step(const std::string& step_name, const std::string& kernel_fields) {
  return R"({"traceEvents":[{"ph":"X","cat":"gpu_user_annotation","name":")" + step_name +
         R"(","pid":0,"tid":7,"ts":0,"dur":100},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,)" + kernel_fields +
         "}]}";
}

TraceAnalysis analysed(const TraceFile& trace) {
  const auto table = lmroof::predict::load_device_file(lmroof::predict::bundled_devices_file());
  return analyze(trace, resolve_roofs(trace, table, "", std::nullopt), {});
}

// Every number in a document, finite (nlohmann writes NaN and infinity as null).
void expect_finite(const nlohmann::json& v, const std::string& at) {
  if (v.is_number_float()) {
    EXPECT_TRUE(std::isfinite(v.get<double>())) << at;
  }
  if (v.is_structured())
    for (const auto& [key, item] : v.items()) expect_finite(item, at + "." + key);
}

// ---- defect 3: one document per file ------------------------------------------------------

TEST_F(TraceInput, ContentAfterTheDocumentIsRefusedWithItsByte) {
  std::string e = refusal(file("two.json", R"({"traceEvents":[]}{"traceEvents":[{"ph":"X"}]})"));
  EXPECT_NE(e.find("two.json: byte 18: content after the document ('{')"), std::string::npos) << e;
  e = refusal(file("text.json", "{\"traceEvents\":[]}\n  trailing"));
  EXPECT_NE(e.find("byte 21: content after the document ('t')"), std::string::npos) << e;
  EXPECT_EQ(refusal(file("spaces.json", "{\"traceEvents\":[]} \r\n\t\n")), "");
}

TEST_F(TraceInput, ASecondGzipMemberWithContentIsRefused) {
  const fs::path two = gzip_members("two.json.gz", {R"({"traceEvents":[]})", R"({"traceEvents":[]})"});
  std::string e = refusal(two);
  EXPECT_NE(e.find("byte 18 (uncompressed): content after the document"), std::string::npos) << e;
  ReadOptions prefetch;
  prefetch.threads = 2;
  e = refusal(two, prefetch);
  EXPECT_NE(e.find("content after the document"), std::string::npos) << e;
  EXPECT_EQ(refusal(gzip_members("one.json.gz", {R"({"traceEvents":[]})"})), "");
}

// ---- also seen: a NUL byte and a traceEvents of the wrong kind ------------------------------

TEST_F(TraceInput, ANulByteIsSaidToBeOneNotATruncation) {
  std::string e = refusal(file("nul.json", std::string("{\"traceEvents\":[\0]}", 19)));
  EXPECT_NE(e.find("byte 16: a NUL byte: not JSON"), std::string::npos) << e;
  EXPECT_EQ(e.find("truncated"), std::string::npos) << e;
  e = refusal(file("cut.json", "{\"traceEvents\":["));
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST_F(TraceInput, ATraceEventsThatIsNoArrayIsSaidToBeWhatItIs) {
  std::string e = refusal(file("object.json", R"({"traceEvents":{"ph":"X"}})"));
  EXPECT_NE(e.find("traceEvents: is an object, not an array of events"), std::string::npos) << e;
  e = refusal(file("string.json", R"({"traceEvents":"none"})"));
  EXPECT_NE(e.find("traceEvents: is a string, not an array"), std::string::npos) << e;
  e = refusal(file("absent.json", R"({"other":[]})"));
  EXPECT_NE(e.find("traceEvents: missing"), std::string::npos) << e;
}

// ---- defect 4: names that are not UTF-8 ------------------------------------------------------

TEST_F(TraceInput, ANameThatIsNotUtf8IsRefusedNamingByteAndEvent) {
  std::string e = refusal(file("ff.json", "{\"traceEvents\":[{\"ph\":\"X\"},{\"name\":\"a\xff\"}]}"));
  EXPECT_NE(e.find("ff.json: byte "), std::string::npos) << e;
  EXPECT_NE(e.find("traceEvents[1].name: a string that is not valid UTF-8 (byte 0xff"), std::string::npos) << e;
  e = refusal(file("surrogate.json", R"({"traceEvents":[{"name":"x\udc00"}]})"));
  EXPECT_NE(e.find("traceEvents[0].name: a string that is not valid UTF-8"), std::string::npos) << e;
  EXPECT_NE(e.find("surrogate"), std::string::npos) << e;
  e = refusal(file("cut.json", "{\"traceEvents\":[{\"cat\":\"\xe2\x82\"}]}"));
  EXPECT_NE(e.find("traceEvents[0].cat"), std::string::npos) << e;
  e = refusal(file("overlong.json", "{\"traceEvents\":[],\"k\xc0\xaf\":1}"));
  EXPECT_NE(e.find("not valid UTF-8"), std::string::npos) << e;
  // A pair of surrogates is one character; UTF-8 of 2, 3 and 4 bytes is text.
  EXPECT_EQ(refusal(file("good.json", "{\"traceEvents\":[{\"name\":\"\\ud83d\\ude00 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}]}")),
            "");
}

// ---- defect 5: times that are no numbers -------------------------------------------------------

TEST_F(TraceInput, NanAndInfiniteTimesAreCountedAndLeaveEveryFigureFinite) {
  const TraceFile t = read_trace(file(
      "nan.json",
      R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":NaN},)"
      R"({"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":Infinity,"dur":1},)"
      R"({"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":1e300,"dur":1},)"
      R"({"ph":"X","cat":"kernel","name":"d","pid":0,"tid":7,"ts":5,"dur":2}]})"));
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.anomalies.at("ts or dur that is not a finite time within 2^63 ns (event ignored)").count, 3u);
  const TraceAnalysis a = analysed(t);
  const nlohmann::json doc = lmroof::model::to_json(to_trace_result(a, {a}));
  expect_finite(doc, "trace.json");
  EXPECT_DOUBLE_EQ(doc["window"]["total_s"].get<double>(), 2e-6);
}

TEST_F(TraceInput, ATinyButFiniteTimeLeavesEveryFigureFinite) {
  // 1e-317 µs is finite (1e-323 s, subnormal): a roof time divided by it is not.
  const TraceFile t = read_trace(file(
      "tiny.json",
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":0,"tid":7,"ts":0,"dur":1e-317,)"
      R"("args":{"Input Dims":[[64,64],[64,64]],"Input type":["float","float"]}},)"
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":0,"tid":7,"ts":0,"dur":1e-317,"args":{"correlation":1}},)"
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1e-317,"args":{"correlation":1}}]})"));
  const auto table = lmroof::predict::load_device_file(lmroof::predict::bundled_devices_file());
  const TraceAnalysis a = analyze(t, resolve_roofs(t, table, "H100 SXM", std::nullopt), {});
  ASSERT_EQ(a.ops.size(), 1u);
  expect_finite(lmroof::model::to_json(to_trace_result(a, {a})), "trace.json");
}

// ---- defect 6: steps --------------------------------------------------------------------------

TEST_F(TraceInput, TheWindowComesFromTheStepTimesNotTheirNumbers) {
  // Step 9 runs first, step 3 after it: the window is [0, 300) µs, not 3's start to 9's end.
  const TraceFile t = read_trace(file(
      "order.json",
      R"({"traceEvents":[{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#9","pid":0,"tid":7,"ts":0,"dur":100},)"
      R"({"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#3","pid":0,"tid":7,"ts":200,"dur":100},)"
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":20},)"
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":210,"dur":20}]})"));
  const TraceAnalysis a = analysed(t);
  EXPECT_GT(a.total_s, 0);
  EXPECT_DOUBLE_EQ(a.window_start_us, 0);
  EXPECT_DOUBLE_EQ(a.window_end_us, 300);
  EXPECT_NEAR(a.busy_s, 40e-6, 1e-12);
  // The window's time is the two steps', not the 100 µs between them (issue 47, also seen).
  EXPECT_NEAR(a.total_s, 200e-6, 1e-12);
  EXPECT_NEAR(a.idle_s, 160e-6, 1e-12);
  for (const auto& gap : a.idle_gaps) EXPECT_LE(gap.duration_s, 80e-6 + 1e-12) << gap.start_s;
}

TEST_F(TraceInput, AStepNumberBeyond64BitsIsRefused) {
  const std::string e = refusal(file("big.json", one_step("ProfilerStep#99999999999999999999", R"("ts":1,"dur":2)")));
  EXPECT_NE(e.find("traceEvents[0].name: \"ProfilerStep#99999999999999999999\": the step number does not fit in 64 bits"),
            std::string::npos)
      << e;
  EXPECT_EQ(refusal(file("max.json", one_step("ProfilerStep#9223372036854775807", R"("ts":1,"dur":2)"))), "");
}

// ---- also seen: signs and widths ---------------------------------------------------------------

TEST_F(TraceInput, NegativeRankAndWorldSizeAreRefusedAndBaseTimeKeepsItsSign) {
  std::string e = refusal(file("rank.json", R"({"distributedInfo":{"rank":-1},"traceEvents":[]})"));
  EXPECT_NE(e.find("distributedInfo.rank: -1 is no rank"), std::string::npos) << e;
  e = refusal(file("world.json", R"({"distributedInfo":{"world_size":-4},"traceEvents":[]})"));
  EXPECT_NE(e.find("distributedInfo.world_size: -4 is no world size"), std::string::npos) << e;
  e = refusal(file("huge.json", R"({"distributedInfo":{"rank":18446744073709551615},"traceEvents":[]})"));
  EXPECT_NE(e.find("distributedInfo.rank: 18446744073709551615 is no rank"), std::string::npos) << e;
  const TraceFile t = read_trace(file("base.json", R"({"baseTimeNanoseconds":-5,"traceEvents":[]})"));
  EXPECT_EQ(t.base_time_ns, -5);
}

TEST_F(TraceInput, PidAndTidKeepTheir64Bits) {
  const TraceFile t = read_trace(file(
      "wide.json",
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":4294967297,"tid":-4294967297,"ts":0,"dur":1},)"
      R"({"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":0,"dur":1}]})"));
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].pid, 4294967297);
  EXPECT_EQ(t.events[0].tid, -4294967297);
  EXPECT_NE(t.events[0].pid, t.events[1].pid);  // was 1 and 1: one thread
}

// ---- defect 18: the memory bound ---------------------------------------------------------------

TEST_F(TraceInput, KeptEventsBeyondTheMemoryBoundAreRefusedWhileReading) {
  std::string events;
  for (int i = 0; i < 5000; ++i)
    events += (i ? "," : "") + std::string(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)") +
              std::to_string(i) + R"(,"dur":1})";
  const fs::path big = file("big.json", "{\"traceEvents\":[" + events + "]}");
  // Kept: the events, and the interned strings ("" and "k"), 400 bytes each, plus the
  // strings' characters (1): the 998th event makes 1000 records, 400,001 bytes.
  ReadOptions bounded;
  bounded.memory_limit_bytes = 1000 * kBytesPerKeptEvent;
  const std::string e = refusal(big, bounded);
  EXPECT_NE(e.find("traceEvents[997]: 1000 kept events and strings so far"), std::string::npos) << e;
  EXPECT_NE(e.find("B available (MemAvailable, or LMROOF_MEMORY_LIMIT)"), std::string::npos) << e;
  bounded.memory_limit_bytes = 5002 * kBytesPerKeptEvent + 1;
  EXPECT_EQ(refusal(big, bounded), "");
}

// ---- defect 7: trace.json as check and compare read it ----------------------------------------

nlohmann::json a_trace_document() {
  return nlohmann::json::parse(R"({"schema":"lmroof.trace/2","device":{"name":"H100"},"total_time_s":2,
    "window":{"kind":"steps","step_count":2,"total_s":3},
    "classes":[{"class":"matmul","time_s":1,"flop_share":1,"byte_share":0.5,"time_share":0.5,"fraction_of_roof":null}],
    "ops":[{"name":"aten::mm","input_dims":[[2,2]],"input_types":["float"],"class":"matmul","time_s":1,"roof_time_s":0.5}]})");
}

std::string document_refusal(const nlohmann::json& doc) {
  try {
    (void)lmroof::model::read_trace_result(doc, "t/trace.json");
  } catch (const lmroof::model::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceDocument, AMissingOrMistypedFieldIsOneLineNamingFileAndField) {
  EXPECT_EQ(document_refusal(a_trace_document()), "");
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
      {[](auto& d) { d.erase("ops"); }, "t/trace.json: /: missing 'ops'"},
      {[](auto& d) { d.erase("total_time_s"); }, "t/trace.json: /: missing 'total_time_s'"},
      {[](auto& d) { d.erase("classes"); }, "t/trace.json: /: missing 'classes'"},
      {[](auto& d) { d.erase("device"); }, "t/trace.json: /: missing 'device'"},
      {[](auto& d) { d["device"] = "H100"; }, "t/trace.json: /device: must be an object"},
      {[](auto& d) { d["device"].erase("name"); }, "t/trace.json: /device: missing 'name'"},
      {[](auto& d) { d["total_time_s"] = "2"; }, "t/trace.json: /total_time_s: must be a number"},
      {[](auto& d) { d["total_time_s"] = -1; }, "t/trace.json: /total_time_s: must not be negative"},
      {[](auto& d) { d["ops"] = nlohmann::json::object(); }, "t/trace.json: /ops: must be an array"},
      {[](auto& d) { d["ops"][0]["name"] = 3; }, "t/trace.json: /ops/0/name: must be a string"},
      {[](auto& d) { d["ops"][0].erase("time_s"); }, "t/trace.json: /ops/0: missing 'time_s'"},
      {[](auto& d) { d["ops"][0] = 1; }, "t/trace.json: /ops/0: must be an object"},
      {[](auto& d) { d["classes"][0]["time_share"] = nullptr; }, "t/trace.json: /classes/0/time_share: must be a number"},
      {[](auto& d) { d["classes"][0]["fraction_of_roof"] = "1"; }, "t/trace.json: /classes/0/fraction_of_roof: must be a number"},
      {[](auto& d) { d["classes"][0].erase("class"); }, "t/trace.json: /classes/0: missing 'class'"},
      {[](auto& d) { d = nlohmann::json::array(); }, "t/trace.json: /: must be an object"},
      {[](auto& d) { d.erase("window"); }, "t/trace.json: /: missing 'window'"},
      {[](auto& d) { d["ops"][0]["input_dims"] = "[[2,2]]"; }, "t/trace.json: /ops/0/input_dims: must be an array or null"},
      {[](auto& d) { d["ops"][0].erase("input_types"); }, "t/trace.json: /ops/0: missing 'input_types'"},
      {[](auto& d) { d["window"].erase("step_count"); }, "t/trace.json: /window: missing 'step_count'"},
      {[](auto& d) { d["window"]["total_s"] = -1; }, "t/trace.json: /window/total_s: must not be negative"},
      {[](auto& d) { d["window"]["kind"] = 1; }, "t/trace.json: /window/kind: must be a string"},
      {[](auto& d) { d["ops"][0]["roof_time_s"] = "1"; }, "t/trace.json: /ops/0/roof_time_s: must be a number"},
      {[](auto& d) { d["ranks"] = nlohmann::json::object(); }, "t/trace.json: /ranks: must be an array"},
      {[](auto& d) { d["ranks"] = {{{"step_time_s", 1}}}; }, "t/trace.json: /ranks/0: missing 'slowest'"},
      {[](auto& d) { d["classes"][0]["class"] = "mat\x1bmul"; }, "t/trace.json: /classes/0/class: holds U+001B"},
      {[](auto& d) { d["ranks"] = {{{"slowest", true}}}; }, "t/trace.json: /ranks/0: missing 'step_time_s'"},
      {[](auto& d) { d["ranks"] = {{{"step_time_s", 1}, {"slowest", true}, {"rank", "0"}}}; }, "t/trace.json: /ranks/0/rank: must be"},
      {[](auto& d) { d["modules"] = {{{"type", "RMSNorm"}}}; }, "t/trace.json: /modules/0: missing 'class'"},
      {[](auto& d) { d["fix_first"] = {{{"kind", "fuse"}, {"target", "x"}, {"current_s", -1}}}; }, "t/trace.json: /fix_first/0/current_s: must not be negative"},
      {[](auto& d) { d["window"]["host_bound_steps"] = 1.5; }, "t/trace.json: /window/host_bound_steps: must be"},
      {[](auto& d) { d["ops"][0]["time_above_roof_s"] = "-1"; }, "t/trace.json: /ops/0/time_above_roof_s: must be a number"},
      {[](auto& d) { d["ranks"] = {{{"step_time_s", 1}, {"slowest", 1}}}; }, "t/trace.json: /ranks/0/slowest: must be true or false"},
      {[](auto& d) { d["classes"][0]["flop_share"] = -0.5; }, "t/trace.json: /classes/0/flop_share: must not be negative"},
      {[](auto& d) { d["ivanov_classes"] = {{"class", "x"}}; }, "t/trace.json: /ivanov_classes: must be an array"},
      {[](auto& d) { d["what_if"] = {{{"device", "B200"}}}; }, "t/trace.json: /what_if/0: missing 'step_time_s'"},
  };
  for (const auto& [edit, want] : cases) {
    nlohmann::json doc = a_trace_document();
    edit(doc);
    const std::string e = document_refusal(doc);
    EXPECT_EQ(e.rfind(want, 0), 0u) << "want " << want << "\n got " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  // What the checks let through, compare reads without a throw.
  const auto doc = a_trace_document();
  const auto read = lmroof::model::read_trace_result(doc, "a");
  EXPECT_EQ(compare_traces(read, read)["ops"].size(), 1u);
}

// ---- defects 1 and 11: a folder holds one command's set ----------------------------------------

TEST_F(TraceInput, ATraceIsNotPublishedIntoARunsFolderNorARunIntoATracesFolder) {
  const fs::path run_dir = folder / "run", trace_dir = folder / "trace";
  fs::create_directories(run_dir);
  fs::create_directories(trace_dir);
  file("run/results.json", "{}");
  file("trace/trace.json", "{}");
  file("trace/.lmroof-set", "trace.json\ntrace.csv\ntrace.html\n");
  auto refusal_of = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string e = refusal_of([&] { lmroof::check_inputs_outside_set(run_dir, {}, lmroof::SetKind::trace); });
  EXPECT_NE(e.find("holds the outputs of `lmroof run` (results.json)"), std::string::npos) << e;
  e = refusal_of([&] { lmroof::OutputSet set(run_dir, lmroof::SetKind::trace); });
  EXPECT_NE(e.find("holds the outputs of `lmroof run`"), std::string::npos) << e;
  e = refusal_of([&] { lmroof::check_inputs_outside_set(trace_dir, {}, lmroof::SetKind::run); });
  EXPECT_NE(e.find("holds the outputs of `lmroof trace` (trace.csv, trace.html, trace.json)"), std::string::npos) << e;
  // An input that is the folder itself, or a file of the trace's set.
  e = refusal_of([&] { lmroof::check_inputs_outside_set(trace_dir, {trace_dir / "."}, lmroof::SetKind::trace); });
  EXPECT_NE(e.find("is --out"), std::string::npos) << e;
  e = refusal_of([&] { lmroof::check_inputs_outside_set(trace_dir, {trace_dir / "trace.json"}, lmroof::SetKind::trace); });
  EXPECT_NE(e.find("is trace.json in --out"), std::string::npos) << e;
  EXPECT_TRUE(fs::exists(run_dir / "results.json"));
}

// ---- also seen: names shown on a terminal ------------------------------------------------------

TEST(TerminalText, ControlCharactersInNamesAreShownEscaped) {
  EXPECT_EQ(lmroof::report::printable("a\x1b[2Jb\nc\x7f"), "a\\x1b[2Jb\\nc\\x7f");
  const nlohmann::json doc = {{"device", {{"name", "\x1b]0;x\x07"}}}, {"ops", {{{"name", "mm\r"}}}}, {"n", 1.5}};
  const nlohmann::json shown = lmroof::report::printable_strings(doc);
  EXPECT_EQ(shown["device"]["name"], "\\x1b]0;x\\x07");
  EXPECT_EQ(shown["ops"][0]["name"], "mm\\x0d");
  EXPECT_EQ(shown["n"], 1.5);
}

}  // namespace
