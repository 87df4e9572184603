// TEMPORARY placeholder so the tree links while the block pair is written; replaced by the real registration.
#include "registry.h"
namespace lmroof {
PairDef block_pair() {
  PairDef p;
  p.name = "block";
  p.complete_shape = [](const std::string&, const Shape& s) { return s; };
  return p;
}
}  // namespace lmroof
