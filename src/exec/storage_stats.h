// A collection's storage figures in $collStats' storageStats shape.
#pragma once

#include "bson/value.h"
#include "exec/collection.h"
#include "exec/exec_context.h"

namespace quarry::exec {

// {size, count, avgObjSize, storageSize, freeStorageSize, capped, nindexes, totalIndexSize,
// totalSize, indexSizes, scaleFactor}: the count and size are exact (kept by every commit),
// the storage size is RocksDB's estimate of the compressed bytes.
bson::Document StorageStats(const ExecContext& ctx, const Collection& collection);

}  // namespace quarry::exec
