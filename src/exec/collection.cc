#include "exec/collection.h"

namespace quarry::exec {
namespace {

Collection FromInfo(std::shared_ptr<const catalog::CollectionInfo> info) {
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

}  // namespace

std::optional<Collection> LookupCollection(const catalog::Catalog& catalog, std::string_view db,
                                           std::string_view name, const storage::Transaction* txn) {
  std::shared_ptr<const catalog::CollectionInfo> info =
      txn == nullptr ? catalog.Find(db, name) : catalog.FindInTransaction(db, name, *txn);
  if (info == nullptr) return std::nullopt;
  return FromInfo(std::move(info));
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
  if (txn != nullptr) {
    if (std::optional<Collection> found = LookupCollection(catalog, db, name, txn)) return *found;
    QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const catalog::CollectionInfo> info,
                            catalog.CreateInTransaction(db, name, {}, *txn));
    return FromInfo(std::move(info));
  }
  if (std::shared_ptr<const catalog::CollectionInfo> info = catalog.Find(db, name)) {
    return FromInfo(std::move(info));
  }
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const catalog::CollectionInfo> info,
                          catalog.EnsureCollection(db, name, ddl));
  return FromInfo(std::move(info));
}

}  // namespace quarry::exec
