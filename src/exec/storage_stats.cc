#include "exec/storage_stats.h"

#include <algorithm>

#include "bson/builder.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::exec {

// What an index reports at least, as an empty WiredTiger index file does. RocksDB estimates a
// key range that lies inside one block of a file as 0 bytes, and the _id index is the records'
// own order, with no range of its own.
constexpr std::uint64_t kMinIndexBytes = 4096;

std::vector<IndexSize> IndexSizes(const ExecContext& ctx, const catalog::CollectionInfo& info) {
  std::vector<IndexSize> sizes;
  for (const catalog::IndexInfo& index : info.indexes) {
    if (!index.ready) continue;
    const std::uint64_t estimate =
        index.id == 0 ? 0 : ctx.engine->indexes().ApproximateSize(index.id);
    sizes.push_back({std::string(index.name()), std::max(estimate, kMinIndexBytes)});
  }
  return sizes;
}

bson::Document StorageStats(const ExecContext& ctx, const Collection& collection,
                            std::int64_t scale) {
  storage::CollectionStats stats = ctx.engine->records().Stats(collection.id);
  auto storage_size =
      static_cast<std::int64_t>(ctx.engine->records().ApproximateStorageSize(collection.id));
  std::vector<IndexSize> indexes = IndexSizes(ctx, *collection.info);
  std::int64_t total_index_size = 0;
  for (const IndexSize& index : indexes) total_index_size += static_cast<std::int64_t>(index.bytes);
  bson::DocumentBuilder b;
  b.AppendInt64("size", stats.data_bytes / scale)
      .AppendInt64("count", stats.count)
      .AppendInt64("avgObjSize", stats.count > 0 ? stats.data_bytes / stats.count : 0)
      .AppendInt64("storageSize", storage_size / scale)
      .AppendInt64("freeStorageSize", 0)
      .AppendBool("capped", collection.info->is_capped());
  if (collection.info->is_capped()) {
    const catalog::CappedLimits limits = collection.info->capped_limits();
    b.AppendNumber("max", limits.max_documents).AppendNumber("maxSize", limits.max_bytes / scale);
  }
  b.AppendInt32("nindexes", static_cast<std::int32_t>(indexes.size()))
      .AppendInt64("totalIndexSize", total_index_size / scale)
      .AppendInt64("totalSize", (storage_size + total_index_size) / scale);
  b.OpenDocument("indexSizes");
  for (const IndexSize& index : indexes) {
    b.AppendInt64(index.name, static_cast<std::int64_t>(index.bytes) / scale);
  }
  b.Close();
  b.AppendNumber("scaleFactor", scale);
  return std::move(b).Finish();
}

}  // namespace quarry::exec
