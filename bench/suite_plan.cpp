// bench::plan_suite: which runs a suite makes, from the suites' own shapes or from
// shapes of the user's choosing (a model, sizes, --shape), and the memory check that
// refuses what cannot fit before anything runs. docs/models.md describes the rules.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string_view>

#include "bench/suite.h"
#include "bench/memory_budget.h"
#include "profiler/device_query.h"
#include "registry.h"

namespace lmroof::bench {

namespace {

void add_note(std::vector<std::string>& notes, std::string note) {
  for (const auto& n : notes)
    if (n == note) return;
  notes.push_back(std::move(note));
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

std::string sizes_label(const std::vector<int64_t>& sizes) {
  std::vector<std::string> labels;
  for (int64_t s : sizes) labels.push_back(size_label(s));
  return join(labels);
}

// --tokens, --batch and --context applied to a pair's own suite shapes (no model, or a
// pair without a model derivation): each replaces that dimension where the shape has it.
std::vector<Shape> resized(const std::vector<Shape>& shapes, const ShapeRequest& req) {
  std::vector<Shape> out;
  for (Shape s : shapes) {
    if (req.tokens && s.has("tokens")) s.set("tokens", *req.tokens);
    if (req.batch && s.has("batch")) s.set("batch", *req.batch);
    if (req.contexts.empty() || !s.has("context")) {
      out.push_back(s);
      continue;
    }
    for (int64_t c : req.contexts) {
      s.set("context", c);
      out.push_back(s);
    }
  }
  return out;
}

void push_unique(std::vector<Shape>& shapes, const Shape& s) {
  for (const auto& t : shapes)
    if (t == s) return;
  shapes.push_back(s);
}

// One --shape for one variant: the base shape with the override's dimensions set,
// or (with_variant_dims false) all but the variant dimensions: a variant that fixes
// decode's kv_heads itself (mha, mqa) keeps its own when `decode:kv_heads=4` sets gqa's.
Shape apply_override(const PairDef& pair, const std::string& variant, const Shape& base, const ShapeOverride& o,
                     bool with_variant_dims) {
  Shape s = base;
  for (const auto& [key, value] : o.dims) {
    const bool variant_dim = std::find(pair.variant_dims.begin(), pair.variant_dims.end(), key) != pair.variant_dims.end();
    if (variant_dim && !with_variant_dims) continue;
    s.set(key, value);
  }
  return pair.complete_shape(variant, s);
}

// "batch=4 ... context=8192: " before a shape's error, unless the error names it already
// (require_elements does), so that the one-line message says it once.
std::string shape_prefix(const Shape& s, const std::exception& e) {
  const std::string label = s.label();
  return std::string_view(e.what()).find(label) != std::string_view::npos ? "" : label + ": ";
}

// One variant's shapes before any --shape: the model's (when the pair derives them) or
// the suite's own, resized by --tokens/--batch/--context; completed and deduplicated.
std::vector<Shape> variant_shapes(const PairDef& pair, const VariantImpl& combo, const ShapeRequest& req,
                                  const ModelSizes& sizes, const std::vector<Shape>& all_suite_shapes,
                                  std::vector<std::string>& notes) {
  const std::string& variant = combo.variant;
  // The suite shapes this combination runs (attention's prefill and decode take
  // different ones), chosen before --tokens/--batch/--context resize them: with
  // --model, a pair without a model derivation runs its usual runs, not every
  // combination at every shape (attention's prefill at batch 16, context 2048 took
  // 10.6 s an iteration).
  std::vector<Shape> suite_shapes;
  for (const auto& s : all_suite_shapes)
    if (!pair.runs_shape || pair.runs_shape(combo, s)) suite_shapes.push_back(s);
  std::vector<Shape> shapes;
  if (req.model && pair.shapes_for_model) {
    const ModelShapes derived =
        pair.shapes_for_model(variant, ModelShapeInputs{*req.model, sizes.tokens, sizes.batch, sizes.contexts});
    for (const auto& n : derived.notes) add_note(notes, n);
    for (const auto& s : derived.shapes) {
      try {
        push_unique(shapes, pair.complete_shape(variant, s));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(
            fmt::format("--model {}: {}/{}: {}{}", req.model->name, pair.name, variant, shape_prefix(s, e), e.what()));
      }
    }
    return shapes;
  }
  for (const auto& s : resized(suite_shapes, req)) {
    try {
      push_unique(shapes, pair.complete_shape(variant, s));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}/{}: {}{}", pair.name, variant, shape_prefix(s, e), e.what()));
    }
  }
  return shapes;
}

// The --shape options of one pair, for one variant: each adds the variant's first shape
// with its dimensions set. `accepted[i]` records whether some variant took override i
// with its variant dimensions, `errors[i]` why the others did not.
void add_overrides(const PairDef& pair, const std::string& variant, const std::vector<ShapeOverride>& overrides,
                   const std::vector<Shape>& suite_shapes, std::vector<Shape>& shapes, std::vector<bool>& accepted,
                   std::vector<std::vector<std::string>>& errors) {
  for (size_t i = 0; i < overrides.size(); ++i) {
    const ShapeOverride& o = overrides[i];
    if (o.pair != pair.name) continue;
    const Shape base = !shapes.empty()         ? shapes.front()
                       : !suite_shapes.empty() ? pair.complete_shape(variant, suite_shapes.front())
                                               : Shape{};
    // The dimensions a shape of this pair may have: those of the first shape, and the
    // options some suite shape turns on (block's qk_norm and softcap).
    std::vector<std::string> known;
    for (const auto& d : base.dims()) known.push_back(d.first);
    for (const auto* list : {&pair.default_shapes, &pair.quick_shapes, &pair.cuda_shapes})
      for (const auto& shape : *list)
        for (const auto& d : shape.dims())
          if (std::find(known.begin(), known.end(), d.first) == known.end()) known.push_back(d.first);
    for (const auto& [key, value] : o.dims)
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        throw std::invalid_argument(fmt::format("--shape '{}': pair '{}' has no dimension '{}' (its dimensions: {})",
                                                o.text, o.pair, key, join(known)));
      }
    try {
      push_unique(shapes, apply_override(pair, variant, base, o, true));
      accepted[i] = true;
    } catch (const std::invalid_argument& e) {
      add_note(errors[i], e.what());
      // this variant fixes a dimension the override sets (mha's kv_heads): it keeps its own
      try {
        push_unique(shapes, apply_override(pair, variant, base, o, false));
      } catch (const std::invalid_argument& e2) {
        throw std::invalid_argument(fmt::format("--shape '{}': {}", o.text, e2.what()));
      }
    }
  }
}

// Reorders one pair's runs (from `first` on) so that the runs that share a shape, apart
// from the dimensions the variant decides (PairDef::variant_dims: decode's kv_heads),
// run back to back, in the order their shapes first appear; within a shape, in the
// catalogue's order of variants and impls. Why: their workloads have the same buffer
// sizes, so each reuses the one before's memory (kernels/common/host_buffer.h: fresh
// pages cost more than the kernels on a VM), and the two sides of a comparison are
// timed seconds apart instead of minutes.
void group_by_shape(std::vector<RunSpec>& runs, size_t first, size_t end, const PairDef& pair) {
  std::vector<std::map<std::string, int64_t>> order;
  auto rank = [&](const RunSpec& r) {
    auto s = shape_without(r.shape, pair.variant_dims);
    const auto it = std::find(order.begin(), order.end(), s);
    if (it != order.end()) return static_cast<size_t>(it - order.begin());
    order.push_back(std::move(s));
    return order.size() - 1;
  };
  std::vector<std::pair<size_t, RunSpec>> ranked;
  for (size_t i = first; i < end; ++i) ranked.emplace_back(rank(runs[i]), std::move(runs[i]));
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < ranked.size(); ++i) runs[first + i] = std::move(ranked[i].second);
}

}  // namespace

