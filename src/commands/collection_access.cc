// Adapts storage's record cursors to query/'s RecordSource, and catalog entries to handles.
#include "commands/collection_access.h"

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "query/id_lookup.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {
namespace {

class ScanSource : public query::RecordSource {
 public:
  explicit ScanSource(std::unique_ptr<storage::RecordCursor> cursor) : cursor_(std::move(cursor)) {}
  bool Valid() const override { return cursor_->Valid(); }
  void Next() override { cursor_->Next(); }
  std::string_view key() const override { return cursor_->id_key(); }
  bson::DocumentView document() const override { return cursor_->document(); }
  Status status() const override { return cursor_->status(); }

 private:
  std::unique_ptr<storage::RecordCursor> cursor_;
};

// Zero or one record: the answer of a point lookup by _id.
class PointSource : public query::RecordSource {
 public:
  PointSource(std::string id_key, std::optional<bson::Document> doc, Status status)
      : id_key_(std::move(id_key)), doc_(std::move(doc)), status_(std::move(status)) {}
  bool Valid() const override { return doc_.has_value() && !consumed_; }
  void Next() override { consumed_ = true; }
  std::string_view key() const override { return id_key_; }
  bson::DocumentView document() const override { return doc_->view(); }
  Status status() const override { return status_; }

 private:
  std::string id_key_;
  std::optional<bson::Document> doc_;
  Status status_;
  bool consumed_ = false;
};

CollectionHandle MakeHandle(std::shared_ptr<const catalog::CollectionInfo> info) {
  CollectionHandle handle;
  handle.id = info->id;
  handle.db = info->db;
  handle.name = info->name;
  handle.ns = info->ns();
  handle.uuid = std::string(info->uuid.view());
  bson::ValueView images = info->options.Get("changeStreamPreAndPostImages");
  handle.pre_and_post_images =
      images.type() == bson::Type::kDocument && images.Document().Get("enabled").Truthy();
  handle.info = std::move(info);
  return handle;
}

}  // namespace

std::optional<CollectionHandle> LookupCollection(CommandContext& ctx, const std::string& db,
                                                 const std::string& name) {
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog().Find(db, name);
  if (info == nullptr) return std::nullopt;
  return MakeHandle(std::move(info));
}

StatusWith<CollectionHandle> EnsureCollection(CommandContext& ctx, const std::string& db,
                                              const std::string& name) {
  if (std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog().Find(db, name)) {
    return MakeHandle(std::move(info));
  }
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const catalog::CollectionInfo> info,
                          ctx.catalog().EnsureCollection(db, name, DdlOptionsFor(ctx)));
  return MakeHandle(std::move(info));
}

query::RecordSourceFactory RecordsOf(CommandContext& ctx, const CollectionHandle& collection,
                                     bson::DocumentView filter) {
  storage::RecordStore* records = &ctx.engine().records();
  storage::CollectionId id = collection.id;
  std::optional<bson::ValueView> point = query::IdEqualityValue(filter);
  if (point.has_value()) {
    // The factory may outlive `filter`'s buffer (a cursor's getMore), so keep the key, not the view.
    std::string id_key = storage::EncodeIdKey(*point);
    return [records, id, id_key](std::string_view start_after) -> std::unique_ptr<query::RecordSource> {
      if (!start_after.empty()) {
        return std::make_unique<PointSource>(id_key, std::nullopt, Status::OK());
      }
      StatusWith<std::optional<bson::Document>> doc = records->FindByIdKey(id, id_key);
      if (!doc.ok()) return std::make_unique<PointSource>(id_key, std::nullopt, doc.status());
      return std::make_unique<PointSource>(id_key, std::move(doc).value(), Status::OK());
    };
  }
  return [records, id](std::string_view start_after) -> std::unique_ptr<query::RecordSource> {
    return std::make_unique<ScanSource>(records->Scan(id, start_after));
  };
}

catalog::DdlOptions DdlOptionsFor(const CommandContext& ctx) {
  catalog::DdlOptions ddl;
  ddl.durability = CommitOptionsFor(ctx, true).durability;
  return ddl;
}

storage::CommitOptions CommitOptionsFor(const CommandContext& ctx, bool ordered) {
  storage::CommitOptions options;
  options.ordered = ordered;
  options.durability = ctx.write_concern().journal ? storage::Durability::kJournal
                                                   : storage::Durability::kNone;
  return options;
}

}  // namespace quarry::commands
