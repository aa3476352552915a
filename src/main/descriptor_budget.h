// How quarryd shares its file descriptors between client connections and the storage engine,
// so that neither can take the descriptors the other needs.
#pragma once

#include <cstdint>
#include <string>

namespace quarry::main {

struct DescriptorBudget {
  std::uint64_t limit = 0;           // RLIMIT_NOFILE's soft limit, after raising it
  std::int64_t max_connections = 0;  // client connections accepted at once
  int storage_open_files = 0;        // RocksDB's max_open_files (its table files)
  std::string warning;               // non-empty when a requested maxConns was lowered
};

// Raises the soft descriptor limit to the hard one, then divides it. `requested` is --maxConns
// (0: mongod's default, 80% of the limit, at most 1,000,000). Connections never get the
// descriptors reserved for storage (a tenth of the limit, at least 32, for table files) and for
// the rest of the process (logs, WAL, listeners, the io threads' epoll); a larger request is
// lowered with a warning, as mongod lowers one above its rlimit.
DescriptorBudget PlanDescriptors(std::int64_t requested);

// The same division for a given limit (what PlanDescriptors does after raising it).
DescriptorBudget DivideDescriptors(std::uint64_t limit, std::int64_t requested);

}  // namespace quarry::main
