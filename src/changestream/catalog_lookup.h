// EventSources backed by the catalog and the record store: the current document for
// fullDocument: "updateLookup", and the collection's changeStreamPreAndPostImages option.
#pragma once

#include "catalog/catalog.h"
#include "changestream/event_builder.h"
#include "storage/record_store.h"

namespace quarry::changestream {

// Looks the collection up by name, gives nullopt when it is gone or now has another UUID (it
// was dropped and re-created), else RecordStore::FindById. Both must outlive the lookup.
DocumentLookup MakeCatalogDocumentLookup(const catalog::Catalog* catalog,
                                         const storage::RecordStore* records);

// The collection's current `changeStreamPreAndPostImages: {enabled: true}` option.
ImagesEnabled MakeCatalogImagesEnabled(const catalog::Catalog* catalog);

// Both of the above.
EventSources MakeCatalogEventSources(const catalog::Catalog* catalog,
                                     const storage::RecordStore* records);

}  // namespace quarry::changestream
