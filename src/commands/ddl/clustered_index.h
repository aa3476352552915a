// create's `clusteredIndex`. Records are kept in `_id` order in every collection, which is
// what mongod's clustered collections do, so a clustered collection is every collection's
// layout, listed under the name and options its creator gave.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "catalog/collection_info.h"

namespace quarry::commands {

// The option checked as mongod checks it, in the form listCollections shows it:
// {v: 2, key: {_id: 1}, name, unique: true} (name "_id_" unless given). Fails with 5979703 for
// the legacy boolean form, 14 for a wrong type, 40415 for an unknown field, 40414 for a missing
// `key` or `unique`, 5979700 for `unique: false`, 197 for a key other than {_id: 1} and 5979704
// for a version other than 2.
StatusWith<bson::Document> ClusteredIndexSpec(bson::ValueView option);

// listIndexes' entry for the collection's clustered index, {v, key, name, unique, clustered:
// true}, when `info` is a clustered collection.
std::optional<bson::Document> ClusteredIndexEntry(const catalog::CollectionInfo& info);

}  // namespace quarry::commands
