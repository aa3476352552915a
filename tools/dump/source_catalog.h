// The collections of a source server, as a dump or a copy reads them: each one's options,
// indexes, UUID and type (CollectionMetadata), and its data size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/client/mongo_client.h"
#include "tools/dump/collection_metadata.h"

namespace quarry::tools::dumping {

struct CatalogFilter {
  std::string database;    // empty: every database but local and config
  std::string collection;  // with database: only this collection
  std::vector<std::string> exclude_collections;
};

struct SourceCollection {
  std::string db;
  CollectionMetadata metadata;
  std::int64_t size = 0;  // collStats size, 0 when unknown
};

// The collections (and views) that `filter` selects, without system collections.
StatusWith<std::vector<SourceCollection>> ListSourceCollections(client::MongoClient& client,
                                                                const CatalogFilter& filter);

// The server's version from buildInfo, or "unknown".
std::string ServerVersion(client::MongoClient& client);

}  // namespace quarry::tools::dumping
