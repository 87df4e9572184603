#include "analysis/trace/cost_models.h"

#include "analysis/trace/op_classes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

#include "kernels/run_names/op_formulas.h"

namespace lmroof::trace {

namespace {

// A tiny reader of the arrays Kineto writes: numbers, strings, nested arrays.
struct JsonArrayReader {
  std::string_view text;
  size_t pos = 0;
  bool ok = true;
  void skip_space() {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  }
  bool eat(char c) {
    skip_space();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  // A value as a tree: an int vector at the leaves' level, or nested.
  struct Node {
    bool is_array = false;
    bool is_string = false;
    std::string text;  // string or number text
    std::vector<Node> items;
  };
  Node value(int depth = 0) {
    Node n;
    skip_space();
    if (!ok || pos >= text.size() || depth > 8) {
      ok = false;
      return n;
    }
    if (text[pos] == '[') {
      ++pos;
      n.is_array = true;
      if (eat(']')) return n;
      for (;;) {
        n.items.push_back(value(depth + 1));
        if (!ok) return n;
        if (eat(',')) continue;
        if (eat(']')) return n;
        ok = false;
        return n;
      }
    }
    if (text[pos] == '"') {
      ++pos;
      n.is_string = true;
      while (pos < text.size() && text[pos] != '"') {
        if (text[pos] == '\\' && pos + 1 < text.size()) ++pos;
        n.text += text[pos++];
      }
      if (pos >= text.size()) ok = false;
      else ++pos;
      return n;
    }
    while (pos < text.size() && text[pos] != ',' && text[pos] != ']' && !std::isspace(static_cast<unsigned char>(text[pos])))
      n.text += text[pos++];
    if (n.text.empty()) ok = false;
    return n;
  }
};

std::optional<int64_t> to_int(std::string_view s) {
  int64_t v = 0;
  const auto* end = s.data() + s.size();
  if (s.empty() || std::from_chars(s.data(), end, v).ptr != end) return std::nullopt;
  return v;
}

std::optional<std::vector<int64_t>> int_list(const JsonArrayReader::Node& node) {
  std::vector<int64_t> out;
  for (const auto& item : node.items) {
    if (item.is_array || item.is_string) return std::nullopt;
    const auto v = to_int(item.text);
    if (!v || *v < 0) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

double elements(const std::vector<int64_t>& dims) {
  double n = 1;
  for (auto d : dims) n *= static_cast<double>(d);
  return n;
}

bool is_scalar_type(std::string_view t) {
  return t == "Scalar" || t == "ScalarList" || t.empty() || t == "GenericList" || t == "Device" || t == "ScalarType";
}

}  // namespace

OpInputs parse_inputs(std::string_view input_dims, std::string_view input_types, std::string_view concrete_inputs) {
  OpInputs out;
  std::vector<std::string> types, concrete;
  auto strings_of = [](std::string_view text, std::vector<std::string>& into) {
    if (text.empty()) return true;
    JsonArrayReader r{text};
    const auto node = r.value();
    if (!r.ok || !node.is_array) return false;
    for (const auto& item : node.items) into.push_back(item.is_array ? std::string("[list]") : item.text);
    return true;
  };
  strings_of(input_types, types);
  // Concrete values of int lists come as "[1, 2]" strings or nested arrays: kept as text.
  if (!concrete_inputs.empty()) {
    JsonArrayReader r{concrete_inputs};
    const auto node = r.value();
    if (r.ok && node.is_array)
      for (const auto& item : node.items) {
        if (!item.is_array) {
          concrete.push_back(item.text);
          continue;
        }
        std::string joined = "[";
        for (size_t i = 0; i < item.items.size(); ++i) joined += (i ? "," : "") + item.items[i].text;
        concrete.push_back(joined + "]");
      }
  }
  std::vector<JsonArrayReader::Node> dims;
  if (!input_dims.empty()) {
    JsonArrayReader r{input_dims};
    auto node = r.value();
    if (!r.ok || !node.is_array) out.dims_parsed = false;
    else dims = std::move(node.items);
  }
  const size_t n = std::max({dims.size(), types.size(), concrete.size()});
  out.inputs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    OpInput& in = out.inputs[i];
    if (i < types.size()) in.type = types[i];
    if (i < concrete.size()) in.concrete = concrete[i];
    if (i >= dims.size() || !out.dims_parsed) continue;
    const auto& d = dims[i];
    if (!d.is_array) {
      out.dims_parsed = false;
      continue;
    }
    const bool nested = !d.items.empty() && d.items[0].is_array;
    if (nested) {
      for (const auto& sub : d.items) {
        auto dl = int_list(sub);
        if (!dl) out.dims_parsed = false;
        else in.list.push_back(*dl);
      }
      continue;
    }
    auto dl = int_list(d);
    if (!dl) {
      out.dims_parsed = false;
      continue;
    }
    in.dims = *dl;
    // [] is a scalar, None, an int list or a 0-d tensor: the trace writes bool and
    // double arguments with a dtype name too, so a [] never counts (a 0-d tensor's few
    // bytes are left out). An input with dims and no type is not a tensor either.
    in.is_tensor = !in.dims.empty() && !is_scalar_type(in.type);
  }
  return out;
}

std::optional<int> dtype_bytes(std::string_view t) {
  static const std::map<std::string_view, int> kSizes = {
      {"float", 4},          {"double", 8},          {"c10::Half", 2},           {"c10::BFloat16", 2},
      {"c10::Float8_e4m3fn", 1}, {"c10::Float8_e5m2", 1}, {"c10::Float8_e4m3fnuz", 1}, {"c10::Float8_e5m2fnuz", 1},
      {"c10::Float8_e8m0fnu", 1}, {"long int", 8},      {"long", 8},                {"int64_t", 8},
      {"int", 4},            {"short int", 2},       {"short", 2},               {"signed char", 1},
      {"unsigned char", 1},  {"bool", 1},            {"c10::complex<float>", 8}, {"c10::complex<double>", 16},
      {"c10::complex<c10::Half>", 4}, {"unsigned short", 2}, {"unsigned int", 4},   {"unsigned long", 8},
      {"c10::quint8", 1},    {"c10::qint8", 1},      {"c10::qint32", 4},
  };
  const auto it = kSizes.find(t);
  if (it == kSizes.end()) return std::nullopt;
  return it->second;
}

std::string compute_dtype(std::string_view t) {
  if (t == "c10::BFloat16") return "bf16";
  if (t == "c10::Half") return "fp16";
  if (t.starts_with("c10::Float8")) return "fp8";
  if (t == "float") return "fp32";
  if (t == "double") return "fp64";
  if (dtype_bytes(t)) return "int";
  return "";
}

bool is_collective_kernel(std::string_view k) { return class_of_kernel(k) == OpClass::communication; }

namespace {

// Size of a tensor input in bytes at its own dtype; nullopt if the dtype is unknown.
std::optional<double> tensor_bytes(const OpInput& in) {
  const auto size = dtype_bytes(in.type);
  if (!size) return std::nullopt;
  if (!in.list.empty()) {
    double n = 0;
    for (const auto& d : in.list) n += elements(d);
    return n * *size;
  }
  return elements(in.dims) * *size;
}

struct Builder {
  OpCost cost;
  const OpInputs& in;
  bool bytes_ok = true;
  double bytes = 0;
  bool out_overload = false;  // the op was named NAME.out: its last tensor input is the output

