// Key values: an index entry may keep the document's own values of its key fields, so that a
// read needing only those fields (a covered query) is answered from the index alone. The
// encoded key cannot give them back: 1, 1L and 1.0 encode alike, as do null and a missing
// field, and a collation's keys are not the strings.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "bson/value.h"
#include "exec/index_descriptor.h"

namespace quarry::exec {

// Kept values larger than this would grow the index more than covering saves.
inline constexpr std::size_t kMaxKeyValuesBytes = 256;

// The values `doc` has at the key fields of `index`, as a BSON document whose field "i" holds
// the value at the i-th key field, a missing field left out; empty (kept by no entry) when
// `keys` (the document's keys, from index.KeysAndMultikeyOf(doc)) are not exactly one
// non-multikey key, when a path meets an array, when the values exceed kMaxKeyValuesBytes, and
// for a wildcard index.
std::string KeyValuesOf(const IndexDescriptor& index, bson::DocumentView doc,
                        const DocumentKeys& keys);

// The document an entry's key values stand for: each key field's value at its path ({a: {b: 1},
// c: 2} for fields "a.b" and "c"), missing fields left out. nullopt when `key_values` is empty
// (the entry keeps none). REQUIRES: no key field's path is a prefix of another's.
std::optional<bson::Document> KeyDocument(const IndexDescriptor& index,
                                          std::string_view key_values);

}  // namespace quarry::exec
