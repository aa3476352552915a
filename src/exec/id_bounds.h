// The _id ranges a filter confines its matches to, so that a scan of records, which are kept in
// _id order, reads only those ranges.
#pragma once

#include <optional>

#include "exec/index_bounds.h"
#include "exec/index_descriptor.h"
#include "query/match/matcher.h"

namespace quarry::exec {

// The bounds of `filter` on the _id index `id_index`: those of its conjuncts (BoundsFor), else,
// for a top-level $or whose every branch bounds _id, the union of the branches' intervals (sorted,
// overlaps joined; explain lists each branch's intervals in branch order). A match satisfies some
// branch, so it lies in that branch's intervals. Empty intervals: no record can match. nullopt
// when the filter does not bound _id.
std::optional<IndexBounds> IdBoundsFor(const IndexDescriptor& id_index,
                                       const query::Matcher& filter);

}  // namespace quarry::exec
