// A query's shape: its filter with the values left out, its sort, projection and kind, which
// the plan cache keys on (mongod's queryHash and planCacheKey, as hex strings).
#pragma once

#include <string>
#include <string_view>

#include "bson/value.h"
#include "query/sort/sort.h"

namespace quarry::exec {

// The shape of `filter`: field paths, operators and how each value is used (a plain value, an
// array, null, a regex, a document), without the values themselves, so {a: 1} and {a: 2} share
// a shape and {a: 1} and {a: {$gt: 1}} do not.
std::string FilterShape(bson::DocumentView filter);

// The sort as a document {path: 1 | -1, ...}.
bson::Document SortDocumentOf(const query::SortSpec& sort);

// The whole shape: the filter's (the filter as the matcher holds it; {} for none), the sort and
// the projection document as given. Its ShapeHash is the query's queryHash.
std::string QueryShape(bson::DocumentView filter, const query::SortSpec& sort,
                       bson::DocumentView projection);

// Eight upper-case hex digits of a 32-bit hash of `text`, the form of mongod's queryHash.
std::string ShapeHash(std::string_view text);

}  // namespace quarry::exec
