// How often each index has been read by a query since the server started or the index was
// created, as $indexStats reports it (accesses.ops and accesses.since).
#pragma once

#include <cstdint>

#include "storage/types.h"

namespace quarry::exec {

struct IndexUsage {
  std::int64_t ops = 0;
  std::int64_t since_millis = 0;  // when counting began
};

// The usage key of a collection's _id index, which has no index id of its own (IndexId 0 is
// every collection's): the collection id with the top bit set, a range index ids never reach.
inline storage::IndexId IdIndexUsageKey(storage::CollectionId collection) {
  return (storage::IndexId{1} << 63) | collection;
}

// One more query read `index`. Thread-safe and cheap: point reads count too.
void RecordIndexUse(storage::IndexId index);

// Counting for `index` starts again from now: a new index is counted from its creation.
void ResetIndexUsage(storage::IndexId index);

// The counts of `index`; counting began at server start for an index not reset since.
IndexUsage IndexUsageOf(storage::IndexId index);

}  // namespace quarry::exec
