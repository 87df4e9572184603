// TEMPORARY placeholder until the CUDA norm kernels land.
#include <stdexcept>
#include "norm/norm.h"
namespace lmroof::norm {
std::unique_ptr<Workload> make_cuda(const RunSpec&) { throw std::runtime_error("CUDA norm not implemented yet"); }
}  // namespace lmroof::norm
