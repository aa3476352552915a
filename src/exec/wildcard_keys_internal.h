// The key generator of wildcard indexes behind IndexDescriptor::KeysOf. Folder-private.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "exec/index_descriptor.h"
#include "exec/index_keys_internal.h"

namespace quarry::exec {

// The keys of `doc` in wildcard `index` (IndexDescriptor::wildcard() set), before the partial
// filter: one per leaf of the projected document, as mongod's WildcardKeyGenerator makes them.
//  - a key is the leaf's dotted path (array positions left out) as a string, then its value
//    (descending when the key pattern's value is negative, its strings under the index's
//    collation); so keys sort by path, then value;
//  - an array makes one key per element under its own path and makes the index multikey;
//    an array inside an array is indexed whole, as a value; an empty array is indexed as
//    undefined, an empty document as {};
//  - documents are followed into, not indexed whole; a field whose name holds a '.' is skipped
//    (no query path can name it);
//  - with values: {$_path: "a.b", "a.b": value}, as mongod's returnKey shows them.
StatusWith<DocumentKeys> GenerateWildcardKeys(const IndexDescriptor& index, bson::DocumentView doc,
                                              KeyOutput output);

// The encoding of path `path` that begins each of its keys.
std::string EncodeWildcardPath(std::string_view path);

}  // namespace quarry::exec
