// Index specs as createIndexes receives them: checked as mongod checks them, stored in one form,
// and compared with the indexes a collection has.
#pragma once

#include <string>

#include "base/status.h"
#include "bson/value.h"
#include "catalog/collection_info.h"

namespace quarry::commands {

// Whether `key` is the _id index's key pattern {_id: 1}.
bool IsIdIndexKey(bson::DocumentView key);

// A TTL lifetime as createIndexes and collMod take it: a number in [0, 2147483647], else
// CannotCreateIndex (67).
Status CheckExpireAfterSeconds(bson::ValueView value);

// Checks one spec and returns it as stored: {v: 2, key, name, <options as given>}. Fails as
// mongod does for a bad key pattern, name or option, with InvalidIndexSpecificationOption (197)
// for a field no index spec has (dropped instead when `ignore_unknown_options`), and with
// NotImplemented for options Quarry does not implement yet.
StatusWith<bson::Document> NormalizeIndexSpec(bson::DocumentView spec, bool ignore_unknown_options);

// `spec` (normalized) with its collation as stored: the fully specified form of the one it names,
// else the collection's default (the `collation` of `collection_options`); none for the simple
// collation, named or inherited.
StatusWith<bson::Document> ResolveIndexCollation(bson::DocumentView spec,
                                                 bson::DocumentView collection_options);

// What an existing index means for a requested one.
enum class IndexMatch {
  kNone,  // no index is in its way
  kSame,  // the same index exists: nothing to do
};

// How `spec` (normalized) relates to the indexes of `info`: kSame for an index with its name,
// key and options; IndexKeySpecsConflict (86) for its name with another key, and
// IndexOptionsConflict (85) for its name or key with other options or its key under another name.
StatusWith<IndexMatch> MatchExistingIndex(const catalog::CollectionInfo& info,
                                          bson::DocumentView spec);

}  // namespace quarry::commands
