#pragma once
// When one op shape runs on inputs of different memory layouts (`Input Strides`: a RoPE
// `mul` on a transposed input against a contiguous one), its row is split by layout only
// where the times differ, by a rule a reader can check by hand (docs/trace.md, "Layouts").
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lmroof::trace {

// One layout of an op shape: its calls' fastest and slowest time and their number.
struct LayoutTimes {
  double fastest_s = 0, slowest_s = 0;
  uint64_t calls = 0;
};

// The significance the separation of two layouts must reach: the exact two-sided
// Mann-Whitney U test of two sets that do not overlap gives p = 2 / C(n1 + n2, n1); a
// separation counts at p < 0.05 (4 calls against 4: p = 0.029; 3 against 3: 0.1, never).
inline constexpr double kLayoutSplitP = 0.05;

// Groups the layouts whose times do not differ: sorted by their fastest call, a layout
// joins the group before it unless its fastest call is slower than every call of that
// group, with calls enough on both sides for p < kLayoutSplitP. Returns a group number per
// layout (in the order given); one group means the row stays whole.
std::vector<size_t> layout_groups(const std::vector<LayoutTimes>& layouts);

}  // namespace lmroof::trace
