#include "exec/collection.h"

#include <algorithm>
#include <memory>

namespace quarry::exec {

Collection CollectionOf(std::shared_ptr<const catalog::CollectionInfo> info) {
  Collection collection;
  collection.id = info->id;
  collection.db = info->db;
  collection.name = info->name;
  collection.ns = info->ns();
  collection.uuid = std::string(info->uuid.view());
  bson::ValueView images = info->options.Get("changeStreamPreAndPostImages");
  collection.pre_and_post_images =
      images.type() == bson::Type::kDocument && images.Document().Get("enabled").Truthy();
  collection.info = std::move(info);
  return collection;
}

namespace {

// `info` as a read of the snapshot at `read_timestamp` may use it: an index built since holds no
// keys there, so the read's plans must not see it ready.
std::shared_ptr<const catalog::CollectionInfo> AsOf(
    std::shared_ptr<const catalog::CollectionInfo> info, storage::Timestamp read_timestamp) {
  auto newer = [read_timestamp](const catalog::IndexInfo& index) {
    return index.ready && index.runtime->ready_at.load() > read_timestamp;
  };
  if (std::ranges::none_of(info->indexes, newer)) return info;
  auto older = std::make_shared<catalog::CollectionInfo>(*info);
  for (catalog::IndexInfo& index : older->indexes) {
    if (newer(index)) index.ready = false;
  }
  return older;
}

// The collection, or the view, `name`; a collection created when neither exists.
StatusWith<Collection> EnsureCollectionOrView(catalog::Catalog& catalog, std::string_view db,
                                              std::string_view name, const catalog::DdlOptions& ddl,
                                              storage::Transaction* txn) {
  if (txn != nullptr) {
    if (std::optional<Collection> found = LookupCollection(catalog, db, name, txn)) return *found;
    QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const catalog::CollectionInfo> info,
                            catalog.CreateInTransaction(db, name, {}, *txn));
    return CollectionOf(std::move(info));
  }
  if (std::shared_ptr<const catalog::CollectionInfo> info = catalog.Find(db, name)) {
    return CollectionOf(std::move(info));
  }
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const catalog::CollectionInfo> info,
                          catalog.EnsureCollection(db, name, ddl));
  return CollectionOf(std::move(info));
}

}  // namespace

std::optional<Collection> LookupCollection(const catalog::Catalog& catalog, std::string_view db,
                                           std::string_view name, const storage::Transaction* txn) {
  std::shared_ptr<const catalog::CollectionInfo> info =
      txn == nullptr ? catalog.Find(db, name) : catalog.FindInTransaction(db, name, *txn);
  if (info == nullptr) return std::nullopt;
  if (txn != nullptr) info = AsOf(std::move(info), txn->read_timestamp());
  return CollectionOf(std::move(info));
}

StatusWith<HeldCollection> HoldWriters(const catalog::Catalog& catalog,
                                       const Collection& collection) {
  // Every version of a collection's catalog entry shares its locks, so the one taken through
  // `collection` is the current one's.
  std::unique_lock writers(collection.info->locks->writers);
  std::optional<Collection> current = LookupCollection(catalog, collection.db, collection.name);
  if (!current.has_value() || current->id != collection.id) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "Collection '" + collection.ns + "' was dropped while it was validated");
  }
  return HeldCollection{.collection = std::move(*current), .writers = std::move(writers)};
}

StatusWith<Collection> EnsureCollection(catalog::Catalog& catalog, std::string_view db,
                                        std::string_view name, const catalog::DdlOptions& ddl,
                                        storage::Transaction* txn) {
  StatusWith<Collection> ensured = EnsureCollectionOrView(catalog, db, name, ddl, txn);
  if (ensured.ok() && ensured.value().info->is_view()) {
    return Status(
        ErrorCode::kCommandNotSupportedOnView,
        "Namespace " + std::string(db) + "." + std::string(name) + " is a view, not a collection");
  }
  return ensured;
}

}  // namespace quarry::exec
