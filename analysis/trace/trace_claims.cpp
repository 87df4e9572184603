#include "analysis/trace/trace_claims.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "analysis/model/input_error.h"
#include "analysis/numbers/numbers.h"
#include "analysis/trace/cost_models.h"

namespace lmroof::trace {

namespace {

constexpr const char* kMetrics[] = {"flop_share", "byte_share", "time_share", "fraction_of_roof"};

[[noreturn]] void fail(const std::filesystem::path& file, const YAML::Node& node, const std::string& problem) {
  throw model::InputError(fmt::format("{}:{}: {}", file.string(), node.Mark().line + 1, problem));
}

double number(const std::filesystem::path& file, const YAML::Node& node, const std::string& what) {
  try {
    return node.as<double>();
  } catch (const YAML::Exception&) {
    fail(file, node, fmt::format("{}: not a number", what));
  }
}

}  // namespace

std::vector<Claim> load_trace_claims(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw model::InputError(fmt::format("{}: not a regular file (a claims file)", path.string()));
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    throw model::InputError(fmt::format("{}:{}: not YAML: {}", path.string(), e.mark.line + 1, e.msg));
  }
  if (!root.IsMap() || !root["claims"] || !root["claims"].IsSequence())
    throw model::InputError(fmt::format("{}:1: claims: missing; a claims file lists claims: [...]", path.string()));
  std::vector<Claim> out;
  std::set<std::string> ids;
  for (const auto& node : root["claims"]) {
    Claim c;
    c.line = node.Mark().line + 1;
    if (!node.IsMap() || !node["id"]) fail(path, node, "a claim needs an id");
    c.id = node["id"].as<std::string>();
    if (!ids.insert(c.id).second) fail(path, node["id"], fmt::format("id \"{}\" appears twice", c.id));
    if (node["statement"]) c.statement = node["statement"].as<std::string>();
    if (node["source"]) c.source = node["source"].as<std::string>();
    const YAML::Node check = node["check"];
    if (!check || !check.IsMap()) fail(path, node, fmt::format("claim {}: check: missing", c.id));
    const std::string kind = check["kind"] ? check["kind"].as<std::string>() : "";
    if (kind != "class_share")
      fail(path, check, fmt::format("claim {}: kind \"{}\": a trace is checked with kind class_share (docs/trace.md)", c.id, kind));
    if (!check["class"]) fail(path, check, fmt::format("claim {}: class: missing", c.id));
    c.op_class = check["class"].as<std::string>();
    if (!parse_op_class(c.op_class))
      fail(path, check["class"], fmt::format("claim {}: class \"{}\" is not one of matmul, attention, normalization, "
                                             "elementwise, reduction, communication, memory, other", c.id, c.op_class));
    for (const auto& kv : check) {
      const std::string key = kv.first.as<std::string>();
      if (key == "kind" || key == "class") continue;
      if (std::find(std::begin(kMetrics), std::end(kMetrics), key) == std::end(kMetrics))
        fail(path, kv.first, fmt::format("claim {}: \"{}\" is not a metric (flop_share, byte_share, time_share, fraction_of_roof)", c.id, key));
      ShareRange r;
      r.metric = key;
      if (!kv.second.IsMap()) fail(path, kv.second, fmt::format("claim {}: {}: give {{min: X}} and/or {{max: Y}}", c.id, key));
      for (const auto& bound : kv.second) {
        const std::string b = bound.first.as<std::string>();
        if (b == "min") r.min = number(path, bound.second, key + ".min");
        else if (b == "max") r.max = number(path, bound.second, key + ".max");
        else fail(path, bound.first, fmt::format("claim {}: {}.{}: only min and max", c.id, key, b));
      }
      if (!r.min && !r.max) fail(path, kv.second, fmt::format("claim {}: {}: no min or max", c.id, key));
      c.ranges.push_back(r);
    }
    if (c.ranges.empty()) fail(path, check, fmt::format("claim {}: no range (flop_share, time_share, ...)", c.id));
    out.push_back(std::move(c));
  }
  if (out.empty()) throw model::InputError(fmt::format("{}: lists no claim", path.string()));
  return out;
}

std::vector<ClaimVerdict> check_trace_claims(const std::vector<Claim>& claims, const nlohmann::json& doc) {
  std::vector<ClaimVerdict> out;
  for (const auto& c : claims) {
    ClaimVerdict v;
    v.id = c.id;
    v.statement = c.statement;
    v.values = nlohmann::json::object();
    const nlohmann::json* row = nullptr;
    for (const auto& r : doc.at("classes"))
      if (r.at("class") == c.op_class) row = &r;
    const bool no_time = doc.at("total_time_s").get<double>() <= 0;
    bool holds = true, measured = row && !no_time;
    std::string evidence;
    for (const auto& range : c.ranges) {
      const nlohmann::json value = row ? row->at(range.metric) : nlohmann::json(nullptr);
      v.values[range.metric] = value;
      std::string want = range.min && range.max ? fmt::format("in [{}, {}]", *range.min, *range.max)
                         : range.min           ? fmt::format(">= {}", *range.min)
                                               : fmt::format("<= {}", *range.max);
      if (value.is_null() || !measured) {
        measured = false;
        evidence += fmt::format("{}{} {} unknown (want {})", evidence.empty() ? "" : "; ", c.op_class, range.metric, want);
        continue;
      }
      const double x = value.get<double>();
      const bool ok = (!range.min || x >= *range.min) && (!range.max || x <= *range.max);
      holds = holds && ok;
      evidence += fmt::format("{}{} {} {} ({} {})", evidence.empty() ? "" : "; ", c.op_class, range.metric,
                              numbers::percent(x), ok ? "ok," : "outside", want);
    }
    v.verdict = !measured ? "not measured" : holds ? "holds" : "fails";
    v.evidence = evidence;
    out.push_back(std::move(v));
  }
  return out;
}

nlohmann::json verdicts_json(const std::vector<ClaimVerdict>& verdicts) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : verdicts)
    out.push_back({{"id", v.id}, {"statement", v.statement}, {"verdict", v.verdict}, {"evidence", v.evidence}, {"values", v.values}});
  return out;
}

std::string verdicts_text(const std::vector<ClaimVerdict>& verdicts, bool markdown) {
  std::string out = markdown ? "| claim | verdict | evidence |\n|---|---|---|\n" : "";
  for (const auto& v : verdicts)
    out += markdown ? fmt::format("| {} | {} | {} |\n", v.id, v.verdict, v.evidence)
                    : fmt::format("{:<13} {}\n              {}\n", v.verdict, v.id, v.evidence);
  return out;
}

int claims_exit(const std::vector<ClaimVerdict>& verdicts, bool strict) {
  for (const auto& v : verdicts)
    if (v.verdict == "fails" || (strict && v.verdict != "holds")) return 1;
  return 0;
}

}  // namespace lmroof::trace
