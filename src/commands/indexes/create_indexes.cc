// createIndexes: checks the specs, lists the new indexes in the catalog (not ready, so writes
// maintain them and queries ignore them), builds them from the existing records while writes go
// on, then marks them ready and logs the command. A build that fails (duplicate keys of a
// unique index, parallel arrays, the operation killed) removes its indexes and their keys.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "bson/compare.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/indexes/index_specs.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "exec/index_build.h"
#include "exec/index_usage.h"
#include "storage/engine.h"
#include "storage/record_store.h"
#include "storage/transaction.h"

namespace quarry::commands {
namespace {

constexpr std::size_t kMaxIndexesPerCollection = 64;

StatusWith<std::vector<bson::Document>> ParseSpecs(bson::ValueView indexes,
                                                   bool ignore_unknown_options) {
  if (indexes.type() != bson::Type::kArray || indexes.Document().empty()) {
    return Status(ErrorCode::kBadValue, "Must specify at least one index to create");
  }
  std::vector<bson::Document> specs;
  for (const bson::Element& e : indexes.Document()) {
    if (e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kTypeMismatch, "The 'indexes' entries must be objects");
    }
    QUARRY_ASSIGN_OR_RETURN(bson::Document spec,
                            NormalizeIndexSpec(e.value.Document(), ignore_unknown_options));
    specs.push_back(std::move(spec));
  }
  return specs;
}

// The specs that are not there yet, in request order, without repeats; fails on a conflict.
StatusWith<std::vector<bson::Document>> NewSpecs(const catalog::CollectionInfo& info,
                                                 std::vector<bson::Document> specs) {
  std::vector<bson::Document> fresh;
  catalog::CollectionInfo with_fresh = info;
  for (bson::Document& requested : specs) {
    QUARRY_ASSIGN_OR_RETURN(bson::Document spec, ResolveIndexCollation(requested, info.options));
    // Every collection has its _id index already, whatever name the request gives it (mongod
    // accepts pymongo's create_index("_id") as a no-op), but only with the collection's collation.
    if (IsIdIndexKey(spec.Get("key").Document())) {
      if (requested.Get("collation").exists() &&
          bson::CompareValues(spec.Get("collation"), info.options.Get("collation")) != 0) {
        return Status(ErrorCode::kCannotCreateIndex,
                      "_id index must have the collection default collation");
      }
      continue;
    }
    QUARRY_ASSIGN_OR_RETURN(IndexMatch match, MatchExistingIndex(with_fresh, spec));
    if (match == IndexMatch::kSame) continue;
    if (info.is_capped() && spec.Get("expireAfterSeconds").exists()) {
      return Status(ErrorCode::kCannotCreateIndex,
                    "Cannot create TTL index on a capped collection");
    }
    with_fresh.indexes.emplace_back().spec = spec;
    fresh.push_back(std::move(spec));
  }
  if (info.indexes.size() + fresh.size() > kMaxIndexesPerCollection) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "add index fails, too many indexes for " + info.ns() +
                      " key:" + fresh.back().Get("key").Document().ToJson());
  }
  return fresh;
}

bool IsNamed(const catalog::IndexInfo& index, const std::vector<bson::Document>& specs) {
  for (const bson::Document& spec : specs) {
    if (spec.Get("name").String() == index.name()) return true;
  }
  return false;
}

// A build's failure as the client sees it: a drop of the collection or index under it aborts it;
// a killOp of the createIndexes fails it with Interrupted and the context mongod adds when the
// command's own operation is killed.
Status BuildFailure(Status status, const catalog::CollectionInfo& info) {
  if (status.code() == ErrorCode::kInterrupted) {
    return Status(status.code(), "Index build failed: " + catalog::Uuid::Random().ToString() +
                                     ": Collection " + info.ns() + " ( " + info.uuid.ToString() +
                                     " ) :: caused by :: " + std::string(status.reason()));
  }
  if (status.code() != ErrorCode::kWriteConflict) return status;
  return Status(ErrorCode::kIndexBuildAborted,
                "Index build aborted: " + std::string(status.reason()));
}

