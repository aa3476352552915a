#include "commands/aggregate/aggregate_io.h"

#include <random>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "commands/collection_access.h"
#include "commands/crud/matching.h"
#include "base/clock.h"
#include "storage/engine.h"
#include "storage/record_store.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

constexpr std::size_t kDocumentsPerCommit = 1000;

// `doc` with an _id: pipeline output written to a collection gets one generated when it has none.
bson::Document WithId(bson::Document doc) {
  if (doc.Get("_id").exists()) return doc;
  bson::DocumentBuilder with_id;
  with_id.AppendObjectId("_id", bson::ObjectId::Generate());
  with_id.AppendElements(doc);
  return std::move(with_id).Finish();
}

// Commits `unit` and fails with the first error of any mutation.
Status CommitAll(CommandContext& ctx, storage::WriteUnit unit) {
  if (unit.empty()) return Status::OK();
  QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                          ctx.engine().pipeline().Commit(std::move(unit), CommitOptionsFor(ctx, true)));
  if (!result.errors.empty()) return result.errors.front().status;
  return result.sync_status;
}

}  // namespace

AggregateIo::AggregateIo(ServiceState& service, const WriteConcern& write_concern)
    : ctx_(service, connection_) {
  ctx_.set_write_concern(write_concern);
}

query::PipelineContext AggregateIo::MakePipelineContext(const std::string& db,
                                                        bson::DocumentView let,
                                                        bool allow_disk_use) {
  query::PipelineContext pipeline;
  pipeline.db = db;
  pipeline.let = bson::Document::Copy(let);
  pipeline.allow_disk_use = allow_disk_use;
  std::shared_ptr<AggregateIo> self = shared_from_this();
  pipeline.open_collection = [self](const std::string& from_db, const std::string& coll)
      -> StatusWith<std::unique_ptr<query::DocumentStream>> {
    return self->OpenCollection(from_db, coll);
  };
  pipeline.write_out = [self](const query::OutTarget& target, query::DocumentStream* docs) {
    return self->WriteOut(target, docs);
  };
  pipeline.write_merge = [self](const query::MergeSpec& spec, query::DocumentStream* docs) {
    return self->WriteMerge(spec, docs);
  };
  return pipeline;
}

std::unique_ptr<query::DocumentStream> AggregateIo::OpenCollection(const std::string& db,
                                                                   const std::string& coll,
                                                                   bson::DocumentView filter) {
  std::optional<CollectionHandle> collection = LookupCollection(ctx_, db, coll);
  if (!collection.has_value()) return query::StreamOfDocuments({});
  return query::StreamOfRecords(RecordsOf(ctx_, *collection, filter));
}

StatusWith<query::Batch> AggregateIo::CollStatsBatch(const std::string& db, const std::string& coll) {
  std::optional<CollectionHandle> collection = LookupCollection(ctx_, db, coll);
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [" +
                      db + "." + coll + "] not found.");
  }
  storage::CollectionStats stats = ctx_.engine().records().Stats(collection->id);
  auto storage_size = static_cast<std::int64_t>(
      ctx_.engine().records().ApproximateStorageSize(collection->id));
  bson::DocumentBuilder b;
  b.AppendString("ns", collection->ns);
  b.AppendString("host", ctx_.service().host_name + ":" + std::to_string(ctx_.service().config.port));
  b.AppendDate("localTime", NowMillis());
  b.OpenDocument("storageStats")
      .AppendInt64("size", stats.data_bytes)
      .AppendInt64("count", stats.count)
      .AppendInt64("avgObjSize", stats.count > 0 ? stats.data_bytes / stats.count : 0)
      .AppendInt64("storageSize", storage_size)
      .AppendInt64("freeStorageSize", 0)
      .AppendBool("capped", false)
      .AppendInt32("nindexes", static_cast<std::int32_t>(collection->info->indexes.size()))
      .AppendInt64("totalIndexSize", 0)
      .AppendInt64("totalSize", storage_size)
      .OpenDocument("indexSizes")
      .AppendInt64("_id_", 0)
      .Close()
      .AppendInt32("scaleFactor", 1)
      .Close();
  query::Batch batch;
  batch.documents.push_back(std::move(b).Finish());
  batch.bytes = batch.documents.back().size();
  return batch;
}

