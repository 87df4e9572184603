// results.json -> compare::Side; see analysis/compare_input.h.
#include "analysis/compare_input.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/fleet.h"
#include "analysis/results.h"

namespace lmroof::compare {

namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& file, const std::string& where, const std::string& why) {
  throw std::invalid_argument(fmt::format("{}: {}: {}", file, where, why));
}

std::string string_at(const json& obj, const char* key, const std::string& file, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
    bad(file, where + "/" + key, "expected a non-empty string");
  return it->get<std::string>();
}

double positive_at(const json& obj, const char* key, const std::string& file, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0)
    bad(file, where + "/" + key, "expected a positive number");
  return it->get<double>();
}

}  // namespace

Side read_side(const std::filesystem::path& path) {
  const std::string file = path.string();
  json doc;
  try {
    doc = load_results(path);
  } catch (const std::exception& e) {
    throw std::invalid_argument(e.what());  // already "FILE: ..."
  }
  Side side;
  side.file = file;
  const json& machine = doc["machine"];
  if (!machine.is_object()) bad(file, "/machine", "expected an object");
  side.machine = fleet::describe_machine(machine);
  if (auto d = machine.find("date"); d != machine.end() && d->is_string()) side.date = d->get<std::string>();

  const json& runs = doc["runs"];
  side.runs.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    const json& r = runs[i];
    const std::string where = fmt::format("/runs/{}", i);
    if (!r.is_object()) bad(file, where, "expected an object");
    RunTimes t;
    t.id = string_at(r, "id", file, where);
    t.key.pair = string_at(r, "pair", file, where);
    t.key.variant = string_at(r, "variant", file, where);
    t.key.impl = string_at(r, "impl", file, where);
    t.key.backend = string_at(r, "backend", file, where);
    t.key.dtype = string_at(r, "dtype", file, where);
    auto shape = r.find("shape");
    if (shape == r.end() || !shape->is_object()) bad(file, where + "/shape", "expected an object of dimensions");
    for (const auto& [name, value] : shape->items()) {
      if (!value.is_number_integer()) bad(file, where + "/shape/" + name, "expected an integer");
      t.key.shape[name] = value.get<int64_t>();
    }
    auto time = r.find("time_s");
    if (time == r.end() || !time->is_object()) bad(file, where + "/time_s", "expected an object");
    t.median = positive_at(*time, "median", file, where + "/time_s");
    auto samples = time->find("samples");
    if (samples == time->end() || !samples->is_array() || samples->empty())
      bad(file, where + "/time_s/samples", "expected a non-empty array of repetition times");
    for (size_t k = 0; k < samples->size(); ++k) {
      const json& s = (*samples)[k];
      if (!s.is_number() || !std::isfinite(s.get<double>()) || s.get<double>() <= 0)
        bad(file, fmt::format("{}/time_s/samples/{}", where, k), "expected a positive number of seconds");
      t.samples.push_back(s.get<double>());
    }
    if (auto roof = r.find("roofline"); roof != r.end() && roof->is_object())
      if (auto eff = roof->find("efficiency"); eff != roof->end() && eff->is_number() && std::isfinite(eff->get<double>()))
        t.roof_fraction = eff->get<double>();
    side.runs.push_back(std::move(t));
  }
  return side;
}

}  // namespace lmroof::compare