// currentOp shows the scan as mongod's build does: records done of those there at the start.
std::function<void(std::uint64_t)> ProgressReporter(CommandContext& ctx,
                                                    const catalog::CollectionInfo& info) {
  const auto total = static_cast<std::uint64_t>(ctx.engine().records().Count(info.id));
  auto report = [&ctx, total](std::uint64_t done) {
    ctx.ReportProgress(
        {.message = "Index Build: scanning collection", .done = done, .total = total});
  };
  report(0);
  return report;
}

// Builds `specs` on `db.coll`; the caller holds the collection's index_ddl lock.
Status CreateAndBuild(CommandContext& ctx, const std::string& db, const std::string& coll,
                      const std::vector<bson::Document>& specs, bson::DocumentView oplog_o) {
  catalog::Catalog& catalog = ctx.catalog();
  const catalog::DdlOptions ddl = DdlOptionsFor(ctx);
  auto list = [&specs](catalog::CollectionInfo* info) {
    for (const bson::Document& spec : specs) {
      catalog::IndexInfo& index = info->indexes.emplace_back();
      index.spec = spec;
      index.ready = false;
    }
    return Status::OK();
  };
  QUARRY_RETURN_IF_ERROR(catalog.ModifyCollection(db, coll, list, bson::DocumentView(), ddl));
  std::shared_ptr<const catalog::CollectionInfo> info = catalog.Find(db, coll);
  if (info == nullptr) {
    return Status(ErrorCode::kIndexBuildAborted, "Index build aborted: the collection was dropped");
  }
  std::vector<storage::IndexId> ids;
  for (const catalog::IndexInfo& index : info->indexes) {
    if (IsNamed(index, specs)) ids.push_back(index.id);
  }
  Status built = exec::BuildIndexes(ExecContextOf(ctx), *info, ids, ProgressReporter(ctx, *info));
  if (!built.ok()) {
    auto unlist = [&specs](catalog::CollectionInfo* info) {
      std::erase_if(info->indexes,
                    [&specs](const catalog::IndexInfo& index) { return IsNamed(index, specs); });
      return Status::OK();
    };
    // Gone with the collection when it was dropped; otherwise the keys go with the specs.
    (void)catalog.ModifyCollection(db, coll, unlist, bson::DocumentView(), ddl, ids);
    return BuildFailure(std::move(built), *info);
  }
  const std::uint64_t ready_at = ctx.engine().oplog().LatestTimestamp() + 1;
  auto ready = [&specs, ready_at](catalog::CollectionInfo* info) {
    for (catalog::IndexInfo& index : info->indexes) {
      if (!IsNamed(index, specs)) continue;
      index.ready = true;
      index.runtime->ready_at.store(ready_at);
    }
    return Status::OK();
  };
  for (storage::IndexId id : ids) exec::ResetIndexUsage(id);  // counted from its creation
  return catalog.ModifyCollection(db, coll, ready, oplog_o, ddl);
}

bson::Document CreateIndexesReply(std::size_t before, std::size_t added, bool existed) {
  bson::DocumentBuilder b;
  b.AppendInt32("numIndexesBefore", static_cast<std::int32_t>(before));
  b.AppendInt32("numIndexesAfter", static_cast<std::int32_t>(before + added));
  b.AppendBool("createdCollectionAutomatically", !existed);
  if (added == 0) b.AppendString("note", "all indexes already exist");
  return std::move(b).Finish();
}

bson::Document CreateIndexesOplogEntry(const std::string& coll,
                                       const std::vector<bson::Document>& fresh) {
  bson::DocumentBuilder o;
  o.AppendString("createIndexes", coll);
  o.OpenArray("indexes");
  for (std::size_t i = 0; i < fresh.size(); ++i) o.AppendDocument(std::to_string(i), fresh[i]);
  o.Close();
  return std::move(o).Finish();
}

