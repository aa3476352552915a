#include "main/cache_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>

namespace quarry::main {
namespace {

constexpr double kGigabyte = 1024.0 * 1024.0 * 1024.0;
constexpr std::size_t kMinimumBytes = std::size_t{256} << 20;

std::uint64_t PhysicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

// cgroup v2's memory.max of this process's group: a number, or "max" for none.
std::uint64_t CgroupLimit() {
  std::ifstream file("/sys/fs/cgroup/memory.max");
  std::string value;
  if (!(file >> value) || value == "max") return 0;
  try {
    return std::stoull(value);
  } catch (...) {
    return 0;
  }
}

}  // namespace

std::size_t BlockCacheBytes(double cache_size_gb) {
  if (cache_size_gb > 0) return static_cast<std::size_t>(cache_size_gb * kGigabyte);
  std::uint64_t memory = PhysicalMemory();
  if (const std::uint64_t limit = CgroupLimit(); limit > 0 && (memory == 0 || limit < memory)) {
    memory = limit;
  }
  const auto one_gigabyte = static_cast<std::uint64_t>(kGigabyte);
  if (memory <= one_gigabyte) return kMinimumBytes;
  return std::max<std::size_t>(kMinimumBytes,
                               static_cast<std::size_t>((memory - one_gigabyte) / 2));
}

}  // namespace quarry::main
