// What the catalog knows about one collection, and its persisted form (a BSON document in the
// catalog family; docs/formats/storage-layout.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "catalog/uuid.h"
#include "storage/types.h"

namespace quarry::catalog {

struct CollectionInfo {
  std::string db;
  std::string name;
  Uuid uuid;
  storage::CollectionId id = 0;  // never reused; the prefix of the collection's record keys
  bson::Document options;        // as given to create, minus create itself
  // Index specs; the first is always the _id index {v: 2, key: {_id: 1}, name: "_id_"}.
  std::vector<bson::Document> indexes;
  std::int64_t created_ms = 0;

  std::string ns() const { return db + "." + name; }

  // {db, name, uuid: BinData(4), id: Long, options, indexes: [...], created: Date}
  bson::Document ToBson() const;
  // Fails with kInternalError when the entry is not one ToBson wrote.
  static StatusWith<CollectionInfo> FromBson(bson::DocumentView doc);
};

// {v: 2, key: {_id: 1}, name: "_id_"}
bson::Document IdIndexSpec();

}  // namespace quarry::catalog
