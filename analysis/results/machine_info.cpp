#include "analysis/results/machine_info.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

#include "analysis/model/json_input.h"

namespace lmroof {

namespace {

using model::JsonCursor;
namespace ctx = model::context;

constexpr const char* kUnknown = "unknown";

std::optional<JsonCursor> context_entry(const BenchDocument& bench, std::string_view key) {
  return JsonCursor(bench.context, bench.origin, "/context").opt(key);
}

std::string context_string(const BenchDocument& bench, std::string_view key) {
  auto v = context_entry(bench, key);
  return v ? v->string() : kUnknown;
}

// A context value that holds a JSON document (AddCustomContext stores strings).
std::optional<nlohmann::json> context_json(const BenchDocument& bench, std::string_view key) {
  auto v = context_entry(bench, key);
  if (!v) return std::nullopt;
  const std::string text = v->string(model::kMaxTextLength);
  try {
    return model::parse_json(text, bench.origin);
  } catch (const model::InputError&) {
    v->fail("must hold a JSON document");
  }
}

}  // namespace

std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

model::Machine machine_from_context(const BenchDocument& bench, const std::string& backend, const std::string& date) {
  model::Machine m;
  m.backend = backend;
  m.cpu_model = context_string(bench, ctx::kCpuModel);
  m.host_pages = context_string(bench, ctx::kHostPages);
  m.blas = context_string(bench, ctx::kBlas);
  m.cores = 1;
  if (auto n = context_entry(bench, "num_cpus")) m.cores = n->integer(1, 1 << 24);
  m.threads = m.cores;
  if (auto t = context_entry(bench, ctx::kThreads)) {
    const std::string s = t->string();
    try {
      size_t used = 0;
      m.threads = std::stoll(s, &used);
      if (used != s.size() || m.threads < 1) throw std::invalid_argument(s);
    } catch (const std::exception&) {
      t->fail("must be a positive integer");
    }
  }
  if (auto mhz = context_entry(bench, "mhz_per_cpu")) m.cpu_mhz = mhz->non_negative();
  if (auto gpu = context_json(bench, ctx::kGpu); gpu && !gpu->is_null()) {
    const std::string origin = bench.origin + " (context " + std::string(ctx::kGpu) + ")";
    const JsonCursor g(*gpu, origin);
    m.gpu = model::Gpu{g.at("name").string(), g.at("compute_capability").string(),
                       g.at("sm_count").integer(0, 1 << 24), g.at("memory_bytes").non_negative(),
                       g.at("l2_bytes").non_negative(), g.opt("driver") ? g.at("driver").string() : kUnknown};
  }
  m.compiler = m.build_type = m.build_flags = m.lmroof_version = m.git_commit = kUnknown;
  if (auto build = context_json(bench, ctx::kBuild)) {
    const std::string origin = bench.origin + " (context " + std::string(ctx::kBuild) + ")";
    const JsonCursor b(*build, origin);
    m.compiler = b.at("compiler").string();
    m.build_type = b.at("build_type").string();
    m.build_flags = b.at("build_flags").string(model::kMaxTextLength);
    if (auto c = b.opt("cuda_compiler")) m.cuda_compiler = c->string();
    m.lmroof_version = b.at("lmroof_version").string();
    m.git_commit = b.at("git_commit").string();
  }
  if (auto d = context_entry(bench, "date")) m.bench_date = d->string();
  m.date = date;
  m.hostname = context_string(bench, "host_name");
  if (auto s = suite_from_context(bench)) m.suite = *s;
  return m;
}

std::optional<model::Suite> suite_from_context(const BenchDocument& bench) {
  auto j = context_json(bench, ctx::kSuite);
  if (!j) return std::nullopt;
  return model::suite_from_json(*j, bench.origin + " (context " + std::string(ctx::kSuite) + ")");
}

std::optional<model::Metrics> metrics_from_context(const BenchDocument& bench) {
  auto j = context_json(bench, ctx::kMetrics);
  if (!j) return std::nullopt;
  return model::metrics_from_json(*j, bench.origin + " (context " + std::string(ctx::kMetrics) + ")");
}

std::optional<model::Catalogue> catalogue_from_context(const BenchDocument& bench) {
  auto j = context_json(bench, ctx::kCatalogue);
  if (!j) return std::nullopt;
  return model::catalogue_from_json(*j, bench.origin + " (context " + std::string(ctx::kCatalogue) + ")");
}

std::optional<std::vector<model::ClaimedComparison>> claimed_comparisons_from_context(const BenchDocument& bench) {
  auto j = context_json(bench, ctx::kClaimedComparisons);
  if (!j) return std::nullopt;
  return model::claimed_comparisons_from_json(*j, bench.origin, "/context/" + std::string(ctx::kClaimedComparisons));
}

}  // namespace lmroof
