#include "analysis/model/json_input.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <vector>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace lmroof::model {

namespace {

// A short, one-line rendering of a bad value for the message.
std::string shown(const nlohmann::json& j) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s.size() > 40) return fmt::format("a string of {} characters", s.size());
    return nlohmann::json(s).dump();
  }
  if (j.is_object() || j.is_array()) return std::string("an ") + j.type_name();
  return j.dump();
}

void line_column(std::string_view text, size_t byte, size_t& line, size_t& column) {
  line = 1, column = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, column = 1;
    else ++column;
  }
}

struct TooDeep {};
struct DuplicateKey {
  std::string key;
};

// nlohmann's DOM builder with a depth count: a container opened inside kMaxJsonDepth
// others stops the parse. It also refuses a key given twice in one object, which
// nlohmann would silently resolve to the last value ("schema" twice). (A parser callback would do the same, but nlohmann's callback
// parser scans the enclosing array for discarded values at the end of every object,
// which is quadratic in the length of an array of objects: 50,000 runs took seconds.)
class DepthLimitedDom : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
 public:
  DepthLimitedDom(nlohmann::json& root, DuplicateKeys duplicates)
      : json_sax_dom_parser(root, true), refuse_duplicates_(duplicates == DuplicateKeys::refuse) {}
  bool start_object(std::size_t n) {
    if (!open()) return false;
    keys_[depth_ - 1].clear();
    return json_sax_dom_parser::start_object(n);
  }
  bool key(std::string& k) {
    auto& seen = keys_[depth_ - 1];  // objects have few keys: a linear search, no allocation per object
    if (refuse_duplicates_ && std::find(seen.begin(), seen.end(), k) != seen.end()) throw DuplicateKey{k};
    seen.push_back(k);
    return json_sax_dom_parser::key(k);
  }
  bool start_array(std::size_t n) { return open() && json_sax_dom_parser::start_array(n); }
  bool end_object() { --depth_; return json_sax_dom_parser::end_object(); }
  bool end_array() { --depth_; return json_sax_dom_parser::end_array(); }

 private:
  bool open() {
    if (depth_ >= kMaxJsonDepth) throw TooDeep{};
    ++depth_;
    return true;
  }
  bool refuse_duplicates_ = true;
  int depth_ = 0;
  std::array<std::vector<std::string>, kMaxJsonDepth> keys_;  // of the object open at each depth
};

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& origin, DuplicateKeys duplicates) {
  // Stopping past the depth limit keeps the parser (and every later recursive walk:
  // dump, destructor, validation) shallow.
  // nlohmann's lexer takes a NUL byte for the end of the input: valid JSON followed
  // by NUL and garbage would pass.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    size_t line = 0, column = 0;
    line_column(text, nul + 1, line, column);
    throw InputError(fmt::format("{}:{}:{}: malformed JSON: a NUL byte", origin, line, column));
  }
  try {
    nlohmann::json root;
    DepthLimitedDom dom(root, duplicates);
    nlohmann::json::sax_parse(text.begin(), text.end(), &dom);
    return root;
  } catch (const DuplicateKey& d) {
    throw InputError(fmt::format("{}: malformed JSON: the key {} is given twice in one object", origin,
                                 nlohmann::json(d.key).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace)));
  } catch (const TooDeep&) {
    throw InputError(fmt::format("{}: JSON nested deeper than {} levels", origin, kMaxJsonDepth));
  } catch (const nlohmann::json::parse_error& e) {
    size_t line = 0, column = 0;
    line_column(text, e.byte, line, column);
    std::string what = e.what();
    if (auto pos = what.find("syntax error"); pos != std::string::npos) what = what.substr(pos);
    throw InputError(fmt::format("{}:{}:{}: malformed JSON: {}", origin, line, column, what));
  } catch (const nlohmann::json::exception& e) {
    // Not a syntax error but a value the parser cannot hold: a number beyond a double
    // (out_of_range.406, "9.88e58620"), found by tests/fuzz/fuzz_results.
    std::string what = e.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(fmt::format("{}: malformed JSON: {}", origin, what));
  }
}

std::string nan_tokens_to_null(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (std::string_view token : {"-Infinity", "Infinity", "-NaN", "NaN"})
      if (text.compare(i, token.size(), token) == 0) {
        out += "null";
        i += token.size() - 1;
        replaced = true;
        break;
      }
    if (!replaced) out += c;
  }
  return out;
}

