// The host buffers' page policy (kernels/common/host_buffer.h): large buffers start
// on a 2 MiB boundary (so that a huge page can back them), small ones on a cache
// line, and the policy the run records names what was asked for and the OS setting.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "common/host_buffer.h"

namespace lmroof {
namespace {

TEST(HostBuffer, LargeBuffersStartOnA2MiBBoundary) {
  HostVector<float> big(3 << 20);  // 12 MiB
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % (uintptr_t{2} << 20), 0u);
  std::iota(big.begin(), big.end(), 0.0f);  // every byte of the rounded-up region is usable
  EXPECT_EQ(big.back(), static_cast<float>(big.size() - 1));
}

TEST(HostBuffer, SmallBuffersStartOnACacheLine) {
  for (size_t n : {1u, 7u, 100u, 4096u}) {
    HostVector<float> small(n, 1.0f);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % 64, 0u) << n;
    EXPECT_EQ(std::accumulate(small.begin(), small.end(), 0.0f), static_cast<float>(n));
  }
}

TEST(HostBuffer, PolicyNamesTheRequestAndTheOsSetting) {
  const std::string policy = host_page_policy();
  EXPECT_NE(policy.find("pages requested"), std::string::npos) << policy;
  EXPECT_NE(policy.find("transparent huge pages: "), std::string::npos) << policy;
}

TEST(HostBuffer, ImpossibleSizesThrow) {
  HostAllocator<float> a;
  EXPECT_THROW((void)a.allocate(static_cast<size_t>(-1) / 2), std::bad_array_new_length);
}

}  // namespace
}  // namespace lmroof
