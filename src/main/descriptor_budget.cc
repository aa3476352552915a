#include "main/descriptor_budget.h"

#include <sys/resource.h>

#include <algorithm>

namespace quarry::main {
namespace {

constexpr std::int64_t kMongodMaxConns = 1000000;
// Descriptors outside connections and table files: the WAL, MANIFEST, LOG and LOCK files, a
// flush's and a compaction's new files, the log file, listeners, epoll and eventfds, search
// index snapshots.
constexpr std::int64_t kProcessReserve = 64;
constexpr std::int64_t kMinStorageFiles = 32;
constexpr std::int64_t kMaxStorageFiles = 100000;

}  // namespace

DescriptorBudget DivideDescriptors(std::uint64_t limit, std::int64_t requested) {
  DescriptorBudget out;
  out.limit = limit;
  const auto n = static_cast<std::int64_t>(std::min<std::uint64_t>(limit, 1ULL << 40));
  const std::int64_t storage = std::clamp(n / 10, kMinStorageFiles, kMaxStorageFiles);
  out.storage_open_files = static_cast<int>(storage);
  const std::int64_t ceiling = std::max<std::int64_t>(1, n - storage - kProcessReserve);
  const std::int64_t wanted = requested > 0 ? requested : std::min(kMongodMaxConns, n * 8 / 10);
  out.max_connections = std::min(wanted, ceiling);
  if (requested > 0 && requested > ceiling) {
    out.warning = "maxConns " + std::to_string(requested) + " is more than the descriptor limit (" +
                  std::to_string(limit) + ") leaves after storage; using " +
                  std::to_string(out.max_connections);
  }
  return out;
}

DescriptorBudget PlanDescriptors(std::int64_t requested) {
  rlimit limits{};
  if (getrlimit(RLIMIT_NOFILE, &limits) != 0) return DivideDescriptors(1024, requested);
  if (limits.rlim_cur < limits.rlim_max) {
    rlimit raised = limits;
    raised.rlim_cur = limits.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limits = raised;
  }
  return DivideDescriptors(limits.rlim_cur == RLIM_INFINITY ? kMongodMaxConns * 2 : limits.rlim_cur,
                           requested);
}

}  // namespace quarry::main
