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

// An entry's key values are a BSON document whose field "i" holds the document's value at the
// i-th key field, a missing field left out. The key generator makes them with the keys
// (DocumentKeys::key_values says when a document has them). A path that goes missing below its
// first field has none: {a: {}} and {a: 5} project "a.b" differently, and values that leave
// "a.b" out could not tell them apart (nor from a document without "a", which they can).

// The document an entry's key values stand for: each key field's value at its path ({a: {b: 1},
// c: 2} for fields "a.b" and "c"), missing fields left out. nullopt when `key_values` is empty
// (the entry keeps none). REQUIRES: no key field's path is a prefix of another's.
std::optional<bson::Document> KeyDocument(const IndexDescriptor& index,
                                          std::string_view key_values);

}  // namespace quarry::exec
