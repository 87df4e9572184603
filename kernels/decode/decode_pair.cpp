// TEMPORARY placeholder so the tree links while the decode pair is written; replaced by the real registration.
#include "registry.h"
namespace lmroof {
PairDef decode_pair() {
  PairDef p;
  p.name = "decode";
  p.complete_shape = [](const std::string&, const Shape& s) { return s; };
  return p;
}
}  // namespace lmroof
