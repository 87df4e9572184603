# Third-party libraries, all from Debian packages (scripts/install-deps.sh).
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(benchmark REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Threads REQUIRED)
# `lmroof trace`: RapidJSON's SAX reader streams multi-GB profiler traces; zlib inflates .json.gz.
find_package(ZLIB REQUIRED)
find_path(LMROOF_RAPIDJSON_INCLUDE rapidjson/reader.h REQUIRED)
add_library(RapidJSON INTERFACE)
target_include_directories(RapidJSON SYSTEM INTERFACE ${LMROOF_RAPIDJSON_INCLUDE})

# OpenBLAS, preferring the OpenMP build so BLAS and our kernels share one thread pool
# instead of two pools spinning against each other on a small machine.
find_library(LMROOF_OPENBLAS_LIB NAMES openblas
  PATHS /usr/lib/x86_64-linux-gnu/openblas-openmp /usr/lib/aarch64-linux-gnu/openblas-openmp
  NO_DEFAULT_PATH)
find_path(LMROOF_OPENBLAS_INCLUDE cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-openmp /usr/include/aarch64-linux-gnu/openblas-openmp
  NO_DEFAULT_PATH)
if(NOT LMROOF_OPENBLAS_LIB OR NOT LMROOF_OPENBLAS_INCLUDE)
  find_library(LMROOF_OPENBLAS_LIB NAMES openblas REQUIRED)
  find_path(LMROOF_OPENBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas REQUIRED)
endif()
add_library(lmroof_openblas INTERFACE)
target_link_libraries(lmroof_openblas INTERFACE ${LMROOF_OPENBLAS_LIB})
target_include_directories(lmroof_openblas SYSTEM INTERFACE ${LMROOF_OPENBLAS_INCLUDE})

# Vega browser builds (npm, reports/vega) are inlined into every report.
set(LMROOF_VEGA_DIR ${CMAKE_SOURCE_DIR}/reports/vega/node_modules)
foreach(js vega/build/vega.min.js vega-lite/build/vega-lite.min.js vega-embed/build/vega-embed.min.js)
  if(NOT EXISTS ${LMROOF_VEGA_DIR}/${js})
    message(FATAL_ERROR "lmroof: ${LMROOF_VEGA_DIR}/${js} is missing; run scripts/install-deps.sh first")
  endif()
endforeach()
