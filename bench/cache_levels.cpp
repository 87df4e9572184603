#include "bench/cache_levels.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

namespace lmroof::bench {

namespace {

int64_t parse_size(const std::string& text) {  // "32K", "1024K", "32768K", "32M"
  if (text.empty()) return 0;
  int64_t v = std::atoll(text.c_str());
  const char unit = text.find_first_not_of("0123456789") == std::string::npos ? ' ' : text[text.find_first_not_of("0123456789")];
  if (unit == 'K') v <<= 10;
  if (unit == 'M') v <<= 20;
  if (unit == 'G') v <<= 30;
  return v;
}

int count_cpus(const std::string& list) {  // "0-1", "0,2-3"
  int n = 0;
  size_t pos = 0;
  while (pos < list.size()) {
    const size_t comma = list.find(',', pos);
    const std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const size_t dash = item.find('-');
    n += dash == std::string::npos ? 1 : std::atoi(item.c_str() + dash + 1) - std::atoi(item.c_str()) + 1;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return std::max(n, 1);
}

}  // namespace

// Data (or unified) cache `level` from /sys (sysconf as a fallback: glibc's
// _SC_LEVEL3_CACHE_SIZE reads CPUID, which some hypervisors fill oddly: 320 MiB
// for a 32 MiB L3 on the development VM, so /sys comes first).
CacheLevel cache_level(int level) {
  CacheLevel c;
  c.level = level;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
    std::ifstream lvl(dir + "level"), type(dir + "type"), size(dir + "size"), shared(dir + "shared_cpu_list");
    int l = 0;
    std::string t, sz, sh;
    if (!(lvl >> l) || !(type >> t) || !(size >> sz)) continue;
    if (l != level || t == "Instruction") continue;
    c.bytes = parse_size(sz);
    if (shared >> sh) c.shared_by = count_cpus(sh);
    return c;
  }
  const int name = level == 1 ? _SC_LEVEL1_DCACHE_SIZE : level == 2 ? _SC_LEVEL2_CACHE_SIZE : _SC_LEVEL3_CACHE_SIZE;
  const long v = sysconf(name);
  c.bytes = v > 0 ? v : 0;
  c.shared_by = level == 3 ? 1 << 16 : 1;  // unknown: assume private L1/L2, one shared L3
  return c;
}

int64_t capacity_used_by(const CacheLevel& cache, int threads) {
  const int instances = cache.shared_by >= threads ? 1 : (threads + cache.shared_by - 1) / cache.shared_by;
  return cache.bytes * instances;
}

}  // namespace lmroof::bench
