#pragma once
// Host memory for the buffers the CPU kernels and CPU ceilings stream.
//
// Why huge pages: on the development VM (KVM, nested paging) streaming a
// DRAM-sized buffer backed by 4 KiB pages reached 25-36 GB/s where the same
// loop over 2 MiB pages reached 33-57 GB/s, back to back; every page walk is a
// two-dimensional one under a hypervisor, and the hardware prefetchers stop at
// each 4 KiB page. A roof measured on one page size and a kernel run on the other
// would measure the allocator, not the kernel, so the ceilings and every
// workload take their memory from here and share one policy.
//
// Policy: buffers of 2 MiB and more are aligned to 2 MiB and marked
// madvise(MADV_HUGEPAGE), which Linux honours when transparent huge pages are
// "always" or "madvise" (the common default). Setting LMROOF_HUGE_PAGES=0 asks
// for 4 KiB pages instead (MADV_NOHUGEPAGE), to compare. What was asked for and
// what the kernel allows is recorded in every run's machine context.
#include <cstddef>
#include <new>
#include <string>
#include <vector>

namespace lmroof {

// Allocates `bytes` with the policy above; never returns null (throws bad_alloc).
// Buffers of 2 MiB and more that are freed are kept and handed to the next request of
// the same size (host_buffer.cpp says why and how the memory stays bounded); not under
// AddressSanitizer.
void* allocate_host(std::size_t bytes);
void free_host(void* p) noexcept;

// Bytes of freed large buffers kept for reuse, and giving them back to the OS (for tests).
std::size_t kept_host_bytes();
void release_kept_host_bytes();

// What the policy asked for and what the OS allows, for the run's context, e.g.
// "2 MiB pages requested for buffers >= 2 MiB (transparent huge pages: madvise)".
std::string host_page_policy();

template <typename T>
struct HostAllocator {
  using value_type = T;
  HostAllocator() = default;
  template <typename U>
  HostAllocator(const HostAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_host(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { free_host(p); }
  template <typename U>
  bool operator==(const HostAllocator<U>&) const noexcept { return true; }
};

// The vector every CPU workload keeps its inputs, outputs and scratch in.
template <typename T>
using HostVector = std::vector<T, HostAllocator<T>>;

}  // namespace lmroof
