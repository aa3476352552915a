// MongoDB's total order over BSON values (the order of sort and of index keys).
#pragma once

#include "bson/value.h"

namespace quarry::bson {

// <0, 0, >0 as a is less than, equal to or greater than b in MongoDB's order: first by
// CanonicalTypeRank, then by value. Numbers of all four types compare by numeric value
// (NaN equals NaN and is below every other number); strings compare by bytes; documents
// compare element by element (type rank, then key, then value); arrays likewise.
int CompareValues(ValueView a, ValueView b);
int CompareDocuments(DocumentView a, DocumentView b);

// Equality of values as $eq sees it (numbers by value, documents by field order and value).
inline bool ValuesEqual(ValueView a, ValueView b) { return CompareValues(a, b) == 0; }

}  // namespace quarry::bson
