// find's `min` and `max`: one range of a hinted index's keys, in the index's own order, from
// the key {min's values} (inclusive) to {max's values} (exclusive), across types.
#pragma once

#include "base/status.h"
#include "bson/value.h"
#include "exec/index_bounds.h"
#include "exec/index_descriptor.h"

namespace quarry::exec {

// The bounds of a scan of `index` from `min` to `max`; an empty document stands for the
// index's first (for min) or last (for max) key. Fails as mongod: 51174 when a non-empty min or
// max does not name exactly the key pattern's fields in order; 51175 when min does not come
// before max in the index's order.
StatusWith<IndexBounds> MinMaxBounds(const IndexDescriptor& index, bson::DocumentView min,
                                     bson::DocumentView max);

}  // namespace quarry::exec
