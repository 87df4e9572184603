#include "analysis/roofs/memory_levels.h"

#include <algorithm>
#include <limits>

#include "analysis/stats/statistics.h"
#include "kernels/run_names/cost.h"

namespace lmroof {

namespace {

// The median read rate of the points with low < working set <= high; 0 when none.
double plateau(const std::vector<model::BandwidthPoint>& points, double low, double high) {
  std::vector<double> reads;
  for (const auto& p : points)
    if (p.working_set_bytes > low && p.working_set_bytes <= high) reads.push_back(p.read);
  return reads.empty() ? 0 : stats::median(reads);
}

}  // namespace

std::vector<model::MemoryLevel> memory_levels(const std::vector<model::BandwidthPoint>& points,
                                              std::vector<CacheCapacity> caches, std::string_view far_name,
                                              std::optional<double> far_from_bytes) {
  std::erase_if(caches, [](const CacheCapacity& c) { return !(c.bytes > 0); });
  std::sort(caches.begin(), caches.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  std::vector<model::MemoryLevel> levels;
  double previous = 0;
  for (const auto& cache : caches) {
    double rate = plateau(points, 2 * previous, cache.bytes / 2);
    if (!(rate > 0)) rate = plateau(points, previous, cache.bytes);
    if (rate > 0) levels.push_back({cache.name, cache.bytes, rate});
    previous = cache.bytes;
  }
  const double far_from = far_from_bytes.value_or(kDramResidentOverOuterCache * previous);
  const double far = plateau(points, far_from - 1, std::numeric_limits<double>::infinity());
  if (far > 0) levels.push_back({std::string(far_name), std::nullopt, far});
  return levels;
}

}  // namespace lmroof
