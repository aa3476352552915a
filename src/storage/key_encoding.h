// Order-preserving encoding of BSON values for record and index keys
// (docs/formats/key-encoding.md).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "bson/string_comparator.h"
#include "bson/value.h"

namespace quarry::storage {

// Appends the encoding of `value` to `*out`. memcmp on two encodings orders them as
// bson::CompareValues orders the values, and two values encode to the same bytes exactly when
// CompareValues finds them equal (int32 1, int64 1 and double 1.0 encode identically).
// `descending` inverts every byte, reversing that order. Each encoding is self-delimiting (no
// encoding is a proper prefix of another), so encodings can be concatenated into compound keys.
// Decimal128 values are encoded through their double value, as CompareValues compares them.
// An absent value encodes like undefined, with which CompareValues ranks it. Cannot fail.
// REQUIRES: `value` comes from validated BSON.
void AppendIndexKey(bson::ValueView value, bool descending, std::string* out);

// As AppendIndexKey, with strings and symbols (also inside documents and arrays) ordered by
// `collator`: their body is the escaped comparison key (StringComparator::AppendComparisonKey)
// instead of their bytes, so memcmp orders them as the collation does and collation-equal
// strings encode alike. A null `collator` is the simple collation (AppendIndexKey).
void AppendIndexKey(bson::ValueView value, bool descending, const bson::StringComparator* collator,
                    std::string* out);

// The ascending encoding of `value` as a new string.
std::string EncodeIndexKey(bson::ValueView value);

// The ascending encoding of `value` under `collator` (null: simple) as a new string.
std::string EncodeIndexKey(bson::ValueView value, const bson::StringComparator* collator);

// The length of the ascending encoding that `bytes` starts with, or 0 when `bytes` does not
// start with a whole encoding. Collated strings are escaped bytes too, so it finds their end.
std::size_t EncodedLength(std::string_view bytes);
// The same for an encoding that may be stored `descending` (every byte inverted).
std::size_t EncodedLength(std::string_view bytes, bool descending);

// Two byte strings that bracket the ascending encodings of every value of `type`'s canonical
// type (bson::CanonicalTypeRank): first <= encoding < second, and no encoding of another type
// lies between them. first is the type's tag, second the byte after it. Index scans use them to
// read one type ({$gt: 5} reads numbers only). Absent (kEod) brackets with undefined.
std::pair<std::string, std::string> KeyTypeBracket(bson::Type type);

// The bytes that the ascending encoding of every string (or symbol) starting with `prefix`
// starts with, and no other encoding does. Index scans read a regex's literal prefix with it.
std::string StringPrefixKey(std::string_view prefix);

}  // namespace quarry::storage