SuitePlan plan_suite(const SuiteOptions& options) {
  std::vector<const PairDef*> pairs;
  if (options.pairs.empty())
    for (const auto& p : all_pairs()) pairs.push_back(&p);
  else
    for (const auto& name : options.pairs) pairs.push_back(&find_pair(name));

  const ShapeRequest& req = options.shapes;
  for (const auto& o : req.overrides) {
    const PairDef& pair = find_pair(o.pair);  // an unknown pair fails here, whatever --suite says
    if (std::find(pairs.begin(), pairs.end(), &pair) == pairs.end())
      throw std::invalid_argument(fmt::format("--shape '{}': pair '{}' is not in the suite", o.text, o.pair));
  }

  SuitePlan plan;
  // With a model: the user's sizes, else the defaults (scaled down by --quick, said so).
  const ModelSizes defaults = default_model_sizes(options.backend, options.quick);
  const ModelSizes sizes{req.tokens.value_or(defaults.tokens), req.batch.value_or(defaults.batch),
                         req.contexts.empty() ? defaults.contexts : req.contexts};
  if (req.model) {
    plan.notes.push_back(fmt::format("model {} ({}): {}", req.model->name, req.model->source, req.model->describe()));
    if (options.quick) {
      const ModelSizes full = default_model_sizes(options.backend, false);
      plan.notes.push_back(fmt::format(
          "--quick scales the model's runs down: tokens {}{}, batch {}{}, contexts {}{} (without --quick: tokens {}, "
          "batch {}, contexts {})",
          sizes.tokens, req.tokens ? " (as given)" : "", sizes.batch, req.batch ? " (as given)" : "",
          sizes_label(sizes.contexts), req.contexts.empty() ? "" : " (as given)", full.tokens, full.batch,
          sizes_label(full.contexts)));
    }
  }

  std::vector<size_t> pair_starts;  // where each pair's runs begin in plan.runs
  for (const PairDef* pair : pairs) {
    pair_starts.push_back(plan.runs.size());
    if (options.backend == Backend::cuda && !pair->make_cuda) {
      if (!options.pairs.empty())
        throw std::invalid_argument("pair '" + pair->name + "' has no CUDA implementation yet");
      continue;  // the whole-suite default runs what the backend has
    }
    const bool gpu_sized = options.backend == Backend::cuda && !options.quick && !pair->cuda_shapes.empty();
    const auto& suite_shapes = options.quick ? pair->quick_shapes : gpu_sized ? pair->cuda_shapes : pair->default_shapes;
    if (!req.active()) {
      for (const auto& combo : pair->combos)
        if (pair->runs_on(options.backend, combo.impl))
          for (const auto& shape : suite_shapes) {
            if (pair->runs_shape && !pair->runs_shape(combo, shape)) continue;  // e.g. attention's phase shapes
            plan.runs.push_back({pair->name, combo.variant, combo.impl, options.backend, options.dtype,
                                 pair->complete_shape(combo.variant, shape)});
          }
      continue;
    }

    if (req.model && !pair->shapes_for_model)
      add_note(plan.notes, fmt::format("{}: no model derivation (PairDef::shapes_for_model); runs its usual shapes",
                                       pair->name));
    // Which variants accept each override's variant dimensions (at least one must).
    std::vector<bool> override_took_variant_dims(req.overrides.size(), false);
    std::vector<std::vector<std::string>> override_errors(req.overrides.size());

    for (const auto& combo : pair->combos) {
      if (!pair->runs_on(options.backend, combo.impl)) continue;  // e.g. decode's blas on CUDA
      std::vector<Shape> shapes = variant_shapes(*pair, combo, req, sizes, suite_shapes, plan.notes);
      add_overrides(*pair, combo.variant, req.overrides, suite_shapes, shapes, override_took_variant_dims,
                    override_errors);
      for (const auto& shape : shapes)
        plan.runs.push_back({pair->name, combo.variant, combo.impl, options.backend, options.dtype, shape});
    }
    for (size_t i = 0; i < req.overrides.size(); ++i)
      if (req.overrides[i].pair == pair->name && !override_took_variant_dims[i])
        throw std::invalid_argument(fmt::format("--shape '{}': no variant of {} accepts it: {}", req.overrides[i].text,
                                                pair->name, fmt::join(override_errors[i], "; ")));
  }
  for (size_t i = 0; i < pairs.size(); ++i)
    group_by_shape(plan.runs, pair_starts[i], i + 1 < pairs.size() ? pair_starts[i + 1] : plan.runs.size(), *pairs[i]);
  return plan;
}

