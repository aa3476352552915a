// What the catalog knows about one collection, and its persisted form (a BSON document in the
// catalog family; docs/formats/storage-layout.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "catalog/uuid.h"
#include "storage/types.h"

namespace quarry::catalog {

// What one index knows at run time, shared by every version of its catalog entry.
struct IndexRuntime {
  // Some record has produced more than one key for the index (an array in an indexed field).
  // Set before the commit that writes such keys, and persisted with it; never cleared.
  std::atomic<bool> multikey{false};
  // For a wildcard index, the paths whose arrays (or repeated field names) gave some record
  // several keys on one path, sorted: mongod's multikey paths. Set and persisted as `multikey`
  // is (Catalog::MarkMultikeyPaths); guarded by multikey_paths_mu.
  std::mutex multikey_paths_mu;
  std::vector<std::string> multikey_paths;
  // The first cluster time whose snapshot holds the index's every key (its build wrote them
  // after the commits before it); reads of an older snapshot cannot use it. 0: any.
  std::atomic<std::uint64_t> ready_at{0};
  // What a layer above derives from the spec once (exec's parsed index), made on first use.
  std::once_flag derive_once;
  std::shared_ptr<const void> derived;
};

struct IndexInfo {
  bson::Document spec;  // as listIndexes shows it: {v: 2, key, name, <options>}
  // Never reused; the prefix of the index's entries. 0 for the _id index, which is the records'
  // own order (unless it has a collation: then its keys enforce its uniqueness), and for a
  // secondary index not given one yet (an entry from before ids existed).
  storage::IndexId id = 0;
  bool ready = true;  // false while it is built: writers maintain it, queries do not use it
  std::shared_ptr<IndexRuntime> runtime = std::make_shared<IndexRuntime>();

  std::string_view name() const { return spec.Get("name").String(); }
  bson::DocumentView key() const { return spec.Get("key").Document(); }
  bool is_id_index() const { return name() == "_id_"; }
};

// An Atlas search index (createSearchIndexes): the definition as its last update gave it.
struct SearchIndexInfo {
  std::string id;    // 24 hex digits, fixed at creation
  std::string name;  // unique among the collection's search indexes
  std::string type;  // "search" or "vectorSearch"
  bson::Document definition;
  std::int32_t version = 0;     // latestDefinitionVersion.version: 0, then +1 per update
  std::int64_t defined_ms = 0;  // latestDefinitionVersion.createdAt
};

// Locks of one collection, shared by every version of its catalog entry.
struct CollectionLocks {
  // Held shared by a write from reading the index specs it maintains until it commits, and
  // exclusively by a change of those specs, so every commit maintains the indexes of its time.
  std::shared_mutex writers;
  // Serializes index builds and drops of the collection.
  std::mutex index_ddl;
  // A capped collection's writers hold it from placing their inserts at the end of its natural
  // order until they have evicted what the limits no longer allow, so that order is the order
  // of the commits and each eviction sees the records every earlier write left.
  std::mutex capped;
  std::int64_t next_position = -1;  // guarded by `capped`; -1 until read from the index
};

// A capped collection's limits (create's `size`, rounded up to 256 bytes, and `max`; 0: none).
struct CappedLimits {
  std::int64_t max_bytes = 0;
  std::int64_t max_documents = 0;
};

struct CollectionInfo {
  std::string db;
  std::string name;
  Uuid uuid;
  storage::CollectionId id = 0;  // never reused; the prefix of the collection's record keys
  bson::Document options;        // as given to create, minus create itself
  // The first is always the _id index {v: 2, key: {_id: 1}, name: "_id_"}.
  std::vector<IndexInfo> indexes;
  std::vector<SearchIndexInfo> search_indexes;
  std::int64_t created_ms = 0;
  // A capped collection keeps its insertion order in two internal indexes, both 0 for any other
  // collection: by position (8 bytes, big-endian) to the record's id key, and by id key to the
  // position, which a delete needs to find the first entry.
  storage::IndexId natural_order_index = 0;
  storage::IndexId natural_position_index = 0;
  std::shared_ptr<CollectionLocks> locks = std::make_shared<CollectionLocks>();

  std::string ns() const { return db + "." + name; }
  // A view (create with `viewOn`): a name for an aggregation over another collection or view.
  // Its entry has an id and an _id index like any other, and its records stay empty.
  bool is_view() const { return options.view().Get("viewOn").type() == bson::Type::kString; }
  // A capped collection (create's `capped`): the catalog gives every one its natural-order
  // indexes, so their ids tell without reading the options.
  bool is_capped() const { return natural_order_index != 0; }
  // REQUIRES: is_capped().
  CappedLimits capped_limits() const;

  // The index named `name`, or null.
  const IndexInfo* FindIndex(std::string_view name) const;
  // The search index named `name` (or, with by_id, whose id is `name`), or null.
  const SearchIndexInfo* FindSearchIndex(std::string_view name, bool by_id = false) const;
  // Whether a secondary index exists (ready or being built).
  bool has_secondary_indexes() const { return indexes.size() > 1; }

  // {db, name, uuid: BinData(4), id: Long, options, indexes: [{spec, id: Long, ready}],
  //  created: Date[, searchIndexes: [{id, name, type, definition, version: Int, defined: Date}]]
  //  [, naturalOrder: [Long, Long]]}
  bson::Document ToBson() const;
  // Fails with kInternalError when the entry is not one ToBson wrote.
  static StatusWith<CollectionInfo> FromBson(bson::DocumentView doc);
};

// {v: 2, key: {_id: 1}, name: "_id_"}
bson::Document IdIndexSpec();

}  // namespace quarry::catalog