Status AggregateIo::WriteOut(const query::OutTarget& target, query::DocumentStream* docs) {
  // As mongod: fill a temporary collection, then rename it over the target in one step, so
  // readers see the old contents or the new, never a mix.
  std::random_device rd;
  std::string temp = "tmp.agg_out." + std::to_string(rd()) + std::to_string(rd());
  catalog::DdlOptions ddl = DdlOptionsFor(ctx_);
  QUARRY_ASSIGN_OR_RETURN(auto created, ctx_.catalog().CreateCollection(target.db, temp, {}, ddl));
  CollectionHandle collection = *LookupCollection(ctx_, target.db, temp);
  (void)created;
  Status status = [&]() -> Status {
    storage::WriteUnit unit;
    bson::Document doc;
    while (true) {
      QUARRY_ASSIGN_OR_RETURN(bool more, docs->Next(&doc));
      if (!more) break;
      doc = WithId(std::move(doc));
      unit.Insert(collection.ref(), doc);
      if (unit.size() >= kDocumentsPerCommit) {
        QUARRY_RETURN_IF_ERROR(CommitAll(ctx_, std::move(unit)));
        unit = storage::WriteUnit();
      }
    }
    QUARRY_RETURN_IF_ERROR(CommitAll(ctx_, std::move(unit)));
    return ctx_.catalog().RenameCollection(target.db, temp, target.db, target.coll,
                                           /*drop_target=*/true, ddl);
  }();
  if (!status.ok()) (void)ctx_.catalog().DropCollection(target.db, temp, ddl);
  return status;
}

Status AggregateIo::WriteMerge(const query::MergeSpec& spec, query::DocumentStream* docs) {
  QUARRY_ASSIGN_OR_RETURN(CollectionHandle collection,
                          EnsureCollection(ctx_, spec.into.db, spec.into.coll));
  bool by_id = spec.on.size() == 1 && spec.on.front() == "_id";
  bson::Document doc;
  while (true) {
    QUARRY_ASSIGN_OR_RETURN(bool more, docs->Next(&doc));
    if (!more) break;
    doc = WithId(std::move(doc));
    std::optional<bson::Document> existing;
    if (by_id) {
      QUARRY_ASSIGN_OR_RETURN(existing, ReadById(ctx_, collection, doc.Get("_id")));
    } else {
      bson::DocumentBuilder filter;
      for (const std::string& field : spec.on) {
        bson::ValueView v = doc.Get(field);
        if (!v.exists()) {
          return Status(static_cast<ErrorCode>(51132),
                        "$merge write error: 'on' field '" + field + "' cannot be missing");
        }
        filter.Append(field, v);
      }
      QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(std::move(filter).Finish()));
      QUARRY_RETURN_IF_ERROR(ForEachMatch(ctx_, collection, matcher,
                                          [&](bson::DocumentView found, const query::MatchDetails&) {
                                            existing = bson::Document::Copy(found);
                                            return false;
                                          }));
    }
    storage::WriteUnit unit;
    if (!existing.has_value()) {
      if (spec.when_not_matched == query::MergeSpec::WhenNotMatched::kDiscard) continue;
      if (spec.when_not_matched == query::MergeSpec::WhenNotMatched::kFail) {
        return Status(static_cast<ErrorCode>(13113),
                      "$merge could not find a matching document in the target collection");
      }
      unit.Insert(collection.ref(), doc);
    } else {
      if (spec.when_matched == query::MergeSpec::WhenMatched::kFail) {
        // mongod inserts and lets the unique index refuse it: the same E11000 error, with
        // keyPattern and keyValue, as an insert of this document gets.
        storage::WriteUnit insert;
        insert.Insert(collection.ref(), doc);
        QUARRY_RETURN_IF_ERROR(CommitAll(ctx_, std::move(insert)));
        continue;
      }
      if (spec.when_matched == query::MergeSpec::WhenMatched::kKeepExisting) continue;
      QUARRY_ASSIGN_OR_RETURN(bson::Document merged, query::MergeDocuments(spec, *existing, doc));
      if (!merged.Get("_id").exists() || merged.Get("_id").ToJson() != existing->Get("_id").ToJson()) {
        bson::DocumentBuilder fixed;
        fixed.Append("_id", existing->Get("_id"));
        for (const bson::Element& e : merged.view()) {
          if (e.key != "_id") fixed.Append(e.key, e.value);
        }
        merged = std::move(fixed).Finish();
      }
      unit.Update(collection.ref(), *existing, merged,
                  spec.when_matched == query::MergeSpec::WhenMatched::kReplace
                      ? storage::UpdateKind::kReplace
                      : storage::UpdateKind::kModify);
    }
    QUARRY_RETURN_IF_ERROR(CommitAll(ctx_, std::move(unit)));
  }
  return Status::OK();
}

}  // namespace quarry::commands
