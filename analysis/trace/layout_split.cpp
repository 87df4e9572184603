#include "analysis/trace/layout_split.h"

#include <algorithm>
#include <numeric>

#include "analysis/stats/statistics.h"

namespace lmroof::trace {

std::vector<size_t> layout_groups(const std::vector<LayoutTimes>& layouts) {
  std::vector<size_t> order(layouts.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return layouts[x].fastest_s < layouts[y].fastest_s; });
  std::vector<size_t> group(layouts.size(), 0);
  size_t current = 0;
  double group_slowest = 0;
  uint64_t group_calls = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const LayoutTimes& l = layouts[order[k]];
    // C(n1 + n2, n1) is symmetric: the smaller side first keeps the product short.
    const bool separate = k > 0 && l.fastest_s > group_slowest && group_calls > 0 && l.calls > 0 &&
                          stats::smallest_u_test_p(std::min(group_calls, l.calls), std::max(group_calls, l.calls)) < kLayoutSplitP;
    if (separate) ++current, group_slowest = 0, group_calls = 0;
    group[order[k]] = current;
    group_slowest = std::max(group_slowest, l.slowest_s);
    group_calls += l.calls;
  }
  return group;
}

}  // namespace lmroof::trace
