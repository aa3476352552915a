// The storage engine's block cache, sized as mongod sizes WiredTiger's cache.
#pragma once

#include <cstddef>

namespace quarry::main {

// `cache_size_gb` (--wiredTigerCacheSizeGB) in bytes when it is above 0; otherwise mongod's
// default: half of the memory less 1 GB, at least 256 MB, where the memory is the machine's
// or the cgroup's limit when that is lower.
std::size_t BlockCacheBytes(double cache_size_gb);

}  // namespace quarry::main
