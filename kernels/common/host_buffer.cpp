#include "common/host_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <unordered_map>

namespace lmroof {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

bool huge_pages_wanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("LMROOF_HUGE_PAGES");
    return v == nullptr || std::string(v) != "0";
  }();
  return wanted;
}

// The bracketed word of /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never").
std::string thp_setting() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "unknown";
  const auto open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "unknown";
  return line.substr(open + 1, close - open - 1);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kReuseLargeBlocks = false;  // AddressSanitizer's reports are clearest when every free unmaps
#else
constexpr bool kReuseLargeBlocks = true;
#endif

char* as_bytes(void* p) { return static_cast<char*>(p); }

// `bytes` (a multiple of 2 MiB) of address space starting on a 2 MiB boundary, not yet
// backed (PROT_NONE), or null.
char* reserve_aligned(std::size_t bytes) {
  void* raw = mmap(nullptr, bytes + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  char* begin = as_bytes(raw);
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(begin) + kHugePage - 1) & ~(kHugePage - 1));
  if (aligned > begin) munmap(begin, static_cast<std::size_t>(aligned - begin));
  if (char* end = aligned + bytes; end < begin + bytes + kHugePage)
    munmap(end, static_cast<std::size_t>(begin + bytes + kHugePage - end));
  return aligned;
}

// Fresh, writable memory over [p, p + bytes) of a reservation, with the page policy.
bool back_fresh(char* p, std::size_t bytes) {
  if (mmap(p, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) return false;
  // Advice only: a kernel without THP refuses it and the buffer keeps 4 KiB pages.
  (void)madvise(p, bytes, huge_pages_wanted() ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return true;
}

// The large buffers (2 MiB and more): mapped by lmroof itself, and when freed, kept
// and handed out again in pieces of any size.
//
// Why: the suite, the validation and the paired rounds build workloads again and
// again (a decode workload holds up to 1 GiB), and memory the process has not touched
// yet is zeroed page by page by the OS on first touch. Under a hypervisor that hands
// freed guest memory back to the host, that cost 9.7 s for the first GiB on the
// development VM (0.12 s for memory touched before), and 40% of `lmroof run --suite
// decode`'s CPU time went to it, more than to the kernels.
//
// How: a request is served from an exact-size kept block, else assembled from kept
// blocks moved (mremap: page tables move, no byte is copied) into a fresh 2 MiB-aligned
// reservation, with fresh pages only for what the kept blocks do not cover. So the
// process never holds more than the most it had in use at once: what the memory
// check before a run (bench/suite_plan) already sized. Kept blocks go back to the OS
// at exit.
class LargeBlocks {
 public:
  void* take(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    if (auto it = kept_.find(bytes); it != kept_.end()) {
      char* p = it->second;
      kept_.erase(it);
      kept_bytes_ -= bytes;
      in_use_.emplace(p, bytes);
      return p;
    }
    char* p = reserve_aligned(bytes);
    if (p == nullptr) throw std::bad_alloc();
    std::size_t filled = 0;
    while (filled < bytes && !kept_.empty()) {
      auto largest = std::prev(kept_.end());
      const std::size_t size = largest->first;
      char* block = largest->second;
      const std::size_t n = std::min(size, bytes - filled);
      if (mremap(block, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, p + filled) == MAP_FAILED) break;
      kept_.erase(largest);
      kept_bytes_ -= size;
      if (n < size) kept_.emplace(size - n, block + n), kept_bytes_ += size - n;  // the rest stays a block
      filled += n;
    }
    if (filled < bytes && !back_fresh(p + filled, bytes - filled)) {
      munmap(p, bytes);
      throw std::bad_alloc();
    }
    in_use_.emplace(p, bytes);
    return p;
  }

  // False when `p` is not a large block (a small one, or null).
  bool give_back(void* p) noexcept {
    std::lock_guard lock(mutex_);
    auto it = in_use_.find(as_bytes(p));
    if (it == in_use_.end()) return false;
    const std::size_t bytes = it->second;
    in_use_.erase(it);
    if (kReuseLargeBlocks) {
      kept_.emplace(bytes, as_bytes(p));
      kept_bytes_ += bytes;
    } else {
      munmap(p, bytes);
    }
    return true;
  }

  std::size_t kept_bytes() {
    std::lock_guard lock(mutex_);
    return kept_bytes_;
  }

  void release_kept() {
    std::lock_guard lock(mutex_);
    for (auto& [bytes, p] : kept_) munmap(p, bytes);
    kept_.clear();
    kept_bytes_ = 0;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<char*, std::size_t> in_use_;
  std::multimap<std::size_t, char*> kept_;  // by size
  std::size_t kept_bytes_ = 0;
};

LargeBlocks& large_blocks() {
  static auto* blocks = new LargeBlocks;  // never destroyed: buffers in statics may be freed after main
  return *blocks;
}

}  // namespace

void* allocate_host(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes < kHugePage) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  if (bytes > (std::size_t{1} << 62)) throw std::bad_alloc();
  return large_blocks().take((bytes + kHugePage - 1) / kHugePage * kHugePage);
}

void free_host(void* p) noexcept {
  if (p != nullptr && !large_blocks().give_back(p)) std::free(p);
}

std::size_t kept_host_bytes() { return large_blocks().kept_bytes(); }
void release_kept_host_bytes() { large_blocks().release_kept(); }

std::string host_page_policy() {
  const std::string thp = "transparent huge pages: " + thp_setting();
  if (!huge_pages_wanted()) return "4 KiB pages requested (LMROOF_HUGE_PAGES=0; " + thp + ")";
  return "2 MiB pages requested for buffers >= 2 MiB (" + thp + ")";
}

}  // namespace lmroof
