// The simplest plan: a filter that pins _id to one value is answered by one point lookup
// (documents are clustered by _id) instead of a collection scan.
#pragma once

#include <optional>

#include "bson/value.h"
#include "query/match/matcher.h"

namespace quarry::exec {

// Whether an equality to `value` matches only documents holding that one value, so an index
// answers it with one key: not a regex, array, null, undefined, document, MinKey or MaxKey,
// which match more (an array also matches its elements, null also missing fields, a document or
// a regex may hold operators), nor a missing value.
bool IsPointValue(bson::ValueView value);

// The value `filter` requires _id to equal ({_id: v}, {_id: {$eq: v}}, also inside a top-level
// $and), when only a document whose _id equals it can match: a point value, and not a string or
// symbol when the filter has a collation, under which other strings equal it. nullopt when a
// scan is needed.
// The view points into `filter`.
std::optional<bson::ValueView> IdPoint(const query::Matcher& filter);

}  // namespace quarry::exec
