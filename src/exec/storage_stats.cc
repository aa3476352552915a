#include "exec/storage_stats.h"

#include "bson/builder.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::exec {

bson::Document StorageStats(const ExecContext& ctx, const Collection& collection) {
  storage::CollectionStats stats = ctx.engine->records().Stats(collection.id);
  auto storage_size =
      static_cast<std::int64_t>(ctx.engine->records().ApproximateStorageSize(collection.id));
  bson::DocumentBuilder b;
  b.AppendInt64("size", stats.data_bytes)
      .AppendInt64("count", stats.count)
      .AppendInt64("avgObjSize", stats.count > 0 ? stats.data_bytes / stats.count : 0)
      .AppendInt64("storageSize", storage_size)
      .AppendInt64("freeStorageSize", 0)
      .AppendBool("capped", false)
      .AppendInt32("nindexes", static_cast<std::int32_t>(collection.info->indexes.size()))
      .AppendInt64("totalIndexSize", 0)
      .AppendInt64("totalSize", storage_size)
      .OpenDocument("indexSizes")
      .AppendInt64("_id_", 0)
      .Close()
      .AppendInt32("scaleFactor", 1);
  return std::move(b).Finish();
}

}  // namespace quarry::exec
