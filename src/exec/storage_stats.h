// A collection's storage figures in $collStats' storageStats shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bson/value.h"
#include "catalog/collection_info.h"
#include "exec/collection.h"
#include "exec/exec_context.h"

namespace quarry::exec {

// {size, count, avgObjSize, storageSize, freeStorageSize, capped, nindexes, totalIndexSize,
// totalSize, indexSizes, scaleFactor}: the count and size are exact (kept by every commit),
// the storage and index sizes are RocksDB's estimates of the compressed bytes. Sizes but
// avgObjSize are in units of `scale` bytes, rounded down, as mongod gives them.
bson::Document StorageStats(const ExecContext& ctx, const Collection& collection,
                            std::int64_t scale = 1);

struct IndexSize {
  std::string name;
  std::uint64_t bytes = 0;
};

// The ready indexes of `info` and their approximate sizes on disk and in memory. The _id index
// is the records' own order and takes no space of its own: 0.
std::vector<IndexSize> IndexSizes(const ExecContext& ctx, const catalog::CollectionInfo& info);

}  // namespace quarry::exec
