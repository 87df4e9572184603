#include "bench/cache_levels.h"

#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/stream_kernels.h"
#include "common/host_buffer.h"

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

// LMROOF_CACHE_SIZES's size for `level`; nullopt when it is unset or does not name it.
std::optional<int64_t> cache_size_override(int level) {
  const char* env = std::getenv("LMROOF_CACHE_SIZES");
  if (!env || !*env) return std::nullopt;
  const std::string text = env;
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("LMROOF_CACHE_SIZES='{}': {} (e.g. L1=48K,L2=2M,L3=1G)",
                                             text.substr(0, 200), why));
  };
  std::optional<int64_t> found;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    if (item.size() < 4 || item[0] != 'L' || item[2] != '=' || item[1] < '1' || item[1] > '3')
      throw bad(fmt::format("'{}' is not L1=, L2= or L3= and a size", item.substr(0, 40)));
    const std::string size = item.substr(3);
    const size_t digits = size.find_first_not_of("0123456789");
    const bool has_unit = digits != std::string::npos;
    if (digits == 0 || size.size() > 12 || (has_unit && (digits + 1 != size.size() || std::string("KMG").find(size[digits]) == std::string::npos)))
      throw bad(fmt::format("'{}' is not a whole number of bytes, K, M or G", size.substr(0, 40)));
    // The number against 1 TiB before the unit's shift (12 digits of G would overflow
    // int64 there and wrap to a small or zero size, issue 47 #13).
    const int shift = !has_unit ? 0 : size[digits] == 'K' ? 10 : size[digits] == 'M' ? 20 : 30;
    const int64_t number = std::stoll(size.substr(0, digits == std::string::npos ? size.size() : digits));
    if (number > (int64_t{1} << (40 - shift))) throw bad(fmt::format("'{}' is more than 1 TiB", size));
    const int64_t bytes = number << shift;
    if (item[1] - '0' == level) found = bytes;
    pos = comma + 1;
  }
  return found;
}

}  // namespace

int64_t last_level_from_rates(std::span<const int64_t> bytes, std::span<const double> rates) {
  if (bytes.size() != rates.size() || rates.size() < 3) return 0;
  const double fastest = *std::max_element(rates.begin(), rates.end()), dram = rates.back();
  if (!(dram > 0) || !(fastest >= 1.5 * dram)) return 0;
  // The steepest drop from one set to the next: its ratio does not move with the
  // DRAM rate the way a threshold between the two plateaus does (a VM's DRAM rate
  // flips between two states within seconds).
  int64_t last = 0;
  double steepest = 0;
  for (size_t i = 0; i + 1 < rates.size(); ++i)
    if (rates[i + 1] > 0 && rates[i] / rates[i + 1] > steepest) steepest = rates[i] / rates[i + 1], last = bytes[i];
  return last;
}

int64_t measured_last_level_bytes() {
  static const int64_t bytes = [] {
    const int threads = omp_get_max_threads();
    std::vector<int64_t> sizes;
    for (int64_t mib = 4; mib <= 256; mib *= 2) sizes.insert(sizes.end(), {mib << 20, mib * 3 / 2 << 20});
    sizes.pop_back();  // ... 192, 256 MiB
    HostVector<float> a(static_cast<size_t>(sizes.back() / 4));
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < a.size(); ++i) a[i] = 1e-3f * static_cast<float>(i % 97);
    // Three rounds over all the sizes, each size's best rate over the rounds: a
    // VM's DRAM rate flips between two states within seconds, and a flip in the
    // middle of one round made its steepest drop fall between two DRAM-sized sets
    // (128 MiB "L3" on a Zen 5 guest whose other runs measured 32 or 64 MiB).
    constexpr int kRounds = 3;
    std::vector<double> rates(sizes.size(), 0.0);
    for (int round = 0; round < kRounds; ++round) {
      for (size_t k = 0; k < sizes.size(); ++k) {
        const int64_t set = sizes[k];
        const int64_t per = set / 4 / threads / 128 * 128;
        // enough sweeps to read 256 MiB, at least 2: the first warms the set
        for (int64_t s = 0, sweeps = std::max<int64_t>(2, (int64_t{256} << 20) / set); s < sweeps; ++s) {
          float sink = 0;
          const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
          sink += sum_floats(a.data() + omp_get_thread_num() * per, per);
          const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          asm volatile("" : : "r"(sink) : "memory");
          if (seconds > 0) rates[k] = std::max(rates[k], static_cast<double>(per) * threads * 4 / seconds);
        }
      }
    }
    return last_level_from_rates(sizes, rates);
  }();
  return bytes;
}

// Data (or unified) cache `level` from /sys (sysconf for L1 and L2, a measurement
// for L3, as fallbacks: glibc's _SC_LEVEL3_CACHE_SIZE reads CPUID, which some
// hypervisors fill oddly: 320 MiB for a 32 MiB L3 on one development VM, 508 MiB on
// another, which had no /sys cache entries at all).
// What the OS (or a measurement, when `measure`) says of `level`.
CacheLevel cache_level_detected(int level, bool measure);

CacheLevel cache_level(int level) {
  const std::optional<int64_t> forced = cache_size_override(level);
  CacheLevel c = cache_level_detected(level, /*measure=*/!forced);
  if (forced) {
    c.bytes = *forced;
    c.source = c.bytes > 0 ? "override" : "none";
  }
  return c;
}

CacheLevel cache_level_detected(int level, bool measure) {
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
    c.source = "os";
    return c;
  }
  // Unknown sharing: assume private L1/L2 and one L3 shared by every thread.
  if (level == 3) {
    // measured only where CPUID says there is an L3
    c.bytes = measure && sysconf(_SC_LEVEL3_CACHE_SIZE) > 0 ? measured_last_level_bytes() : 0;
    c.shared_by = kSharedByAll;
    c.source = c.bytes > 0 ? "measured" : "none";
    return c;
  }
  const long v = sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : _SC_LEVEL2_CACHE_SIZE);
  c.bytes = v > 0 ? v : 0;
  c.source = c.bytes > 0 ? "cpuid" : "none";
  return c;
}

int64_t capacity_used_by(const CacheLevel& cache, int threads) {
  const int instances = cache.shared_by >= threads ? 1 : (threads + cache.shared_by - 1) / cache.shared_by;
  return cache.bytes * instances;
}

}  // namespace lmroof::bench
