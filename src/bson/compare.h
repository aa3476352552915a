// MongoDB's total order over BSON values (the order of sort and of index keys).
#pragma once

#include <cstring>

#include "bson/string_comparator.h"
#include "bson/value.h"

namespace quarry::bson {

// <0, 0, >0 as a is less than, equal to or greater than b in MongoDB's order: first by
// CanonicalTypeRank, then by value. Numbers of all four types compare by numeric value
// (NaN equals NaN and is below every other number); strings and symbols compare through
// `strings` (null: by bytes), also inside documents and arrays; documents compare element by
// element (type rank, then key, then value); arrays likewise. Field names and code always
// compare by bytes, as in mongod.
int CompareValues(ValueView a, ValueView b, const StringComparator* strings = nullptr);
int CompareDocuments(DocumentView a, DocumentView b, const StringComparator* strings = nullptr);

// Equality of values as $eq sees it (numbers by value, documents by field order and value).
inline bool ValuesEqual(ValueView a, ValueView b, const StringComparator* strings = nullptr) {
  return CompareValues(a, b, strings) == 0;
}

// Same type and same bytes: what MongoDB calls binary equality. It tells a no-op update
// ({$set: {a: 1}} on a: 1) from a change ({$set: {a: 1.0}} on a: 1), and an unchanged field
// from a changed one.
inline bool BinaryEqual(ValueView a, ValueView b) {
  return a.type() == b.type() && a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

}  // namespace quarry::bson
