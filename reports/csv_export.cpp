// The report's tables as CSV; see reports/csv_export.h.
#include "reports/csv_export.h"

#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "reports/text/format.h"

namespace lmroof::report {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.17g}", v) : std::string(); }
std::string number(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

std::string line(const std::vector<std::string>& fields) {
  std::string out;
// GCC 12 warns, falsely, that "x" + std::string copies overlap (GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
#pragma GCC diagnostic pop
  return out + "\r\n";
}

}  // namespace

std::string runs_csv(const model::Results& results) {
  std::string out = line({"id", "pair", "variant", "impl", "backend", "dtype", "shape", "time_median_s", "time_min_s",
                          "time_max_s", "repetitions", "flops", "bytes_minimum", "bytes_model", "bytes_measured",
                          "intensity", "intensity_basis", "flop_per_s", "byte_per_s", "bound", "efficiency",
                          "efficiency_roof", "efficiency_level", "roofline_efficiency", "sol_fraction", "sol_roof",
                          "sol_probe_fraction", "probe_read_byte_per_s", "probe_copy_nt_byte_per_s"});
  // efficiency: the fraction of the roof the run is judged against, named beside it
  // (issue #34: one fraction per run, the runs table's SoL%); roofline_efficiency is
  // the fraction of the roofline's single drawn roof (results.json: roofline.efficiency).
  // sol_fraction and sol_roof repeat efficiency and efficiency_roof for older readers.
  for (const auto& r : results.runs)
    out += line({r.id, r.pair, r.variant, r.impl, r.backend, r.dtype, shape_label(results.catalogue, r.shape),
                 number(r.time_s.median), number(r.time_s.min), number(r.time_s.max),
                 std::to_string(r.time_s.samples.size()), number(r.flops.total), number(r.bytes.minimum),
                 number(r.bytes.model), number(r.bytes.measured), number(r.intensity.value),
                 std::string(model::to_string(r.intensity.bytes)), number(r.achieved.flop_per_s),
                 number(r.achieved.byte_per_s), r.bound ? std::string(model::to_string(*r.bound)) : std::string(),
                 number(model::sol_fraction(r.judged_against)),
                 r.judged_against && r.judged_against->roof ? *r.judged_against->roof : std::string(),
                 r.judged_against && r.judged_against->level ? *r.judged_against->level : std::string(),
                 number(r.roofline.efficiency), number(model::sol_fraction(r.judged_against)),
                 r.judged_against && r.judged_against->roof ? *r.judged_against->roof : std::string(),
                 number(model::sol_fraction(r.judged_against_probe)), r.dram_probe ? number(r.dram_probe->read) : std::string(),
                 r.dram_probe ? number(r.dram_probe->copy_nt) : std::string()});
  return out;
}

std::string comparisons_csv(const model::Results& results) {
  std::string out = line({"pair", "shape", "backend", "dtype", "baseline_variant", "baseline_impl", "baseline_run",
                          "candidate_variant", "candidate_impl", "candidate_run", "speedup", "speedup_low",
                          "speedup_high", "noise", "p_value", "hodges_lehmann", "repetitions", "bytes_ratio",
                          "bytes_basis", "flops_ratio", "machine_drift"});
  for (const auto& c : results.comparisons)
    out += line({c.pair, shape_label(results.catalogue, c.shape), c.backend, c.dtype, c.baseline.variant,
                 c.baseline.impl, c.baseline.run, c.candidate.variant, c.candidate.impl, c.candidate.run,
                 number(c.speedup), number(c.speedup_low), number(c.speedup_high), number(c.noise), number(c.p_value),
                 number(c.hodges_lehmann), std::to_string(c.repetitions), number(c.bytes_ratio),
                 std::string(model::to_string(c.bytes_basis)), number(c.flops_ratio), number(c.machine_drift)});
  return out;
}

}  // namespace lmroof::report
