// The simplest plan: a filter that pins _id to one value is answered by one point lookup
// (documents are clustered by _id) instead of a collection scan.
#pragma once

#include <optional>

#include "bson/value.h"

namespace quarry::exec {

// The value `filter` requires _id to equal — {_id: v}, {_id: {$eq: v}}, also inside a top-level
// $and — when that value can only be matched by an _id equal to it (not a regex, document with
// operators, array or null, which match more). nullopt when a scan is needed. The view points
// into `filter`.
std::optional<bson::ValueView> IdEqualityValue(bson::DocumentView filter);

}  // namespace quarry::exec
