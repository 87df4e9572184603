#pragma once
// The element type a prediction stores weights and the KV cache in, and computes in.
#include <cstdint>
#include <string>
#include <string_view>

namespace lmroof::predict {

enum class Dtype { bf16, fp16, fp8, fp32 };

inline int64_t bytes_per_element(Dtype d) { return d == Dtype::fp8 ? 1 : d == Dtype::fp32 ? 4 : 2; }

inline std::string_view to_string(Dtype d) {
  switch (d) {
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
    case Dtype::fp32: return "fp32";
  }
  return "?";
}

// Throws model::InputError "--dtype: ..." for anything but bf16, fp16, fp8 and fp32.
Dtype parse_dtype(std::string_view text);

}  // namespace lmroof::predict
