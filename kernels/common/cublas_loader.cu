// cuBLAS and cuBLASLt, loaded on first use instead of at start-up.
//
// Why: linked normally, libcublasLt's static initialisers and page faults cost every
// lmroof command about half a second before main() (measured here with perf: 48% of
// `lmroof --version`'s time in libcublasLt, most of the rest in the kernel mapping it),
// and under `ulimit -v` below ~1 GB the dynamic loader refuses the binary outright.
// Only the GEMMs (common/cublaslt_gemm.cu) call cuBLAS, so the CUDA build links neither
// library: each function below, with the exact signature the cuBLAS headers declare
// (the compiler checks it), resolves its real symbol with dlsym on its first call, from
// the library's soname for this toolkit's major version, found by the executable's
// RUNPATH or else beside the CUDA runtime this binary loaded. A library that cannot be
// loaded throws std::runtime_error naming it, at the first GEMM, not at start-up.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace {

#define LMROOF_STRINGIZE_(x) #x
// The symbol's real name, after cublas_v2.h's macros (cublasCreate -> cublasCreate_v2).
#define LMROOF_STRINGIZE(x) LMROOF_STRINGIZE_(x)

void* open_library(const std::string& soname) {
  if (void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  const std::string first_error = dlerror();
  // Beside the CUDA runtime (shared, found by the same RUNPATH at start-up).
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cudaGetDeviceCount), &info) != 0 && info.dli_fname) {
    std::string dir = info.dli_fname;
    dir.erase(dir.rfind('/') + 1);
    if (void* handle = dlopen((dir + soname).c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  }
  throw std::runtime_error(soname + ": cannot load it for the CUDA GEMMs: " + first_error);
}

void* cublas_library() {
  static void* const handle = open_library("libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
  return handle;
}
void* cublaslt_library() {
  static void* const handle = open_library("libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR));
  return handle;
}

template <typename Function>
Function resolve(void* library, const char* name) {
  dlerror();
  void* symbol = dlsym(library, name);
  if (!symbol) throw std::runtime_error(std::string("cuBLAS: no symbol ") + name + " in the loaded library");
  return reinterpret_cast<Function>(symbol);
}

}  // namespace

// Each definition keeps the C linkage of the header's declaration; one whose parameters
// differ from it would be a C++ overload and leave the real name undefined at link time.
#define LMROOF_FORWARD(library, result, name, parameters, arguments)                                 \
  result CUBLASWINAPI name parameters {                                                              \
    using Real = result (*) parameters;                                                              \
    static const Real real = resolve<Real>(library(), LMROOF_STRINGIZE(name));                       \
    return real arguments;                                                                           \
  }

LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtCreate, (cublasLtHandle_t * handle), (handle))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtDestroy, (cublasLtHandle_t handle), (handle))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatmulDescCreate,
               (cublasLtMatmulDesc_t * desc, cublasComputeType_t compute, cudaDataType_t scale), (desc, compute, scale))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatmulDescDestroy, (cublasLtMatmulDesc_t desc), (desc))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatmulDescSetAttribute,
               (cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const void* buf, size_t bytes),
               (desc, attr, buf, bytes))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatrixLayoutCreate,
               (cublasLtMatrixLayout_t * layout, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld),
               (layout, type, rows, cols, ld))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatrixLayoutDestroy, (cublasLtMatrixLayout_t layout), (layout))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatrixLayoutSetAttribute,
               (cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr, const void* buf, size_t bytes),
               (layout, attr, buf, bytes))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t * pref), (pref))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t pref), (pref))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatmulPreferenceSetAttribute,
               (cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, const void* buf, size_t bytes),
               (pref, attr, buf, bytes))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatmulAlgoGetHeuristic,
               (cublasLtHandle_t handle, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t pref, int requested,
                cublasLtMatmulHeuristicResult_t results[], int* returned),
               (handle, op, a, b, c, d, pref, requested, results, returned))
LMROOF_FORWARD(cublaslt_library, cublasStatus_t, cublasLtMatmul,
               (cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha, const void* a,
                cublasLtMatrixLayout_t a_desc, const void* b, cublasLtMatrixLayout_t b_desc, const void* beta,
                const void* c, cublasLtMatrixLayout_t c_desc, void* d, cublasLtMatrixLayout_t d_desc,
                const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes, cudaStream_t stream),
               (handle, desc, alpha, a, a_desc, b, b_desc, beta, c, c_desc, d, d_desc, algo, workspace, workspace_bytes,
                stream))

LMROOF_FORWARD(cublas_library, cublasStatus_t, cublasCreate, (cublasHandle_t * handle), (handle))
LMROOF_FORWARD(cublas_library, cublasStatus_t, cublasDestroy, (cublasHandle_t handle), (handle))
LMROOF_FORWARD(cublas_library, cublasStatus_t, cublasSetWorkspace, (cublasHandle_t handle, void* workspace, size_t bytes),
               (handle, workspace, bytes))
LMROOF_FORWARD(cublas_library, cublasStatus_t, cublasSetStream, (cublasHandle_t handle, cudaStream_t stream),
               (handle, stream))
LMROOF_FORWARD(cublas_library, cublasStatus_t, cublasSetPointerMode, (cublasHandle_t handle, cublasPointerMode_t mode),
               (handle, mode))
LMROOF_FORWARD(cublas_library, cublasStatus_t, cublasSetMathMode, (cublasHandle_t handle, cublasMath_t mode), (handle, mode))
LMROOF_FORWARD(cublas_library, const char*, cublasGetStatusName, (cublasStatus_t status), (status))
LMROOF_FORWARD(cublas_library, const char*, cublasGetStatusString, (cublasStatus_t status), (status))
LMROOF_FORWARD(cublas_library, cublasStatus_t, cublasGemmStridedBatchedEx,
               (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                const void* alpha, const void* a, cudaDataType a_type, int lda, long long int stride_a, const void* b,
                cudaDataType b_type, int ldb, long long int stride_b, const void* beta, void* c, cudaDataType c_type,
                int ldc, long long int stride_c, int batch, cublasComputeType_t compute, cublasGemmAlgo_t algo),
               (handle, transa, transb, m, n, k, alpha, a, a_type, lda, stride_a, b, b_type, ldb, stride_b, beta, c,
                c_type, ldc, stride_c, batch, compute, algo))
