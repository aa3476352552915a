// dbStats and collStats: counts and sizes from the storage layer's exact per-collection
// counters and RocksDB's size estimates.
#include <string>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "exec/storage_stats.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {
namespace {

StatusWith<double> Scale(RequestParser& args) {
  QUARRY_ASSIGN_OR_RETURN(std::int64_t scale, args.OptionalInt("scale", 1));
  if (scale < 1) return Status(ErrorCode::kBadValue, "Scale factor must be greater than zero");
  return static_cast<double>(scale);
}

StatusWith<bson::Document> RunDbStats(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(double scale, Scale(args));
  args.Ignore({"freeStorage"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  std::int64_t collections = 0;
  std::int64_t objects = 0;
  std::int64_t data_size = 0;
  std::int64_t storage_size = 0;
  std::int64_t indexes = 0;
  std::int64_t index_size = 0;
  std::int64_t views = 0;
  for (const auto& info : ctx.catalog().ListCollections(request.db)) {
    if (info->is_view()) {
      ++views;
      continue;
    }
    storage::CollectionStats stats = ctx.engine().records().Stats(info->id);
    for (const exec::IndexSize& index : exec::IndexSizes(ExecContextOf(ctx), *info)) {
      ++indexes;
      index_size += static_cast<std::int64_t>(index.bytes);
    }
    ++collections;
    objects += stats.count;
    data_size += stats.data_bytes;
    storage_size +=
        static_cast<std::int64_t>(ctx.engine().records().ApproximateStorageSize(info->id));
  }
  bson::DocumentBuilder b;
  b.AppendString("db", request.db);
  b.AppendInt64("collections", collections);
  b.AppendInt64("views", views);
  b.AppendInt64("objects", objects);
  b.AppendDouble("avgObjSize", objects == 0 ? 0.0 : static_cast<double>(data_size) / objects);
  b.AppendDouble("dataSize", data_size / scale);
  b.AppendDouble("storageSize", storage_size / scale);
  b.AppendInt64("indexes", indexes);
  b.AppendDouble("indexSize", index_size / scale);
  b.AppendDouble("totalSize", (storage_size + index_size) / scale);
  b.AppendDouble("scaleFactor", scale);
  b.AppendDouble("fsUsedSize", 0);
  b.AppendDouble("fsTotalSize", 0);
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunCollStats(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_ASSIGN_OR_RETURN(double scale, Scale(args));
  args.Ignore({"verbose"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (IsReplicationCollection(ctx.service(), request.db, coll)) {
    return ReplicationCollectionStats(ctx, coll, scale);
  }
  std::string ns = request.db + "." + coll;
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, request.db, coll));
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound, "Collection [" + ns + "] not found.");
  }
  storage::CollectionStats stats = ctx.engine().records().Stats(collection->id);
  auto storage_size =
      static_cast<double>(ctx.engine().records().ApproximateStorageSize(collection->id));
  std::vector<exec::IndexSize> indexes = exec::IndexSizes(ExecContextOf(ctx), *collection->info);
  double total_index_size = 0;
  for (const exec::IndexSize& index : indexes) total_index_size += static_cast<double>(index.bytes);
  bson::DocumentBuilder b;
  b.AppendString("ns", ns);
  b.AppendDouble("size", stats.data_bytes / scale);
  b.AppendInt64("count", stats.count);
  if (stats.count > 0) b.AppendInt64("avgObjSize", stats.data_bytes / stats.count);
  b.AppendDouble("storageSize", storage_size / scale);
  b.AppendInt32("nindexes", static_cast<std::int32_t>(indexes.size()));
  b.AppendDouble("totalIndexSize", total_index_size / scale);
  b.AppendDouble("totalSize", (storage_size + total_index_size) / scale);
  b.OpenDocument("indexSizes");
  for (const exec::IndexSize& index : indexes) {
    b.AppendDouble(index.name, static_cast<double>(index.bytes) / scale);
  }
  b.Close();
  b.AppendBool("capped", collection->info->is_capped());
  if (collection->info->is_capped()) {
    const catalog::CappedLimits limits = collection->info->capped_limits();
    b.AppendNumber("max", limits.max_documents);
    b.AppendNumber("maxSize", limits.max_bytes / static_cast<std::int64_t>(scale));
  }
  b.AppendDouble("scaleFactor", scale);
  return std::move(b).Finish();
}

}  // namespace

void RegisterStatsCommands(CommandRegistry& registry) {
  registry.Add({.name = "dbStats",
                .run = RunDbStats,
                .aliases = {"dbstats"},
                .auth = OnDatabase({auth::ActionType::kDbStats})});
  registry.Add({.name = "collStats",
                .run = RunCollStats,
                .aliases = {"collstats"},
                .auth = OnNamespace({auth::ActionType::kCollStats})});
}

}  // namespace quarry::commands