std::string read_text_file(const std::filesystem::path& path, uintmax_t max_bytes) {
  const std::string shown = path.string();
  // O_NONBLOCK: opening a FIFO with no writer would block; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(fmt::format("{}: cannot open file: {}", shown, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(fmt::format("{}: cannot read file: {}", shown, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode) ? "is a directory" : S_ISFIFO(st.st_mode) ? "is a named pipe"
                       : S_ISCHR(st.st_mode) ? "is a character device" : S_ISBLK(st.st_mode) ? "is a block device"
                       : S_ISSOCK(st.st_mode) ? "is a socket" : "is not a regular file";
    throw InputError(fmt::format("{}: {}; give a regular file", shown, what));
  }
  const auto size = static_cast<uintmax_t>(st.st_size);
  if (size > max_bytes)
    throw InputError(fmt::format("{}: {} bytes is larger than the {} byte limit", shown, size, max_bytes));
  // One read into a buffer of the file's size (a stringstream copies twice: a tenth
  // of `lmroof check`'s time on a 100 MB results file). A file that grows meanwhile
  // is read up to the limit, no further.
  std::string text(static_cast<size_t>(size), '\0');
  size_t done = 0;
  for (;;) {
    if (done == text.size()) {
      if (text.size() >= max_bytes + 1) break;
      text.resize(std::min<uintmax_t>(std::max<size_t>(text.size() * 2, 1 << 16), max_bytes + 1));
    }
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(fmt::format("{}: cannot read file: {}", shown, std::strerror(errno)));
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  if (done > max_bytes) throw InputError(fmt::format("{}: larger than the {} byte limit", shown, max_bytes));
  text.resize(done);
  return text;
}

