#include "analysis/results/bench_json.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "analysis/model/json_input.h"
#include "analysis/model/schema.h"
#include "analysis/formats/file_names.h"

namespace lmroof {

namespace {

using model::JsonCursor;

double to_seconds(const JsonCursor& value, const JsonCursor* unit) {
  const double v = value.positive();
  const std::string u = unit ? unit->one_of({"ns", "us", "ms", "s"}) : "ns";
  if (u == "ns") return v * 1e-9;
  if (u == "us") return v * 1e-6;
  if (u == "ms") return v * 1e-3;
  return v;
}

const std::set<std::string, std::less<>>& non_counters() {
  static const std::set<std::string, std::less<>> keys = {
      "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
      "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "aggregate_name",
      "aggregate_unit", "label", "error_occurred", "error_message"};
  return keys;
}

BenchEntry entry_from(const JsonCursor& b) {
  BenchEntry e;
  e.pointer = b.pointer();
  e.name = b.at("name").string();
  if (e.name.empty()) b.at("name").fail("must not be empty");
  e.run_name = b.opt("run_name") ? b.at("run_name").string() : e.name;
  e.run_type = b.opt("run_type") ? b.at("run_type").one_of({"iteration", "aggregate"}) : "iteration";
  if (auto a = b.opt("aggregate_name")) e.aggregate_name = a->string();
  if (auto err = b.opt("error_occurred")) e.error = err->boolean();
  if (auto m = b.opt("error_message")) e.error_message = m->string(model::kMaxTextLength);
  if (auto l = b.opt("label")) e.label = l->string(model::kMaxTextLength);
  // Aggregates (mean, median, stddev, cv) are recomputed from the repetitions; an
  // erroneous run has no meaningful time.
  if (e.error || e.run_type == "aggregate") return e;
  if (auto it = b.opt("iterations")) e.iterations = it->non_negative();
  const auto unit = b.opt("time_unit");
  e.real_time_s = to_seconds(b.at("real_time"), unit ? &*unit : nullptr);
  for (const auto& [key, value] : b.members()) {
    if (non_counters().count(key)) continue;
    if (!value.json().is_number()) {
      // Other tools' extra fields are left alone; a count lmroof reads must be a number.
      if (key == model::counter::kThreads) value.fail("must be a number");
      continue;
    }
    if (key.size() > model::kMaxNameLength) value.fail("counter name too long");
    const double v = value.non_negative();
    // -0.0 passes `< 0`, yet no counter lmroof writes is a negative zero (costs and
    // counts are sums of non-negative products): read as 0 FLOPs it gave an intensity of
    // 0 without a word (issue 47, also seen). Its sign says the file was edited or garbled.
    if (std::signbit(v)) value.fail("must not be negative (is -0.0)");
    e.counters[key] = v;
  }
  return e;
}

std::map<std::string, KernelTraceRecord> traces_from(const JsonCursor& root) {
  root.require_object();
  const std::string schema = root.at("schema").string();
  if (schema != formats::kKernelTracesSchema)
    root.at("schema").fail(fmt::format("this lmroof reads {} documents", formats::kKernelTracesSchema));
  std::map<std::string, KernelTraceRecord> out;
  for (const auto& [id, t] : root.at("runs").members()) {
    KernelTraceRecord r;
    r.available = t.opt("available") ? t.at("available").boolean() : false;
    if (auto reason = t.opt("reason")) r.reason = reason->string(model::kMaxTextLength);
    if (auto d = t.opt("dropped_records")) r.dropped_records = d->integer(0, int64_t{1} << 50);
    if (auto kernels = t.opt("kernels"))
      for (const auto& k : kernels->items()) {
        KernelRecord rec;
        rec.name = k.at("name").string(model::kMaxTextLength);
        rec.op_class = k.opt("class") ? k.at("class").op_class() : OpClass::other;
        if (auto g = k.opt("grid")) rec.grid = launch_dims(*g);
        if (auto bl = k.opt("block")) rec.block = launch_dims(*bl);
        rec.duration_ns = k.at("duration_ns").non_negative();
        r.kernels.push_back(std::move(rec));
      }
    out.emplace(id, std::move(r));
  }
  return out;
}

}  // namespace

BenchDocument parse_bench_json(const nlohmann::json& doc, const std::string& origin) {
  const JsonCursor root(doc, origin);
  root.require_object();
  if (!root.has("benchmarks")) root.fail("not Google Benchmark JSON (no 'benchmarks' array)");
  BenchDocument out;
  out.origin = origin;
  if (auto ctx = root.opt("context")) {
    ctx->require_object();
    out.context = ctx->json();
  }
  for (const auto& b : root.at("benchmarks").items()) out.entries.push_back(entry_from(b));
  return out;
}

nlohmann::json bench_json_value(const std::string& text, const std::string& origin) {
  return model::parse_json(model::nan_tokens_to_null(text), origin, model::DuplicateKeys::last_wins);
}

BenchDocument parse_bench_text(const std::string& text, const std::string& origin) {
  return parse_bench_json(bench_json_value(text, origin), origin);
}

BenchDocument load_bench_json(const std::filesystem::path& path) {
  BenchDocument doc = parse_bench_text(model::read_text_file(path), path.string());
  const std::filesystem::path traces = formats::kernel_traces_path(path);
  if (std::filesystem::exists(traces)) {
    const nlohmann::json t = model::read_json_file(traces);
    const std::string origin = traces.string();
    doc.kernel_traces = parse_kernel_traces(t, origin);
  }
  return doc;
}

std::map<std::string, KernelTraceRecord> parse_kernel_traces(const nlohmann::json& doc, const std::string& origin) {
  return traces_from(JsonCursor(doc, origin));
}

}  // namespace lmroof
