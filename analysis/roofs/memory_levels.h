#pragma once
// The levels of a memory-bandwidth curve (issue #34): from the curve's points and the
// capacities of the caches in front of memory, the plateau of each level and its read
// rate. Pure: the CPU (L1, L2, L3, DRAM) and a GPU (L2, HBM) use it alike, and the unit
// tests feed it synthetic curves (tests/test_memory_levels.cpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/results_model.h"

namespace lmroof {

struct CacheCapacity {
  std::string name;  // "L1", "L2", "L3"
  double bytes = 0;  // what the curve's threads use together (> 0)
};

// A level's plateau is the points whose working set lies between twice the capacity of
// the level before it (half of the set at most still hits there) and half its own
// capacity (the sweep fits with room for everything else); the far level's (`far_name`,
// "DRAM" or "HBM") starts at kDramResidentOverOuterCache x the last capacity, the rule
// by which analysis takes a run to stream from memory. A level whose window holds no
// point takes the points inside its whole range instead, and is left out when that is
// empty too; the far level is left out when the curve stops before its window (a memory
// budget smaller than 2x the outermost cache). Its bandwidth is the median read rate of
// the plateau's points: a plateau is where the curve is flat, and the points at its edges
// that lean on a neighbouring level do not move the median.
// `caches` in any order; levels come out by ascending capacity, the far level last.
// `far_from_bytes`, when given, is where the far level's points start instead: the
// caller knows a cache in front of memory whose size is unknown (an L3 the OS does not
// report), so points just past the last known capacity may sit in it (issue 47 #17: a
// DRAM level of 167 GB/s read off the L3 plateau); infinity leaves the far level out.
std::vector<model::MemoryLevel> memory_levels(const std::vector<model::BandwidthPoint>& points,
                                              std::vector<CacheCapacity> caches, std::string_view far_name,
                                              std::optional<double> far_from_bytes = std::nullopt);

}  // namespace lmroof
