#include "bench/shape_request.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <stdexcept>

#include "kernels/run_names/shape.h"

namespace lmroof::bench {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t end = s.find(sep, start);
    out.push_back(trim(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

}  // namespace

int64_t parse_size(std::string_view text, std::string_view what) {
  const std::string_view t = trim(text);
  if (t.empty()) throw std::invalid_argument(fmt::format("{}: empty value", what));
  int64_t multiplier = 1;
  std::string_view digits = t;
  const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(t.back())));
  if (last == 'k' || last == 'm') {
    multiplier = last == 'k' ? 1024 : 1024 * 1024;
    digits.remove_suffix(1);
  }
  if (!digits.empty() && digits.front() == '-')
    throw std::invalid_argument(fmt::format("{}: '{}' must be positive", what, t));
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size())
    throw std::invalid_argument(fmt::format("{}: '{}' is not a whole number (e.g. 4096 or 4k)", what, t));
  if (ec == std::errc::result_out_of_range || n > kMaxDim / multiplier)
    throw std::invalid_argument(fmt::format("{}: '{}' is larger than the limit {}", what, t, kMaxDim));
  if (n <= 0) throw std::invalid_argument(fmt::format("{}: '{}' must be positive", what, t));
  return n * multiplier;
}

std::vector<int64_t> parse_context_list(std::string_view text) {
  const std::string_view t = trim(text);
  if (const size_t dots = t.find(".."); dots != std::string_view::npos) {
    const int64_t from = parse_size(t.substr(0, dots), "--context"), to = parse_size(t.substr(dots + 2), "--context");
    if (to < from) throw std::invalid_argument(fmt::format("--context: '{}' runs backwards ({} > {})", t, from, to));
    std::vector<int64_t> out;
    for (int64_t c = from; c <= to; c *= 2) out.push_back(c);
    return out;
  }
  std::vector<int64_t> out;
  for (std::string_view item : split(t, ',')) out.push_back(parse_size(item, "--context"));
  return out;
}

ShapeOverride parse_shape_override(std::string_view text) {
  ShapeOverride o;
  o.text = std::string(trim(text));
  const size_t colon = o.text.find(':');
  if (colon == std::string::npos || colon == 0)
    throw std::invalid_argument(fmt::format("--shape '{}': expected PAIR:key=value[,key=value...]", o.text));
  o.pair = std::string(trim(std::string_view(o.text).substr(0, colon)));
  for (std::string_view item : split(std::string_view(o.text).substr(colon + 1), ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || trim(item.substr(0, eq)).empty())
      throw std::invalid_argument(fmt::format("--shape '{}': '{}' is not key=value", o.text, item));
    const std::string key(trim(item.substr(0, eq)));
    for (const auto& given : o.dims)
      if (given.first == key)
        throw std::invalid_argument(fmt::format("--shape '{}': {} is given twice; give each dimension once", o.text, key));
    o.dims.emplace_back(key, parse_size(item.substr(eq + 1), fmt::format("--shape '{}': {}", o.text, key)));
  }
  return o;
}

ShapeRequest make_shape_request(const std::string& model, const std::string& tokens, const std::string& batch,
                                const std::string& context, const std::vector<std::string>& shapes) {
  ShapeRequest r;
  if (!model.empty()) r.model = find_model(model);
  if (!tokens.empty()) r.tokens = parse_size(tokens, "--tokens");
  if (!batch.empty()) r.batch = parse_size(batch, "--batch");
  if (!context.empty()) r.contexts = parse_context_list(context);
  for (const auto& s : shapes) r.overrides.push_back(parse_shape_override(s));
  return r;
}

ModelSizes default_model_sizes(Backend backend, bool quick) {
  // Quick: the quick suite's own sizes (seconds on two cores). Otherwise sized like the
  // default suites: a CPU run stays within minutes for a 7B-class model's dimensions,
  // the GPU sweep reaches 32k where the KV cache dominates.
  if (quick) return {64, 2, {128, 256, 512}};
  if (backend == Backend::cuda) return {4096, 8, {4096, 8192, 16384, 32768}};
  return {512, 4, {1024, 2048, 4096, 8192}};
}

std::string size_label(int64_t n) { return n % 1024 == 0 ? fmt::format("{}k", n / 1024) : std::to_string(n); }

}  // namespace lmroof::bench
