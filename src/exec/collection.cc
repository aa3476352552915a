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
                                           std::string_view name) {
  std::shared_ptr<const catalog::CollectionInfo> info = catalog.Find(db, name);
  if (info == nullptr) return std::nullopt;
  return FromInfo(std::move(info));
}

StatusWith<Collection> EnsureCollection(catalog::Catalog& catalog, std::string_view db,
                                        std::string_view name, const catalog::DdlOptions& ddl) {
  if (std::shared_ptr<const catalog::CollectionInfo> info = catalog.Find(db, name)) {
    return FromInfo(std::move(info));
  }
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const catalog::CollectionInfo> info,
                          catalog.EnsureCollection(db, name, ddl));
  return FromInfo(std::move(info));
}

}  // namespace quarry::exec
