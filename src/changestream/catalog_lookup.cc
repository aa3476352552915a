// Catalog-backed event sources.
#include "changestream/catalog_lookup.h"

namespace quarry::changestream {

DocumentLookup MakeCatalogDocumentLookup(const catalog::Catalog* catalog,
                                         const storage::RecordStore* records) {
  return [catalog, records](std::string_view db, std::string_view coll, std::string_view uuid,
                            bson::ValueView id) -> StatusWith<std::optional<bson::Document>> {
    std::shared_ptr<const catalog::CollectionInfo> info = catalog->Find(db, coll);
    if (info == nullptr) return std::optional<bson::Document>();
    if (!uuid.empty() && info->uuid.view() != uuid) return std::optional<bson::Document>();
    return records->FindById(info->id, id);
  };
}

ImagesEnabled MakeCatalogImagesEnabled(const catalog::Catalog* catalog) {
  return [catalog](std::string_view db, std::string_view coll) {
    std::shared_ptr<const catalog::CollectionInfo> info = catalog->Find(db, coll);
    if (info == nullptr) return false;
    bson::ValueView option = info->options.Get("changeStreamPreAndPostImages");
    if (option.type() != bson::Type::kDocument) return false;
    bson::ValueView enabled = option.Document().Get("enabled");
    return enabled.type() == bson::Type::kBool && enabled.Bool();
  };
}

EventSources MakeCatalogEventSources(const catalog::Catalog* catalog,
                                     const storage::RecordStore* records) {
  return EventSources{MakeCatalogDocumentLookup(catalog, records),
                      MakeCatalogImagesEnabled(catalog)};
}

}  // namespace quarry::changestream