StatusWith<bool> HasRecords(const storage::RecordStore& records, storage::CollectionId id) {
  std::unique_ptr<storage::RecordCursor> cursor = records.Scan(id);
  QUARRY_RETURN_IF_ERROR(cursor->status());
  return cursor->Valid();
}

// mongod's rules inside a transaction: indexes that exist already are accepted anywhere; new
// ones only on a collection the transaction created (or creates now) and has not written to,
// so they have no keys to build and commit with the transaction.
StatusWith<bson::Document> CreateIndexesInTransaction(CommandContext& ctx, const std::string& db,
                                                      const std::string& coll,
                                                      std::vector<bson::Document> specs) {
  QUARRY_RETURN_IF_ERROR(CheckTransactionMayCreate(ctx, "indexes"));
  storage::Transaction& txn = *ctx.transaction();
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> found, LookupCollection(ctx, db, coll));
  const bool existed = found.has_value();
  QUARRY_ASSIGN_OR_RETURN(exec::Collection collection, EnsureCollection(ctx, db, coll));
  const catalog::CollectionInfo& info = *collection.info;
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> fresh, NewSpecs(info, std::move(specs)));
  if (fresh.empty()) return CreateIndexesReply(info.indexes.size(), 0, existed);
  const std::string ns = db + "." + coll;
  if (ctx.catalog().Find(db, coll) != nullptr) {
    return Status(ErrorCode::kOperationNotSupportedInTransaction,
                  "Cannot create new indexes on existing collection " + ns +
                      " in a multi-document transaction.");
  }
  QUARRY_ASSIGN_OR_RETURN(bool has_records, HasRecords(txn.records(), info.id));
  if (has_records) {
    return Status(ErrorCode::kOperationNotSupportedInTransaction,
                  "Cannot create new indexes on non-empty collection " + ns +
                      " in a multi-document transaction.");
  }
  auto list = [&fresh](catalog::CollectionInfo* modified) {
    for (const bson::Document& spec : fresh) modified->indexes.emplace_back().spec = spec;
    return Status::OK();
  };
  QUARRY_RETURN_IF_ERROR(
      ctx.catalog().ModifyInTransaction(db, coll, list, CreateIndexesOplogEntry(coll, fresh), txn));
  return CreateIndexesReply(info.indexes.size(), fresh.size(), existed);
}

StatusWith<bson::Document> RunCreateIndexes(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  bson::ValueView indexes = args.Raw("indexes");
  bson::ValueView ignore_unknown = args.Raw("ignoreUnknownIndexOptions");
  // A standalone server has no replica set members to wait for.
  args.Ignore({"commitQuorum"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> specs,
                          ParseSpecs(indexes, ignore_unknown.Truthy()));
  if (ctx.transaction() != nullptr) {
    return CreateIndexesInTransaction(ctx, request.db, coll, std::move(specs));
  }
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> found,
                          LookupCollection(ctx, request.db, coll));
  const bool existed = found.has_value();
  QUARRY_ASSIGN_OR_RETURN(exec::Collection collection, EnsureCollection(ctx, request.db, coll));
  std::lock_guard index_ddl(collection.info->locks->index_ddl);
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog().Find(request.db, coll);
  if (info == nullptr) {
    return Status(ErrorCode::kNamespaceNotFound, "ns does not exist: " + request.db + "." + coll);
  }
  const std::size_t before = info->indexes.size();
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> fresh, NewSpecs(*info, std::move(specs)));
  if (!fresh.empty()) {
    QUARRY_RETURN_IF_ERROR(
        CreateAndBuild(ctx, request.db, coll, fresh, CreateIndexesOplogEntry(coll, fresh)));
  }
  return CreateIndexesReply(before, fresh.size(), existed);
}

}  // namespace

void RegisterCreateIndexesCommand(CommandRegistry& registry) {
  registry.Add({.name = "createIndexes",
                .flags = kAllowedInTransaction | kChangesStoredData,
                .run = RunCreateIndexes,
                .auth = OnNamespace({auth::ActionType::kCreateIndex})});
}

}  // namespace quarry::commands
