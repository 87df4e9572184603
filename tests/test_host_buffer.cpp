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

#if !defined(__SANITIZE_ADDRESS__)
// A freed large buffer is handed to the next request of its size (no fresh pages to
// fault in); a request of another size is assembled from what was kept, so the
// memory held never exceeds the most in use at once.
TEST(HostBuffer, FreedLargeBuffersAreReusedAndNeverAddUp) {
  release_kept_host_bytes();
  const void* first = nullptr;
  {
    HostVector<float> a(5 << 20);  // 20 MiB
    first = a.data();
  }
  EXPECT_EQ(kept_host_bytes(), size_t{20} << 20);
  {
    HostVector<float> b(5 << 20);
    EXPECT_EQ(static_cast<const void*>(b.data()), first);
    EXPECT_EQ(kept_host_bytes(), 0u);
  }
  {
    HostVector<float> c(3 << 20);  // 12 MiB, from the kept 20 MiB: 8 MiB stay kept
    EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data()) % (uintptr_t{2} << 20), 0u);
    EXPECT_EQ(kept_host_bytes(), size_t{8} << 20);
    std::iota(c.begin(), c.end(), 0.0f);
    EXPECT_EQ(c.back(), static_cast<float>(c.size() - 1));
    HostVector<float> d(6 << 20);  // 24 MiB: the 8 MiB kept and 16 MiB fresh
    std::iota(d.begin(), d.end(), 1.0f);
    EXPECT_EQ(d.back(), static_cast<float>(d.size()));
    EXPECT_EQ(c.back(), static_cast<float>(c.size() - 1));  // moving pages into d left c alone
    EXPECT_EQ(kept_host_bytes(), 0u);
  }
  EXPECT_EQ(kept_host_bytes(), size_t{36} << 20);  // the most in use at once: 12 + 24 MiB
}
#endif

TEST(HostBuffer, ImpossibleSizesThrow) {
  HostAllocator<float> a;
  EXPECT_THROW((void)a.allocate(static_cast<size_t>(-1) / 2), std::bad_array_new_length);
}

}  // namespace
}  // namespace lmroof
