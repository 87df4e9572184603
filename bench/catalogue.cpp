#include "bench/catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "registry.h"

namespace lmroof {

model::Catalogue registry_catalogue() {
  model::Catalogue cat;
  std::set<std::string> used;
  // Every completed suite shape's dimensions, in its benchmark name's order.
  std::vector<std::vector<std::string>> sequences;
  cat.charts.emplace_back(model::kRooflineChart);
  for (const auto& p : all_pairs()) {
    model::CataloguePair c;
    c.name = p.name;
    c.title = p.title.empty() ? fmt::format("Pair {}", p.name) : p.title;
    c.summary = p.summary;
    std::string chart = model::chart_id_for_pair(p.name);
    for (int n = 2; used.count(chart); ++n) chart = fmt::format("{}-{}", model::chart_id_for_pair(p.name), n);
    used.insert(chart);
    c.chart = chart;
    cat.charts.push_back(chart);
    c.combos = p.combos;
    // The pair's dimensions in the order its shapes list them (sorted into the
    // catalogue's order below).
    for (const auto* shapes : {&p.default_shapes, &p.quick_shapes, &p.cuda_shapes})
      for (const auto& s : *shapes)
        for (const auto& combo : p.combos) {
          Shape full = s;
          try {
            full = p.complete_shape(combo.variant, s);
          } catch (const std::exception&) {
          }
          std::vector<std::string> sequence;
          for (const auto& [d, v] : full.dims()) {
            sequence.push_back(d);
            if (std::find(c.dims.begin(), c.dims.end(), d) == c.dims.end()) c.dims.push_back(d);
          }
          sequences.push_back(std::move(sequence));
        }
    c.variant_dims = p.variant_dims;
    c.comparisons = p.comparisons;
    c.intensity_predictions = p.intensity_predictions;
    c.model_mapping = p.model_mapping;
    cat.pairs.push_back(std::move(c));
  }
  // One dimension order for every surface (list, report, CSV, compare, check). Run ids
  // and benchmark names are an on-disk format (RunSpec::parse_bench_name, compare's
  // matching by id, results files already written) and list a shape's dimensions as
  // the pair declares them; rather than re-order those, the catalogue's order is made
  // to agree with them: a merge that keeps every shape's own order (decode's "batch
  // q_heads kv_heads head_dim context", block's "tokens d_model d_ff q_heads head_dim")
  // instead of the first-seen order, which put q_heads before batch. So a run's shape
  // reads the same in its id, `lmroof list` and every table. Only pairs that disagree
  // with each other (none of the built-in ones) would see a tie broken by first
  // appearance; their display still follows the catalogue.
  cat.dimension_order = model::merge_dimension_orders(sequences);
  for (auto& c : cat.pairs) {
    std::vector<std::string> dims;
    for (const auto& d : cat.dimension_order)
      if (std::find(c.dims.begin(), c.dims.end(), d) != c.dims.end()) dims.push_back(d);
    c.dims = std::move(dims);
  }
  cat.charts.emplace_back(model::kBlockSharesChart);
  cat.charts.emplace_back(model::kRunsTableChart);
  return cat;
}

}  // namespace lmroof
