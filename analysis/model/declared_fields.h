#pragma once
// A JSON document's fields declared once, beside the type that holds them, and both its
// validating reader and its writer made from that one list (issue 43, "one validating
// reader and one writer"; issue 46, "each field declared once"). A type lists its
// fields in a member template:
//
//   struct Fix {
//     std::string kind;
//     double saving_s = 0, error = 0;
//     std::optional<double> roof_s, extra, later;
//     template <class F> void fields(F& f) {
//       f("kind", kind)                   // required
//        ("saving_s", saving_s)           // a number: finite and at least 0
//        ("roof_s", roof_s)               // a required key whose value may be null
//        ("error", error, Range::any)     // also Range::positive, Range::fraction
//        .optional("extra", extra)        // a key written only when it has a value
//        .defaulted("later", later);      // always written; absent in older files: the default
//     }
//     void check(const JsonCursor& c) const;  // optional: what no one field can say
//   };
//
// read_fields<T>(cursor) checks every field's presence, type and range (then the type's
// check(), where it has one: a choice of words, one field against another) and throws
// InputError "FILE: POINTER: problem"; write_fields(value) gives the JSON object;
// visit_strings(value, fn) rewrites every text the value holds (a terminal's printable
// copy); field_names<T>() lists the names T declares (tests hold the schema documents to
// them). A value the list cannot spell (a claim verdict, read and written by
// results_json.cpp) takes overloads of read_field/write_field/visit_strings beside its type.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/json_input.h"

namespace lmroof::model {

// A number's range: finite and at least 0 (the default), any finite number, above 0, or
// in [0, 1]. For whole numbers: at least 0, any, or at least 1.
enum class Range { non_negative, any, positive, fraction };

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <class T>
concept DeclaresFields = requires(T& t, int& visitor) { t.template fields<int>(visitor); };

// ---- reading --------------------------------------------------------------------------

inline void read_field(const JsonCursor& c, double& x, Range range) {
  switch (range) {
    case Range::any: x = c.number(); return;
    case Range::positive: x = c.positive(); return;
    case Range::fraction: x = c.fraction(); return;
    case Range::non_negative: break;
  }
  x = c.non_negative();
}
inline void read_field(const JsonCursor& c, uint64_t& x, Range range) {
  x = static_cast<uint64_t>(c.integer(range == Range::positive ? 1 : 0, std::numeric_limits<int64_t>::max()));
}
inline void read_field(const JsonCursor& c, int64_t& x, Range range) {
  x = c.integer(range == Range::any ? std::numeric_limits<int64_t>::min() : range == Range::positive ? 1 : 0,
                std::numeric_limits<int64_t>::max());
}
inline void read_field(const JsonCursor& c, OpClass& x, Range) { x = c.op_class(); }
inline void read_field(const JsonCursor& c, bool& x, Range) { x = c.boolean(); }
inline void read_field(const JsonCursor& c, std::string& x, Range) { x = c.string(kMaxTextLength); }
// Kept as written (an op's input shapes: nested arrays of numbers and text).
inline void read_field(const JsonCursor& c, nlohmann::json& x, Range) { x = c.json(); }
template <class T>
void read_field(const JsonCursor& c, std::optional<T>& x, Range range);
template <class T>
void read_field(const JsonCursor& c, std::vector<T>& x, Range range);
template <class T>
void read_field(const JsonCursor& c, std::map<std::string, T>& x, Range range);
template <DeclaresFields T>
void read_field(const JsonCursor& c, T& x, Range);

class FieldReader {
 public:
  explicit FieldReader(const JsonCursor& object) : object_(object) { object_.require_object(); }
  template <class T>
  FieldReader& operator()(std::string_view key, T& field, Range range = Range::non_negative) {
    read_field(object_.at(key), field, range);
    return *this;
  }
  template <class T>
  FieldReader& defaulted(std::string_view key, T& field, Range range = Range::non_negative) {
    if (object_.has(key)) read_field(object_.at(key), field, range);
    return *this;
  }
  // Absent (or null, unless T itself may be null) reads as no value.
  template <class T>
  FieldReader& optional(std::string_view key, std::optional<T>& field, Range range = Range::non_negative) {
    field.reset();
    if (!object_.has(key)) return *this;
    if constexpr (!IsOptional<T>::value)
      if (object_.at(key).is_null()) return *this;
    field.emplace();
    read_field(object_.at(key), *field, range);
    return *this;
  }