std::vector<RunSpec> suite_runs(const SuiteOptions& options) { return plan_suite(options).runs; }

std::map<std::string, int64_t> shape_without(const Shape& shape, const std::vector<std::string>& variant_dims) {
  std::map<std::string, int64_t> s(shape.dims().begin(), shape.dims().end());
  for (const auto& d : variant_dims) s.erase(d);
  return s;
}

double footprint_bytes(const RunSpec& spec) {
  const Cost c = cost_of(spec);
  return std::max(c.bytes_minimum, c.resident_bytes);
}

void check_footprint(const std::vector<RunSpec>& runs, double limit_bytes, const std::string& limit_name) {
  const RunSpec* largest = nullptr;
  double most = 0;
  for (const auto& r : runs)
    if (const double b = footprint_bytes(r); b > most) most = b, largest = &r;
  if (largest && most > limit_bytes)
    throw std::invalid_argument(fmt::format(
        "{} needs at least {} (its inputs, outputs and the buffers it holds, at {}), more than the {} of {}; lower --tokens, "
        "--batch or --context",
        largest->bench_name(), readable_bytes(most), to_string(largest->dtype), readable_bytes(limit_bytes), limit_name));
}

double planned_peak_bytes(const std::vector<RunSpec>& runs, Backend backend, bool with_ceilings) {
  double largest = 0;
  for (const auto& r : runs) largest = std::max(largest, footprint_bytes(r));
  // The CPU ceilings, probes and curve hold the DRAM arrays for the whole process; the
  // CUDA path holds the runs' host inputs only.
  if (backend == Backend::cpu && with_ceilings) return memory_budget().run_peak_bytes(largest);
  return static_cast<double>(process_base_bytes()) + 2 * largest;
}

void check_memory(const std::vector<RunSpec>& runs, Backend backend, bool with_ceilings) {
  // LMROOF_MEMORY_LIMIT (bytes) replaces the machine's limits: a share of a shared
  // machine, or a test that must refuse the same shape on any host.
  const bool limited = std::getenv("LMROOF_MEMORY_LIMIT") && *std::getenv("LMROOF_MEMORY_LIMIT");
  const double available = available_memory_bytes();  // throws for a bad LMROOF_MEMORY_LIMIT
  if (available > 0) {
    // Inputs are generated in host memory on both backends: the largest run first, by
    // name, then everything the process will hold (the ceilings' DRAM arrays included).
    check_footprint(runs, available, limited ? "LMROOF_MEMORY_LIMIT" : "memory available on this host (MemAvailable)");
    check_peak_fits(planned_peak_bytes(runs, backend, with_ceilings), "this run");
  }
  if (backend == Backend::cuda && !limited) {
    const DeviceInfo device = query_cuda_device();
    if (device.available) check_footprint(runs, device.memory_bytes, "memory on " + device.name);
  }
}

}  // namespace lmroof::bench
