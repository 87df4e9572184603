#include "common/host_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <fstream>

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

}  // namespace

void* allocate_host(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes < kHugePage) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  // Advice only: a kernel without THP refuses it and the buffer keeps 4 KiB pages.
  (void)madvise(p, rounded, huge_pages_wanted() ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return p;
}

void free_host(void* p) noexcept { std::free(p); }

std::string host_page_policy() {
  const std::string thp = "transparent huge pages: " + thp_setting();
  if (!huge_pages_wanted()) return "4 KiB pages requested (LMROOF_HUGE_PAGES=0; " + thp + ")";
  return "2 MiB pages requested for buffers >= 2 MiB (" + thp + ")";
}

}  // namespace lmroof