 private:
  const JsonCursor& object_;
};

template <class T>
void read_field(const JsonCursor& c, std::optional<T>& x, Range range) {
  x.reset();
  if (c.is_null()) return;
  x.emplace();
  read_field(c, *x, range);
}
template <class T>
void read_field(const JsonCursor& c, std::vector<T>& x, Range range) {
  x.clear();
  for (const auto& item : c.items()) read_field(item, x.emplace_back(), range);
}
template <class T>
void read_field(const JsonCursor& c, std::map<std::string, T>& x, Range range) {
  x.clear();
  for (const auto& [key, value] : c.members()) read_field(value, x[key], range);
}
template <DeclaresFields T>
void read_field(const JsonCursor& c, T& x, Range) {
  FieldReader reader(c);
  x.fields(reader);
  if constexpr (requires { x.check(c); }) x.check(c);
}

// ---- writing --------------------------------------------------------------------------

inline nlohmann::json write_field(double x) { return x; }
inline nlohmann::json write_field(uint64_t x) { return x; }
inline nlohmann::json write_field(int64_t x) { return x; }
inline nlohmann::json write_field(bool x) { return x; }
inline nlohmann::json write_field(OpClass x) { return std::string(to_string(x)); }
inline nlohmann::json write_field(const std::string& x) { return x; }
inline nlohmann::json write_field(const nlohmann::json& x) { return x; }
template <class T>
nlohmann::json write_field(const std::optional<T>& x);
template <class T>
nlohmann::json write_field(const std::vector<T>& x);
template <class T>
nlohmann::json write_field(const std::map<std::string, T>& x);
template <DeclaresFields T>
nlohmann::json write_field(const T& x);

class FieldWriter {
 public:
  explicit FieldWriter(nlohmann::json& object) : object_(object) { object_ = nlohmann::json::object(); }
  template <class T>
  FieldWriter& operator()(std::string_view key, const T& field, Range = Range::non_negative) {
    object_[std::string(key)] = write_field(field);
    return *this;
  }
  template <class T>
  FieldWriter& defaulted(std::string_view key, const T& field, Range = Range::non_negative) {
    object_[std::string(key)] = write_field(field);
    return *this;
  }
  template <class T>
  FieldWriter& optional(std::string_view key, const std::optional<T>& field, Range = Range::non_negative) {
    if (field) object_[std::string(key)] = write_field(*field);
    return *this;
  }

 private:
  nlohmann::json& object_;
};

template <class T>
nlohmann::json write_field(const std::optional<T>& x) {
  return x ? write_field(*x) : nlohmann::json(nullptr);
}
template <class T>
nlohmann::json write_field(const std::vector<T>& x) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& item : x) out.push_back(write_field(item));
  return out;
}
template <class T>
nlohmann::json write_field(const std::map<std::string, T>& x) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : x) out[key] = write_field(value);
  return out;
}
template <DeclaresFields T>
nlohmann::json write_field(const T& x) {
  nlohmann::json out;
  FieldWriter writer(out);
  // The one list serves reading too, so it takes a non-const value; the writer only reads it.
  const_cast<T&>(x).fields(writer);
  return out;
}

// ---- every text a value holds -----------------------------------------------------------

using StringRewrite = std::function<std::string(const std::string&)>;

inline void visit_strings(std::string& x, const StringRewrite& fn) { x = fn(x); }
inline void visit_strings(nlohmann::json& x, const StringRewrite& fn) {
  if (x.is_string()) x = fn(x.get<std::string>());
  else if (x.is_structured())
    for (auto& item : x) visit_strings(item, fn);
}
template <class T>
  requires std::is_arithmetic_v<T> || std::is_enum_v<T>
void visit_strings(T&, const StringRewrite&) {}
template <class T>
void visit_strings(std::optional<T>& x, const StringRewrite& fn);
template <class T>
void visit_strings(std::vector<T>& x, const StringRewrite& fn);
template <class T>
void visit_strings(std::map<std::string, T>& x, const StringRewrite& fn);
template <DeclaresFields T>
void visit_strings(T& x, const StringRewrite& fn);

class StringVisitor {
 public:
  explicit StringVisitor(const StringRewrite& fn) : fn_(fn) {}
  template <class T>
  StringVisitor& operator()(std::string_view, T& field, Range = Range::non_negative) {
    visit_strings(field, fn_);
    return *this;
  }
  template <class T>
  StringVisitor& defaulted(std::string_view, T& field, Range = Range::non_negative) {
    visit_strings(field, fn_);
    return *this;
  }
  template <class T>
  StringVisitor& optional(std::string_view, std::optional<T>& field, Range = Range::non_negative) {
    visit_strings(field, fn_);
    return *this;
  }

 private:
  const StringRewrite& fn_;
};

template <class T>
void visit_strings(std::optional<T>& x, const StringRewrite& fn) {
  if (x) visit_strings(*x, fn);
}
template <class T>
void visit_strings(std::vector<T>& x, const StringRewrite& fn) {
  for (auto& item : x) visit_strings(item, fn);
}
template <class T>
void visit_strings(std::map<std::string, T>& x, const StringRewrite& fn) {
  std::map<std::string, T> out;
  for (auto& [key, value] : x) {
    visit_strings(value, fn);
    out.emplace(fn(key), std::move(value));
  }
  x = std::move(out);
}
template <DeclaresFields T>
void visit_strings(T& x, const StringRewrite& fn) {
  StringVisitor visitor(fn);
  x.fields(visitor);
}

// The JSON names a type declares, in declaration order: what its schema documentation
// must name (tests hold docs/results-schema.md and docs/trace.schema.json to them).
class FieldNames {
 public:
  std::vector<std::string> names;
  template <class T>
  FieldNames& operator()(std::string_view key, T&, Range = Range::non_negative) {
    names.emplace_back(key);
    return *this;
  }
  template <class T>
  FieldNames& defaulted(std::string_view key, T&, Range = Range::non_negative) {
    names.emplace_back(key);
    return *this;
  }
  template <class T>
  FieldNames& optional(std::string_view key, T&, Range = Range::non_negative) {
    names.emplace_back(key);
    return *this;
  }
};

template <DeclaresFields T>
std::vector<std::string> field_names() {
  T x{};
  FieldNames f;
  x.fields(f);
  return f.names;
}

// The entry points.
template <DeclaresFields T>
T read_fields(const JsonCursor& c) {
  T x;
  read_field(c, x, Range::non_negative);
  return x;
}
template <DeclaresFields T>
nlohmann::json write_fields(const T& x) {
  return write_field(x);
}

}  // namespace lmroof::model