std::optional<size_t> first_invalid_utf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const size_t size = text.size();
  for (size_t i = 0; i < size;) {
    const unsigned char lead = bytes[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    uint32_t code = 0, min = 0;
    if ((lead & 0xE0) == 0xC0) length = 2, code = lead & 0x1F, min = 0x80;
    else if ((lead & 0xF0) == 0xE0) length = 3, code = lead & 0x0F, min = 0x800;
    else if ((lead & 0xF8) == 0xF0) length = 4, code = lead & 0x07, min = 0x10000;
    else return i;
    if (i + length > size) return i;
    for (size_t k = 1; k < length; ++k) {
      if ((bytes[i + k] & 0xC0) != 0x80) return i;
      code = (code << 6) | (bytes[i + k] & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return i;
    i += length;
  }
  return std::nullopt;
}

std::optional<std::string> terminal_unsafe_character(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = bytes[i];
    if (c < 0x20 || c == 0x7F) return fmt::format("U+{:04X}", c);
    // C1 controls (U+0080-U+009F) are C2 80..9F in UTF-8.
    if (c == 0xC2 && i + 1 < text.size() && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9F)
      return fmt::format("U+{:04X}", bytes[i + 1]);
    // U+202A-U+202E are E2 80 AA..AE; U+2066-U+2069 are E2 81 A6..A9.
    if (c == 0xE2 && i + 2 < text.size()) {
      const unsigned char b1 = bytes[i + 1], b2 = bytes[i + 2];
      if ((b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE) || (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9))
        return fmt::format("U+{:04X}", 0x2000 + ((b1 & 0x3F) << 6) + (b2 & 0x3F));
    }
  }
  return std::nullopt;
}

void require_utf8(std::string_view text, const std::string& origin) {
  if (const auto at = first_invalid_utf8(text)) {
    size_t line = 0, column = 0;
    line_column(text, *at + 1, line, column);
    throw InputError(fmt::format("{}:{}:{}: invalid UTF-8 (byte 0x{:02X}); save the file as UTF-8", origin, line, column,
                                 static_cast<unsigned char>(text[*at])));
  }
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  return parse_json(read_text_file(path), path.string());
}

std::string pointer_append(const std::string& pointer, std::string_view key) {
  std::string out;
  out.reserve(pointer.size() + 1 + key.size());
  out += pointer;
  out += '/';
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

JsonCursor::JsonCursor(const nlohmann::json& value, const std::string& file, std::string pointer)
    : value_(&value), file_(&file), prefix_(std::move(pointer)) {}

JsonCursor JsonCursor::child(const nlohmann::json& value, Segment segment) const {
  JsonCursor c(value, *file_);
  if (depth_ < kInlineSegments) {
    c.prefix_ = prefix_;
    c.segments_ = segments_;
    c.depth_ = depth_;
  } else {
    c.prefix_ = pointer();  // rare: deeper than any results.json field
  }
  c.segments_[c.depth_++] = segment;
  return c;
}

std::string JsonCursor::pointer() const {
  std::string out = prefix_;
  for (size_t i = 0; i < depth_; ++i) {
    const Segment& s = segments_[i];
    out = s.key.data() ? pointer_append(out, s.key) : fmt::format("{}/{}", out, s.index);
  }
  return out;
}

void JsonCursor::fail(std::string_view problem) const {
  const std::string where = pointer();
  throw InputError(fmt::format("{}: {}: {}", *file_, where.empty() ? "/" : where, problem));
}

void JsonCursor::require_object() const {
  if (!value_->is_object()) fail(fmt::format("must be an object (is {})", shown(*value_)));
}

bool JsonCursor::has(std::string_view key) const {
  return value_->is_object() && value_->find(key) != value_->end();
}

JsonCursor JsonCursor::at(std::string_view key) const {
  require_object();
  const auto it = value_->find(key);
  if (it == value_->end()) fail(fmt::format("missing '{}'", key));
  return child(*it, {it.key(), 0});
}

std::optional<JsonCursor> JsonCursor::opt(std::string_view key) const {
  require_object();
  const auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return child(*it, {it.key(), 0});
}

std::vector<JsonCursor> JsonCursor::items() const {
  if (!value_->is_array()) fail(fmt::format("must be an array (is {})", shown(*value_)));
  std::vector<JsonCursor> out;
  out.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i) out.push_back(child((*value_)[i], {std::string_view(), i}));
  return out;
}

std::vector<std::pair<std::string, JsonCursor>> JsonCursor::members() const {
  require_object();
  std::vector<std::pair<std::string, JsonCursor>> out;
  for (auto it = value_->begin(); it != value_->end(); ++it) out.emplace_back(it.key(), child(*it, {it.key(), 0}));
  return out;
}

std::string JsonCursor::string(size_t max_length) const {
  if (!value_->is_string()) fail(fmt::format("must be a string (is {})", shown(*value_)));
  const auto& s = value_->get_ref<const std::string&>();
  if (s.size() > max_length) fail(fmt::format("a string of {} characters is longer than the limit of {}", s.size(), max_length));
  return s;
}

std::string JsonCursor::one_line(size_t max_length) const {
  std::string s = string(max_length);
  if (const auto bad = terminal_unsafe_character(s))
    fail(fmt::format("holds {}, a control or direction character; a name must print as one line", *bad));
  return s;
}

std::string JsonCursor::one_of(std::initializer_list<std::string_view> allowed) const {
  return one_of(std::span<const std::string_view>(allowed.begin(), allowed.size()));
}

std::string JsonCursor::one_of(std::span<const std::string_view> allowed) const {
  std::string s = string();
  for (auto a : allowed)
    if (s == a) return s;
  std::string list;
  for (auto a : allowed) list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", a);
  fail(fmt::format("must be one of {} (is {})", list, shown(*value_)));
}

OpClass JsonCursor::op_class() const {
  if (const auto c = parse_op_class(string())) return *c;
  std::string list;
  for (OpClass c : kAllOpClasses) list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", to_string(c));
  fail(fmt::format("must be an operator class, one of {} (is {})", list, shown(*value_)));
}

bool JsonCursor::boolean() const {
  if (!value_->is_boolean()) fail(fmt::format("must be true or false (is {})", shown(*value_)));
  return value_->get<bool>();
}

double JsonCursor::number() const {
  if (!value_->is_number()) fail(fmt::format("must be a number (is {})", shown(*value_)));
  const double v = value_->get<double>();
  if (!std::isfinite(v)) fail("must be a finite number");
  return v;
}

double JsonCursor::positive() const {
  const double v = number();
  if (!(v > 0)) fail(fmt::format("must be a positive number (is {})", shown(*value_)));
  return v;
}

double JsonCursor::non_negative() const {
  const double v = number();
  if (v < 0) fail(fmt::format("must not be negative (is {})", shown(*value_)));
  return v;
}

double JsonCursor::fraction() const {
  const double v = number();
  if (v < 0 || v > 1 + 1e-9) fail(fmt::format("must be a fraction in [0, 1] (is {})", shown(*value_)));
  return v;
}

int64_t JsonCursor::integer(int64_t min, int64_t max) const {
  if (!value_->is_number_integer() && !(value_->is_number_float() && std::isfinite(value_->get<double>()) &&
                                        value_->get<double>() == std::floor(value_->get<double>())))
    fail(fmt::format("must be an integer (is {})", shown(*value_)));
  // Compare as double first so huge floats and unsigned values cannot wrap.
  const double d = value_->get<double>();
  if (d < static_cast<double>(min) || d > static_cast<double>(max))
    fail(fmt::format("must be an integer in [{}, {}] (is {})", min, max, shown(*value_)));
  return value_->is_number_unsigned() ? static_cast<int64_t>(value_->get<uint64_t>()) : value_->get<int64_t>();
}

std::vector<std::string> JsonCursor::strings(size_t max_length) const {
  std::vector<std::string> out;
  for (const auto& item : items()) out.push_back(item.string(max_length));
  return out;
}

std::vector<int64_t> launch_dims(const JsonCursor& c) {
  std::vector<int64_t> out;
  const auto items = c.items();
  if (items.size() > 3) c.fail("must hold at most 3 numbers");
  for (const auto& v : items) out.push_back(v.integer(0, int64_t{1} << 32));
  return out;
}

}  // namespace lmroof::model
