// TEMPORARY placeholder so the tree links while the bias pair is written; replaced by the real registration.
#include "registry.h"
namespace lmroof {
PairDef bias_pair() {
  PairDef p;
  p.name = "bias";
  p.complete_shape = [](const std::string&, const Shape& s) { return s; };
  return p;
}
}  // namespace lmroof
