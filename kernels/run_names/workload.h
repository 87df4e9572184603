#pragma once
// What one benchmark run executes: an operator (pair + variant + impl) on one
// backend at one shape, with its inputs allocated once and reused across runs.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "kernels/run_names/cost.h"
#include "kernels/run_names/shape.h"

namespace lmroof {

enum class Backend { cpu, cuda };
enum class DType { fp32, bf16 };

const char* to_string(Backend b);
const char* to_string(DType d);
Backend parse_backend(std::string_view s);  // throws std::invalid_argument
DType parse_dtype(std::string_view s);      // throws std::invalid_argument
int dtype_bytes(DType d);

struct RunSpec {
  std::string pair;
  std::string variant;
  std::string impl;
  Backend backend = Backend::cpu;
  DType dtype = DType::fp32;
  Shape shape;

  // "norm/rmsnorm/fused/cpu/fp32/tokens:8192/d_model:4096", the Google Benchmark name.
  std::string bench_name() const;
  // Inverse of bench_name(). Tokens Google Benchmark appends ("real_time",
  // "manual_time", "min_time:0.050", "repeats:5") are skipped. Throws on malformed names.
  static RunSpec parse_bench_name(std::string_view name);
};

struct Validation {
  double rel_error = 0;  // ||out - ref|| / ||ref|| over all outputs, against float64
  double tolerance = 0;
  bool passed() const { return rel_error <= tolerance; }  // NaN fails
};

class Workload {
 public:
  virtual ~Workload() = default;
  // One execution on the prepared inputs. CPU: returns when the output is written.
  // CUDA: enqueues on the workload's stream; callers time it with events.
  virtual void run() = 0;
  // Draws fresh random inputs from `seed`, runs once and compares every output with
  // the float64 reference. Outputs are poisoned first, so an unwritten element fails.
  virtual Validation validate(uint64_t seed) = 0;
  // Composite operators: seconds per operator class spent in the last run().
  virtual std::map<std::string, double> last_class_seconds() const { return {}; }
};

// Norm-wise relative error tolerated per dtype (and for composites, which
// accumulate more rounding).
inline double tolerance_for(DType d, bool composite = false) {
  if (d == DType::bf16) return 1e-2;
  return composite ? 1e-4 : 1e-5;
}

}  // namespace lmroof