  const OpInput* input(size_t i) const { return i < in.inputs.size() ? &in.inputs[i] : nullptr; }
  bool tensor(size_t i) const { return input(i) && input(i)->is_tensor; }
  // Adds input i at its own size (a broadcast input counts at its own size).
  void read(size_t i) {
    if (!tensor(i)) return;
    const auto b = tensor_bytes(*input(i));
    if (!b) {
      bytes_ok = false;
      unknown(fmt::format("input {} has the unknown dtype \"{}\"", i, input(i)->type));
      return;
    }
    bytes += *b;
  }
  void read_all() {
    for (size_t i = 0; i < in.inputs.size(); ++i) read(i);
  }
  void write(double elements_written, std::string_view type) {
    const auto size = dtype_bytes(type);
    if (!size) {
      bytes_ok = false;
      unknown(fmt::format("output dtype \"{}\" unknown", type));
      return;
    }
    bytes += elements_written * *size;
  }
  void unknown(std::string why) {
    if (cost.why_unknown.empty()) cost.why_unknown = std::move(why);
  }
  OpCost done(std::optional<double> flops) {
    cost.flops = flops;
    if (bytes_ok) cost.bytes = bytes;
    return cost;
  }
  OpCost none(std::string why) {
    unknown(std::move(why));
    cost.flops.reset();
    cost.bytes.reset();
    return cost;
  }
};

bool concrete_true(const OpInput* in, std::optional<bool>& out) {
  if (!in || in->concrete.empty()) return false;
  if (in->concrete == "True" || in->concrete == "true" || in->concrete == "1") out = true;
  else if (in->concrete == "False" || in->concrete == "false" || in->concrete == "0") out = false;
  else return false;
  return true;
}

// PyTorch's ScalarType numbering, for the dtype arguments Concrete Inputs records.
std::string scalar_type_name(std::string_view code) {
  static const std::map<std::string_view, std::string_view> kTypes = {
      {"0", "unsigned char"}, {"1", "signed char"}, {"2", "short int"}, {"3", "int"}, {"4", "long int"},
      {"5", "c10::Half"}, {"6", "float"}, {"7", "double"}, {"11", "bool"}, {"15", "c10::BFloat16"},
      {"23", "c10::Float8_e5m2"}, {"24", "c10::Float8_e4m3fn"}};
  const auto it = kTypes.find(code);
  return it == kTypes.end() ? std::string() : std::string(it->second);
}

// A collective's `dtype` arg ("Float", "Long", ...) as Input type writes it; "BFloat16",
// "Half" and the Float8 names take the "c10::" prefix instead.
std::string collective_dtype_name(std::string_view name) {
  static const std::map<std::string_view, std::string_view> kTypes = {
      {"Float", "float"}, {"Double", "double"}, {"Long", "long int"},   {"Int", "int"},
      {"Short", "short int"}, {"Byte", "unsigned char"}, {"Char", "signed char"}, {"Bool", "bool"}};
  const auto it = kTypes.find(name);
  return it == kTypes.end() ? std::string() : std::string(it->second);
}

// Broadcast shape of the tensor inputs (numpy rules); nullopt when incompatible.
std::optional<std::vector<int64_t>> broadcast(const OpInputs& in, size_t first = 0) {
  std::vector<int64_t> out;
  for (size_t i = first; i < in.inputs.size(); ++i) {
    const auto& t = in.inputs[i];
    if (!t.is_tensor) continue;
    std::vector<int64_t> d = t.dims;
    if (d.size() > out.size()) out.insert(out.begin(), d.size() - out.size(), 1);
    const size_t off = out.size() - d.size();
    for (size_t k = 0; k < d.size(); ++k) {
      int64_t& o = out[off + k];
      if (o == d[k] || d[k] == 1) continue;
      if (o == 1) o = d[k];
      else return std::nullopt;
    }
  }
  return out;
}

// The result dtype of an elementwise op: the widest floating tensor input (type
// promotion among tensors; a Python scalar never widens a tensor).
std::string promoted_type(const OpInputs& in) {
  std::string best;
  int rank = -1;
  auto rank_of = [](std::string_view t) {
    if (t == "double") return 4;
    if (t == "float") return 3;
    if (t == "c10::BFloat16" || t == "c10::Half") return 2;
    if (t.starts_with("c10::Float8")) return 1;
    return 0;
  };
  for (const auto& t : in.inputs) {
    if (!t.is_tensor) continue;
    const int r = rank_of(t.type);
    if (r > rank) rank = r, best = t.type;
  }
  return best;
}

std::string strip(std::string_view name) {
  if (name.starts_with("aten::")) name.remove_prefix(6);
  return std::string(name);
}

using Model = std::function<OpCost(Builder&)>;

// ---- matmul -----------------------------------------------------------------------
OpCost matmul_cost(Builder& b, size_t a_index, size_t b_index, std::optional<size_t> bias_index, bool batched_b_optional) {
  b.cost.op_class = OpClass::matmul;
  b.cost.unit = Unit::tensor;
  if (!b.tensor(a_index) || !b.tensor(b_index)) return b.none("matmul inputs missing from Input Dims");
  const auto& A = b.input(a_index)->dims;
  const auto& B = b.input(b_index)->dims;
  if (A.size() < 2 || B.size() < 2) return b.none("matmul with a 1-d operand: not modelled");
  const int64_t M = A[A.size() - 2], K = A.back(), K2 = B[B.size() - 2], N = B.back();
  if (K != K2) return b.none(fmt::format("inner dimensions differ ({} vs {})", K, K2));
  double batch = 1;
  std::vector<int64_t> ab(A.begin(), A.end() - 2), bb(B.begin(), B.end() - 2);
  if (!batched_b_optional && ab.size() != bb.size()) return b.none("batch dimensions differ");
  const size_t nb = std::max(ab.size(), bb.size());
  ab.insert(ab.begin(), nb - ab.size(), 1);
  bb.insert(bb.begin(), nb - bb.size(), 1);
  for (size_t i = 0; i < nb; ++i) {
    if (ab[i] != bb[i] && ab[i] != 1 && bb[i] != 1) return b.none("batch dimensions do not broadcast");
    batch *= static_cast<double>(std::max(ab[i], bb[i]));
  }
  const double out = batch * M * N;
  double flops = formulas::matmul_flops(batch, M, N, K);
  b.read(a_index);
  b.read(b_index);
  if (bias_index && b.tensor(*bias_index)) {
    b.read(*bias_index);
    flops += out;  // the bias add, one per output element
  }
  const std::string& type = b.input(a_index)->type;
  b.cost.dtype = compute_dtype(type);
  if (b.cost.dtype == "fp32") b.cost.assumption = "fp32 matmul judged at the TF32 tensor peak (the trace cannot tell)";
  b.write(out, type);
  return b.done(flops);
}

// ---- attention --------------------------------------------------------------------
// layout_bhnd: query [B, H, N, d] (SDPA ops); else [B, N, H, d] (_flash/_efficient_attention_*).
OpCost attention_cost(Builder& b, size_t q_index, bool layout_bhnd, std::optional<size_t> causal_index,
                      bool causal_is_mask_type, bool backward, std::vector<size_t> outputs_like_inputs,
                      double extra_output_per_query_row) {
  b.cost.op_class = OpClass::attention;
  b.cost.unit = Unit::tensor;
  if (!b.tensor(q_index) || !b.tensor(q_index + 1) || !b.tensor(q_index + 2))
    return b.none("query, key or value missing from Input Dims");
  const auto& q = b.input(q_index)->dims;
  const auto& k = b.input(q_index + 1)->dims;
  const auto& v = b.input(q_index + 2)->dims;
  if (q.size() != 4 || k.size() != 4 || v.size() != 4) return b.none("query, key and value are not 4-d");
  const double B = q[0];
  const double H = layout_bhnd ? q[1] : q[2];
  const double Nq = layout_bhnd ? q[2] : q[1];
  const double Nk = layout_bhnd ? k[2] : k[1];
  const double dqk = q[3], dv = v[3];
  std::optional<bool> causal;
  if (causal_index) {
    const OpInput* c = b.input(*causal_index);
    if (causal_is_mask_type) {
      if (c && !c->concrete.empty())
        if (auto mt = to_int(c->concrete)) causal = *mt != 0;
    } else {
      concrete_true(c, causal);
    }
  }
  if (!causal) return b.none("causality unknown: the trace has no Concrete Inputs for is_causal");
  // Forward: S = QK^T (2·Nq·Nk·dqk) and O = PV (2·Nq·Nk·dv) per batch and head.
  // Backward: five such matmuls (S recomputed, dV, dP, dQ, dK): 2.5 × the forward.
  double flops = 2.0 * B * H * Nq * Nk * (dqk + dv);
  if (backward) flops *= 2.5;
  if (*causal) flops /= 2;
  b.read_all();
  const std::string& type = b.input(q_index)->type;
  for (size_t i : outputs_like_inputs) {
    if (b.tensor(i)) b.write(elements(b.input(i)->dims), b.input(i)->type);
  }
  if (extra_output_per_query_row > 0) b.bytes += B * H * Nq * extra_output_per_query_row;  // logsumexp, fp32
  b.cost.dtype = compute_dtype(type);
  b.cost.assumption = *causal ? "causal: half of the score matrix computed" : "";
  return b.done(flops);
}

// ---- normalization ----------------------------------------------------------------
// Forward: the one formula the pairs and predict use (kernels/run_names/op_formulas.h):
// LayerNorm 5 per element, +1 for a weight and +1 for a bias (at weight_index + 1),
// RMSNorm 3, +1 for a weight; per statistics row 3 (2 for RMSNorm) and one rsqrt.
// `rows` is the number of statistics rows; when the trace does not tell it (0), the
// per-row terms are left out, and the assumption says so.
// Backward, per element: x̂ 2, dŷ 1, two row sums 3, dx 5, dγ 2, dβ 1 (affine: 14, else 10).
// `stats_per_row_bytes`: the mean and rstd a native op writes per row (0 for composites).
OpCost norm_cost(Builder& b, bool backward, bool rms, size_t x_index, std::optional<size_t> weight_index,
                 double stats_per_row_bytes, double rows, std::vector<size_t> outputs_like_inputs) {
  b.cost.op_class = OpClass::normalization;
  b.cost.unit = Unit::vector;
  if (!b.tensor(x_index)) return b.none("input missing from Input Dims");
  const double n = elements(b.input(x_index)->dims);
  const bool weight = weight_index && b.tensor(*weight_index);
  const bool bias = !rms && weight_index && b.tensor(*weight_index + 1);
  double flops;
  if (backward) {
    flops = (rms ? (weight ? 10 : 7) : (weight ? 14 : 10)) * n;
  } else {
    const double r = rows > 0 ? rows : 1, d = n / r;
    const formulas::Flops f = rms ? formulas::rmsnorm_flops(r, d, weight) : formulas::layernorm_flops(r, d, weight, bias);
    // Without the rows, only the per-element terms: the total less the per-row ones.
    flops = rows > 0 ? f.total() : f.vector - (rms ? 2 : 3);
    if (rows <= 0) b.cost.assumption = "rows normalised over unknown: per-row terms (division, eps, rsqrt) not counted";
  }
  b.read_all();
  for (size_t i : outputs_like_inputs)
    if (b.tensor(i)) b.write(elements(b.input(i)->dims), b.input(i)->type);
  b.bytes += rows * stats_per_row_bytes;
  b.cost.dtype = compute_dtype(b.input(x_index)->type);
  return b.done(flops);
}

double rows_of(const OpInput& x, int64_t normalized_dims) {
  double rows = 1;
  for (size_t i = 0; i + normalized_dims < x.dims.size(); ++i) rows *= x.dims[i];
  return rows;
}

int64_t normalized_rank(const OpInput* shape_arg, const OpInput* weight) {
  if (shape_arg && !shape_arg->concrete.empty()) {
    const auto& c = shape_arg->concrete;
    if (c.front() == '[') return std::count(c.begin(), c.end(), ',') + 1;
  }
  if (weight && weight->is_tensor) return static_cast<int64_t>(weight->dims.size());
  return 1;
}

// ---- elementwise ------------------------------------------------------------------
// The index of an out= tensor: the last tensor input of an op named NAME.out, or of an
// arithmetic op given more tensors than its functional form takes (mul(self, other,
// out)). It is written once, never read. kNoOutTensor when there is none (an index, not
// an optional: GCC 12 warns falsely of an uninitialized optional<size_t> here).
constexpr size_t kNoOutTensor = std::numeric_limits<size_t>::max();
size_t out_tensor(const Builder& b, size_t max_tensor_inputs) {
  size_t tensors = 0, last = kNoOutTensor;
  for (size_t i = 0; i < b.in.inputs.size(); ++i)
    if (b.in.inputs[i].is_tensor) ++tensors, last = i;
  if (tensors < 2) return kNoOutTensor;
  if (b.out_overload || tensors > max_tensor_inputs) return last;
  return kNoOutTensor;
}

OpCost elementwise_cost(Builder& b, double flops_per_element, std::string_view kind,
                        size_t max_tensor_inputs = std::numeric_limits<size_t>::max()) {
  b.cost.op_class = OpClass::elementwise;
  b.cost.unit = Unit::vector;
  if (!b.in.dims_parsed) return b.none("Input Dims unreadable");
  const size_t out_index = kind == "arith" ? out_tensor(b, max_tensor_inputs) : kNoOutTensor;
  OpInputs operands = b.in;  // the inputs without the out= tensor
  if (out_index != kNoOutTensor) operands.inputs[out_index].is_tensor = false;
  const auto shape = broadcast(operands);
  if (!shape) return b.none("inputs do not broadcast");
  const std::string type = promoted_type(operands);
  if (type.empty()) return b.none("no tensor input");
  const double out = elements(*shape);
  if (kind == "fill") {  // writes self, reads nothing
    b.write(out, type);
  } else if (kind == "copy") {  // copy_(self, src): reads src, writes self at self's dtype
    if (!b.tensor(0) || !b.tensor(1)) return b.none("copy_ without self and src");
    b.read(1);
    b.write(elements(b.input(0)->dims), b.input(0)->type);
  } else if (kind == "dropout") {  // output and a bool mask
    b.read_all();
    b.write(out, type);
    b.write(out, "bool");
  } else if (kind == "to") {  // _to_copy(self, dtype, ...): the new dtype from Concrete Inputs
    const OpInput* d = b.input(1);
    std::string out_type = d ? scalar_type_name(d->concrete) : "";
    if (out_type.empty()) return b.none("target dtype not in Concrete Inputs");
    b.read(0);
    b.write(out, out_type);
  } else if (out_index != kNoOutTensor) {  // out=: the operands read, the out tensor written once at its own dtype
    for (size_t i = 0; i < b.in.inputs.size(); ++i)
      if (i != out_index) b.read(i);
    b.write(out, b.input(out_index)->type);
    b.cost.assumption = "out= tensor: counted once, as the output";
  } else {
    b.read_all();
    b.write(out, type);
  }
  b.cost.dtype = compute_dtype(type);
  return b.done(flops_per_element * out);
}

// ---- reductions, softmax, losses, embedding -----------------------------------------
OpCost softmax_cost(Builder& b, double per_element, bool backward) {
  b.cost.op_class = OpClass::reduction;
  b.cost.unit = Unit::vector;
  if (!b.tensor(0)) return b.none("input missing from Input Dims");
  const double n = elements(b.input(0)->dims);
  b.read_all();
  std::string out_type = b.input(0)->type;
  if (!backward) {
    std::optional<bool> half_to_float;
    if (concrete_true(b.input(2), half_to_float) && *half_to_float) out_type = "float";
  }
  b.write(n, out_type);
  b.cost.dtype = compute_dtype(b.input(0)->type);
  return b.done(per_element * n);
}

OpCost reduce_cost(Builder& b, bool with_indices) {
  b.cost.op_class = OpClass::reduction;
  b.cost.unit = Unit::vector;
  if (!b.tensor(0)) return b.none("input missing from Input Dims");
  const auto& x = b.input(0)->dims;
  const double n = elements(x);
  double out = 1;
  const OpInput* dim = b.input(1);
  if (dim && !dim->concrete.empty()) {
    std::vector<int64_t> reduced;
    std::string c = dim->concrete;
    if (!c.empty() && c.front() == '[') c = c.substr(1, c.size() - 2);
    size_t start = 0;
    while (start <= c.size()) {
      const size_t end = std::min(c.find(',', start), c.size());
      auto v = to_int(std::string_view(c).substr(start, end - start));
      if (!v) return b.none("reduced dims in Concrete Inputs unreadable");
      reduced.push_back(*v < 0 ? *v + static_cast<int64_t>(x.size()) : *v);
      start = end + 1;
    }
    for (size_t i = 0; i < x.size(); ++i)
      if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(i)) == reduced.end()) out *= x[i];
  } else if (b.in.inputs.size() > 1 && b.input(1)->type != "" && !b.input(1)->is_tensor) {
    return b.none("reduced dims not in Concrete Inputs");
  }
  b.read(0);
  b.write(out, b.input(0)->type);
  if (with_indices && out > 1) b.write(out, "long int");
  b.cost.dtype = compute_dtype(b.input(0)->type);
  return b.done(n);
}

OpCost gather_cost(Builder& b, size_t table_index, size_t index_index) {
  b.cost.op_class = OpClass::reduction;
  b.cost.unit = Unit::vector;
  if (!b.tensor(table_index) || !b.tensor(index_index)) return b.none("table or indices missing from Input Dims");
  const auto& w = b.input(table_index)->dims;
  if (w.size() != 2) return b.none("table is not 2-d");
  const double rows = elements(b.input(index_index)->dims);
  b.read(index_index);
  b.write(rows * w[1], b.input(table_index)->type);  // rows read from the table
  b.write(rows * w[1], b.input(table_index)->type);  // and written out
  b.cost.dtype = compute_dtype(b.input(table_index)->type);
  return b.done(0.0);
}

OpCost nll_cost(Builder& b, bool backward) {
  b.cost.op_class = OpClass::reduction;
  b.cost.unit = Unit::vector;
  // forward (self [N, C], target [N], weight, reduction, ignore_index)
  // backward (grad_output, self, target, weight, reduction, ignore_index, total_weight)
  const size_t self = backward ? 1 : 0, target = backward ? 2 : 1;
  if (!b.tensor(self) || !b.tensor(target)) return b.none("input or target missing from Input Dims");
  const double rows = elements(b.input(target)->dims);
  const std::string& type = b.input(self)->type;
  b.read(target);
  if (backward) {
    b.read(0);
    b.write(elements(b.input(self)->dims), type);  // grad_input, zero-filled and scattered
  } else {
    b.write(rows, type);  // one logit read per row (a gather)
    b.write(1, type);     // the reduced loss (total_weight too: two scalars)
    b.write(1, type);
  }
  b.cost.dtype = compute_dtype(type);
  return b.done(rows);
}

// ---- communication ----------------------------------------------------------------
OpCost collective_cost(Builder& b, std::string_view op_name, const std::vector<std::string_view>& kernels,
                       std::optional<int64_t> world) {
  b.cost.op_class = OpClass::communication;
  b.cost.unit = Unit::network;
  std::string text(op_name);
// GCC 12 warns, falsely, that "x" + std::string copies overlap (GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
  for (auto k : kernels) text += " " + std::string(k);
#pragma GCC diagnostic pop
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto has = [&](std::string_view s) { return lower.find(s) != std::string::npos; };
  if (has("allreduce") || has("all_reduce") || has("multimem_all_reduce")) b.cost.collective = "all_reduce";
  else if (has("allgather") || has("all_gather")) b.cost.collective = "all_gather";
  else if (has("reducescatter") || has("reduce_scatter")) b.cost.collective = "reduce_scatter";
  else if (has("alltoall") || has("all_to_all")) b.cost.collective = "all_to_all";
  else if (has("broadcast")) b.cost.collective = "broadcast";
  else if (has("sendrecv") || has("send") || has("recv")) b.cost.collective = "send_recv";
  else b.cost.collective = "unknown";
  // S as nccl-tests defines it: all-gather's output, reduce-scatter's input, all-reduce's
  // tensor. From the args' message sizes and dtype when the trace has them, else the
  // largest tensor of the call.
  const CollectiveArgs& args = b.in.collective;
  double largest = -1;
  bool type_ok = true;
  std::optional<int> arg_size;
  if (!args.dtype.empty()) {
    arg_size = dtype_bytes(args.dtype);
    if (!arg_size) arg_size = dtype_bytes("c10::" + args.dtype);
    if (!arg_size) arg_size = dtype_bytes(collective_dtype_name(args.dtype));
  }
  if (!arg_size)
    for (const auto& in : b.in.inputs)
      if (in.is_tensor && (arg_size = dtype_bytes(in.type))) break;
  std::optional<int64_t> nelems;
  if (b.cost.collective == "all_gather") nelems = args.out_nelems;
  else if (b.cost.collective == "reduce_scatter" || b.cost.collective == "all_reduce") nelems = args.in_nelems;
  else if (args.in_nelems || args.out_nelems) nelems = std::max(args.in_nelems.value_or(0), args.out_nelems.value_or(0));
  if (nelems && arg_size) {
    largest = static_cast<double>(*nelems) * *arg_size;
    b.cost.assumption = "S from the args' message size and dtype";
  } else {
    for (const auto& in : b.in.inputs) {
      if (!in.is_tensor) continue;
      const auto bytes = tensor_bytes(in);
      if (!bytes) {
        type_ok = false;
        continue;
      }
      largest = std::max(largest, *bytes);
    }
  }
  if (largest < 0) return b.none(type_ok ? "message size unknown: no tensor in Input Dims" : "message dtype unknown");
  b.cost.message_bytes = largest;
  if (args.group_size) world = args.group_size;  // the group, not the world
  if (world && *world > 0) {
    const double n = static_cast<double>(*world);
    if (b.cost.collective == "all_reduce") b.cost.bus_factor = 2 * (n - 1) / n;
    else if (b.cost.collective == "all_gather" || b.cost.collective == "reduce_scatter" || b.cost.collective == "all_to_all")
      b.cost.bus_factor = (n - 1) / n;
    else if (b.cost.collective == "broadcast" || b.cost.collective == "send_recv") b.cost.bus_factor = 1;
  }
  b.bytes = largest;
  b.cost.dtype = "";
  b.cost.assumption += std::string(b.cost.assumption.empty() ? "" : "; ") +
                       "a collective moves S bytes; the additions of a reduction are not counted as FLOPs";
  return b.done(0.0);
}

// ---- custom ops of serving and training stacks -----------------------------------
// By name, in any namespace but aten's (_C::, aiter::, vllm::, sglang::, ...): signatures
// differ between stacks and versions, so a cost is given only where the shapes alone
// decide it, and the model says what it counts.
std::optional<OpCost> custom_op_cost(Builder& b, std::string_view op) {
  std::string n;
  for (char c : op.substr(op.rfind("::") + 2)) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto has = [&](std::string_view part) { return n.find(part) != std::string::npos; };
  // Sets the class and model of vector work and finds x, the largest tensor input (a
  // norm's or activation's input; an output buffer passed in has its size and is not
  // counted again), and its element size; the returned cost when either is unknown.
  const OpInput* x = nullptr;
  int size = 0;
  auto vector_input = [&](OpClass c, const char* model) -> std::optional<OpCost> {
    b.cost.op_class = c;
    b.cost.unit = Unit::vector;
    b.cost.model = model;
    for (const auto& in : b.in.inputs)
      if (in.is_tensor && (!x || elements(in.dims) > elements(x->dims))) x = &in;
    if (!x) return b.none("input missing from Input Dims");
    const auto bytes = dtype_bytes(x->type);
    if (!bytes) return b.none(fmt::format("input has the unknown dtype \"{}\"", x->type));
    size = *bytes;
    b.cost.dtype = compute_dtype(x->type);
    return std::nullopt;
  };
  if (has("rms_norm") || has("rmsnorm") || has("layer_norm") || has("layernorm")) {
    if (auto unknown = vector_input(OpClass::normalization, "custom norm")) return unknown;
    const double elems = elements(x->dims);
    const bool rms = has("rms");
    const bool fused_add = has("add");
    // Reads the input and the weight (a 1-d tensor of the input's last dim), writes the
    // output; fused_add also reads and writes the residual (the input's size).
    double weight = 0;
    for (const auto& in : b.in.inputs)
      if (in.is_tensor && in.dims.size() == 1 && !x->dims.empty() && in.dims[0] == x->dims.back()) {
        weight = elements(in.dims) * dtype_bytes(in.type).value_or(size);
        break;
      }
    b.bytes = 2 * elems * size + weight + (fused_add ? 2 * elems * size : 0);
    b.cost.assumption = fused_add ? "reads input, residual and weight; writes output and residual"
                                  : "reads input and weight; writes output";
    // FLOPs: the one formula of kernels/run_names/op_formulas.h (a weight, no bias: the
    // serving stacks' kernels take none), + 1 per element for the fused residual add.
    const double d = x->dims.empty() ? 1 : static_cast<double>(x->dims.back());
    const double rows = d > 0 ? elems / d : 0;
    const formulas::Flops f = rms ? formulas::rmsnorm_flops(rows, d, weight > 0)
                                  : formulas::layernorm_flops(rows, d, weight > 0, false);
    return b.done(f.total() + (fused_add ? elems : 0));
  }
  if (has("silu_and_mul") || has("gelu_and_mul") || has("gelu_tanh_and_mul") || has("act_and_mul")) {
    if (auto unknown = vector_input(OpClass::elementwise, "custom act_and_mul")) return unknown;
    const double half = elements(x->dims) / 2;  // act(x[..., :d]) * x[..., d:]
    b.bytes = 3 * half * size;
    b.cost.assumption = "reads the [.., 2d] input, writes the [.., d] output; 2 FLOPs per output element";
    return b.done(2 * half);
  }
  auto classed = [&](OpClass c, Unit unit, const char* model, const char* why) {
    b.cost.op_class = c;
    b.cost.unit = unit;
    b.cost.model = model;
    return b.none(why);
  };
  if (has("attention") || has("attn") || has("fmha") || has("flash") || has("mla"))
    return classed(OpClass::attention, Unit::tensor, "custom attention", "custom attention op: paged or varlen layouts not modelled");
  if (has("gemm") || has("matmul") || has("scaled_mm") || has("moe") || n.ends_with("_mm") || n == "mm")
    return classed(OpClass::matmul, Unit::tensor, "custom matmul", "custom GEMM op: operand layouts vary between stacks");
  if (has("rotary") || has("rope"))
    return classed(OpClass::elementwise, Unit::vector, "custom rotary", "custom rotary op: not modelled");
  return std::nullopt;
}

struct Entry {
  std::string_view name;
  Model model;
};

const std::vector<Entry>& table() {
  static const std::vector<Entry> kTable = [] {
    std::vector<Entry> t;
    auto add = [&](std::string_view name, Model m) { t.push_back({name, std::move(m)}); };
    // matmul family
    add("mm", [](Builder& b) { return matmul_cost(b, 0, 1, std::nullopt, false); });
    add("addmm", [](Builder& b) { return matmul_cost(b, 1, 2, 0, false); });
    add("bmm", [](Builder& b) { return matmul_cost(b, 0, 1, std::nullopt, false); });
    add("baddbmm", [](Builder& b) { return matmul_cost(b, 1, 2, 0, false); });
    add("matmul", [](Builder& b) { return matmul_cost(b, 0, 1, std::nullopt, true); });
    add("_scaled_mm", [](Builder& b) {
      OpCost c = matmul_cost(b, 0, 1, 4, false);
      return c;
    });
    add("linear", [](Builder& b) {
      // linear(input [..., K], weight [N, K], bias [N]): the weight is transposed.
      b.cost.op_class = OpClass::matmul;
      b.cost.unit = Unit::tensor;
      if (!b.tensor(0) || !b.tensor(1) || b.input(1)->dims.size() != 2 || b.input(0)->dims.empty())
        return b.none("linear inputs missing or not [.., K] x [N, K]");
      const auto& x = b.input(0)->dims;
      const int64_t N = b.input(1)->dims[0], K = b.input(1)->dims[1];
      if (x.back() != K) return b.none("inner dimensions differ");
      const double rows = elements(x) / K;
      double flops = 2.0 * rows * N * K;
      b.read(0);
      b.read(1);
      if (b.tensor(2)) b.read(2), flops += rows * N;
      b.cost.dtype = compute_dtype(b.input(0)->type);
      if (b.cost.dtype == "fp32") b.cost.assumption = "fp32 matmul judged at the TF32 tensor peak (the trace cannot tell)";
      b.write(rows * N, b.input(0)->type);
      return b.done(flops);
    });
    // attention: forward (query index, layout, causal index, mask-type?) and backward
    add("_scaled_dot_product_flash_attention",
        [](Builder& b) { return attention_cost(b, 0, true, 4, false, false, {0}, 4); });
    add("_scaled_dot_product_efficient_attention",
        [](Builder& b) { return attention_cost(b, 0, true, 6, false, false, {0}, 4); });
    add("_scaled_dot_product_cudnn_attention",
        [](Builder& b) { return attention_cost(b, 0, true, 6, false, false, {0}, 4); });
    add("_scaled_dot_product_flash_attention_for_cpu",
        [](Builder& b) { return attention_cost(b, 0, true, 4, false, false, {0}, 4); });
    add("_flash_attention_forward", [](Builder& b) { return attention_cost(b, 0, false, 8, false, false, {0}, 4); });
    add("_efficient_attention_forward", [](Builder& b) { return attention_cost(b, 0, false, 9, true, false, {0}, 4); });
    add("_scaled_dot_product_flash_attention_backward",
        [](Builder& b) { return attention_cost(b, 1, true, 11, false, true, {1, 2, 3}, 0); });
    add("_scaled_dot_product_efficient_attention_backward",
        [](Builder& b) { return attention_cost(b, 1, true, 11, false, true, {1, 2, 3}, 0); });
    add("_scaled_dot_product_cudnn_attention_backward",
        [](Builder& b) { return attention_cost(b, 1, true, 14, false, true, {1, 2, 3}, 0); });
    add("_flash_attention_backward", [](Builder& b) { return attention_cost(b, 1, false, 11, false, true, {1, 2, 3}, 0); });
    add("_efficient_attention_backward", [](Builder& b) { return attention_cost(b, 1, false, 14, true, true, {1, 2, 3}, 0); });
    // normalization
    auto layer_norm = [](Builder& b) {
      if (!b.tensor(0)) return norm_cost(b, false, false, 0, 2, 0, 0, {});
      const double rows = rows_of(*b.input(0), normalized_rank(b.input(1), b.input(2)));
      const int stats = b.input(0)->type == "double" ? 8 : 4;  // mean and rstd in the accumulate type
      return norm_cost(b, false, false, 0, 2, 2.0 * stats, rows, {0});
    };
    add("native_layer_norm", layer_norm);
    add("layer_norm", [](Builder& b) {
      if (!b.tensor(0)) return norm_cost(b, false, false, 0, 2, 0, 0, {});
      const double rows = rows_of(*b.input(0), normalized_rank(b.input(1), b.input(2)));
      return norm_cost(b, false, false, 0, 2, 0, rows, {0});  // the composite returns the output only
    });
    add("native_layer_norm_backward", [](Builder& b) {
      // (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask): writes dx, dγ, dβ
      return norm_cost(b, true, false, 1, 5, 0, 0, {1, 5, 6});
    });
    add("_fused_rms_norm", [](Builder& b) {
      if (!b.tensor(0)) return norm_cost(b, false, true, 0, 2, 0, 0, {});
      const double rows = rows_of(*b.input(0), normalized_rank(b.input(1), b.input(2)));
      return norm_cost(b, false, true, 0, 2, 4, rows, {0});
    });
    add("rms_norm", [](Builder& b) {
      if (!b.tensor(0)) return norm_cost(b, false, true, 0, 2, 0, 0, {});
      const double rows = rows_of(*b.input(0), normalized_rank(b.input(1), b.input(2)));
      return norm_cost(b, false, true, 0, 2, 0, rows, {0});
    });
    add("_fused_rms_norm_backward", [](Builder& b) { return norm_cost(b, true, true, 1, 4, 0, 0, {1, 4}); });
    add("native_group_norm", [](Builder& b) {
      // (input [N, C, *], weight, bias, N, C, HxW, group, eps): mean and rstd per (N, group)
      double rows = 0;
      if (b.input(6) && !b.input(6)->concrete.empty() && b.tensor(0))
        if (auto g = to_int(b.input(6)->concrete)) rows = static_cast<double>(b.input(0)->dims[0]) * *g;
      return norm_cost(b, false, false, 0, 1, 2.0 * 4, rows, {0});
    });
    add("group_norm", [](Builder& b) { return norm_cost(b, false, false, 0, 2, 0, 0, {0}); });
    add("native_group_norm_backward", [](Builder& b) { return norm_cost(b, true, false, 1, 4, 0, 0, {1, 4, 4}); });
    auto batch_norm = [](Builder& b) {
      // (input, weight, bias, running_mean, running_var, training, momentum, eps)
      std::optional<bool> training;
      concrete_true(b.input(5), training);
      if (!training) {
        b.cost.op_class = OpClass::normalization;
        return b.none("training flag not in Concrete Inputs");
      }
      OpCost c = norm_cost(b, false, false, 0, 1, 0, 0, {0});
      if (!*training && c.flops && b.tensor(0)) c.flops = 4 * elements(b.input(0)->dims);  // normalize + affine only
      return c;
    };
    add("native_batch_norm", batch_norm);
    add("cudnn_batch_norm", batch_norm);
    add("miopen_batch_norm", batch_norm);
    add("_native_batch_norm_legit", batch_norm);
    add("native_batch_norm_backward", [](Builder& b) { return norm_cost(b, true, false, 1, 2, 0, 0, {1, 2, 2}); });
    add("cudnn_batch_norm_backward", [](Builder& b) { return norm_cost(b, true, false, 1, 2, 0, 0, {1, 2, 2}); });
    // elementwise: one FLOP per output element for arithmetic and activations
    // (transcendentals count as one), none for copies, fills and conversions. The
    // number of tensors each takes tells an out= tensor apart (out_tensor above).
    for (std::string_view op : {"gelu", "silu", "relu", "tanh", "sigmoid", "exp", "neg", "rsqrt", "sqrt", "abs", "log", "sin",
                                "cos", "reciprocal", "hardtanh", "leaky_relu", "erf", "gelu_", "silu_", "relu_", "neg_",
                                "exp_", "sqrt_", "rsqrt_", "tanh_", "sigmoid_", "log2", "log10", "log1p", "exp2", "floor",
                                "ceil", "round", "sign", "hardtanh_", "leaky_relu_", "hardswish", "hardsigmoid", "mish", "elu"})
      add(op, [](Builder& b) { return elementwise_cost(b, 1, "arith", 1); });
    for (std::string_view op : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "threshold_backward", "gelu_backward",
                                "silu_backward", "tanh_backward", "sigmoid_backward", "rsub", "clamp_min", "clamp_max",
                                "mul_", "add_", "sub_", "div_", "pow_", "clamp_min_", "clamp_max_", "eq", "ne", "lt",
                                "le", "gt", "ge", "bitwise_and", "bitwise_or", "logical_and", "logical_or", "remainder",
                                "fmod", "floor_divide"})
      add(op, [](Builder& b) { return elementwise_cost(b, 1, "arith", 2); });
    for (std::string_view op : {"where", "clamp", "masked_fill", "addcmul", "addcdiv", "lerp", "clamp_", "masked_fill_",
                                "addcmul_", "addcdiv_", "lerp_"})
      add(op, [](Builder& b) { return elementwise_cost(b, 1, "arith", 3); });
    add("native_dropout", [](Builder& b) { return elementwise_cost(b, 1, "dropout"); });
    add("dropout", [](Builder& b) { return elementwise_cost(b, 1, "dropout"); });
    add("fill_", [](Builder& b) { return elementwise_cost(b, 0, "fill"); });
    add("zero_", [](Builder& b) { return elementwise_cost(b, 0, "fill"); });
    add("copy_", [](Builder& b) { return elementwise_cost(b, 0, "copy"); });
    add("_to_copy", [](Builder& b) { return elementwise_cost(b, 0, "to"); });
    add("to", [](Builder& b) { return elementwise_cost(b, 0, "to"); });
    add("clone", [](Builder& b) { return elementwise_cost(b, 0, "arith"); });
    add("contiguous", [](Builder& b) { return elementwise_cost(b, 0, "arith"); });
    // reductions and softmax: softmax max 1, exp(x-max) 2, sum 1, divide 1 per element
    add("_softmax", [](Builder& b) { return softmax_cost(b, 5, false); });
    add("softmax", [](Builder& b) { return softmax_cost(b, 5, false); });
    add("_log_softmax", [](Builder& b) { return softmax_cost(b, 5, false); });
    add("log_softmax", [](Builder& b) { return softmax_cost(b, 5, false); });
    add("_softmax_backward_data", [](Builder& b) { return softmax_cost(b, 4, true); });
    add("_log_softmax_backward_data", [](Builder& b) { return softmax_cost(b, 4, true); });
    add("sum", [](Builder& b) { return reduce_cost(b, false); });
    add("mean", [](Builder& b) { return reduce_cost(b, false); });
    add("max", [](Builder& b) {
      if (b.tensor(1)) return elementwise_cost(b, 1, "arith");  // max(a, b): elementwise maximum
      return reduce_cost(b, b.input(1) != nullptr);
    });
    add("nll_loss_forward", [](Builder& b) { return nll_cost(b, false); });
    add("nll_loss", [](Builder& b) { return nll_cost(b, false); });
    add("nll_loss_nd", [](Builder& b) { return nll_cost(b, false); });
    add("nll_loss_backward", [](Builder& b) { return nll_cost(b, true); });
    add("embedding", [](Builder& b) { return gather_cost(b, 0, 1); });
    add("index_select", [](Builder& b) { return gather_cost(b, 0, 2); });
    // Class only: ops whose class their name settles but whose cost the trace's args do
    // not (docs/trace.md, "Classes"). Each is counted in its class with its time, and
    // its cost stays unknown with the reason.
    auto class_only = [&](std::initializer_list<std::string_view> ops, OpClass op_class, std::string_view why) {
      for (std::string_view op : ops)
        add(op, [op_class, why](Builder& b) {
          b.cost.op_class = op_class;
          b.cost.unit = op_class == OpClass::matmul ? Unit::tensor : Unit::vector;
          return b.none(std::string(why));
        });
    };
    // Convolutions are tensor contractions (Ivanov et al.'s first class, with the matmuls).
    class_only({"conv1d", "conv2d", "conv3d", "convolution", "_convolution", "cudnn_convolution", "cudnn_convolution_transpose",
                "miopen_convolution", "miopen_depthwise_convolution", "mkldnn_convolution", "_convolution_mode",
                "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "convolution_backward", "_slow_conv2d_forward",
                "_slow_conv2d_backward", "_conv_depthwise2d", "thnn_conv2d", "cudnn_convolution_relu",
                "cudnn_convolution_add_relu"},
               OpClass::matmul, "a convolution: its output size needs stride and padding, which Input Dims do not give");
    // Pooling reduces each window to one value.
    class_only({"max_pool1d", "max_pool2d", "max_pool3d", "max_pool2d_with_indices", "max_pool3d_with_indices",
                "max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward", "avg_pool1d", "avg_pool2d",
                "avg_pool3d", "avg_pool2d_backward", "avg_pool3d_backward", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
                "adaptive_avg_pool3d", "_adaptive_avg_pool2d", "_adaptive_avg_pool3d", "_adaptive_avg_pool2d_backward",
                "adaptive_max_pool2d", "adaptive_max_pool2d_backward", "mkldnn_max_pool2d"},
               OpClass::reduction, "pooling: its window, stride and padding are not in Input Dims");
    // Vector norms and scans reduce along a dimension (a norm of a vector, not a normalization layer).
    class_only({"linalg_vector_norm", "norm", "frobenius_norm", "cumsum", "cumprod", "logsumexp", "argmax", "argmin", "min",
                "amax", "amin", "prod", "any", "all"},
               OpClass::reduction, "a reduction whose dimension and keepdim are not in Input Dims");
    // Random fills, concatenation and copies move data: element-wise work.
    class_only({"uniform_", "normal_", "bernoulli_", "random_", "exponential_", "randn", "rand", "randint", "randperm"},
               OpClass::elementwise, "a random fill: its output is the tensor it fills");
    class_only({"cat", "stack", "_cat", "_copy_from", "_copy_from_and_resize", "index", "index_put_", "_index_put_impl_",
                "gather", "scatter", "scatter_", "scatter_add_", "index_add_", "repeat_interleave", "flip", "roll", "tril",
                "triu", "constant_pad_nd", "im2col", "col2im", "upsample_nearest2d", "upsample_bilinear2d"},
               OpClass::elementwise, "a data movement whose tensor-list or index sizes Input Dims do not give in full");
    return t;
  }();
  return kTable;
}

}  // namespace

OpCost cost_of(std::string_view name, const OpInputs& inputs, const std::vector<std::string_view>& kernel_names,
               std::optional<int64_t> world_size) {
  Builder b{OpCost{}, inputs};
  std::string op = strip(name);
  if (op.find(':') == std::string::npos)  // an aten overload: "mul.out", "add.Tensor"
    if (const size_t dot = op.find('.'); dot != std::string::npos) {
      b.out_overload = std::string_view(op).substr(dot + 1).starts_with("out");
      op.resize(dot);
    }
  std::string lower_op;
  for (char c : op) lower_op += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool custom = op.find("::") != std::string::npos && !op.starts_with("autograd::") && !op.starts_with("profiler::");
  const bool collective_name =
      op.starts_with("nccl:") || op.starts_with("c10d::") || op.starts_with("gloo:") || op.starts_with("symm_mem::") ||
      op == "record_param_comms" ||
      (custom && (lower_op.find("all_reduce") != std::string::npos || lower_op.find("allreduce") != std::string::npos ||
                  lower_op.find("all_gather") != std::string::npos || lower_op.find("reduce_scatter") != std::string::npos ||
                  lower_op.find("multimem") != std::string::npos));
  const bool collective_kernels = std::any_of(kernel_names.begin(), kernel_names.end(), is_collective_kernel);
  if (collective_kernels || collective_name) {
    b.cost.model = "communication";
    return collective_cost(b, op, kernel_names, world_size);
  }
  if (custom) {
    if (auto c = custom_op_cost(b, op)) {
      if (!inputs.dims_parsed || inputs.inputs.empty()) {
        c->flops.reset();
        c->bytes.reset();
        c->why_unknown = inputs.dims_parsed ? "no Input Dims in the trace (record_shapes off?)" : "Input Dims unreadable";
      }
      return *c;
    }
  }
  for (const auto& entry : table()) {
    if (entry.name != op) continue;
    if (!inputs.dims_parsed) {
      OpCost c = entry.model(b);  // for the class
      c.flops.reset();
      c.bytes.reset();
      c.why_unknown = "Input Dims unreadable";
      c.model = std::string(entry.name);
      return c;
    }
    if (inputs.inputs.empty()) {
      Builder e{OpCost{}, inputs};
      OpCost c = entry.model(e);
      c.flops.reset();
      c.bytes.reset();
      c.why_unknown = "no Input Dims in the trace (record_shapes off?)";
      c.model = std::string(entry.name);
      return c;
    }
    OpCost c = entry.model(b);
    c.model = std::string(entry.name);
    return c;
  }
  b.cost.why_unknown = "no cost model for this op";
  return b.cost;
}

}  // namespace lmroof::trace
