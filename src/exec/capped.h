// Capped collections: the natural (insertion) order their records keep, and the eviction of the
// oldest records beyond their limits. The order lives in two internal indexes named by the
// catalog entry (CollectionInfo::natural_order_index, natural_position_index), maintained with
// the records in the same commits as secondary indexes are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "exec/collection.h"
#include "storage/commit_pipeline.h"
#include "storage/index_store.h"
#include "storage/write_unit.h"

namespace quarry::exec {

// The natural-order entries record change `change` of capped collection `info` adds (an insert
// takes the next position) or removes (a delete gives its position up), appended to
// `*changes`; an update keeps its position. REQUIRES: `info.locks->capped` held, so positions
// follow the order of the commits.
Status AppendNaturalOrderChanges(const storage::IndexStore& indexes,
                                 const catalog::CollectionInfo& info,
                                 const storage::WriteUnit::RecordChange& change,
                                 storage::IndexChanges* changes);

// Adds to `*unit` the deletes of capped collection `collection`'s oldest records, as many as
// its limits no longer allow (at most 1,000: commit them and call again), and returns their
// mutation indexes (none when it is within them). REQUIRES: `collection.info->locks->capped`
// held, and every earlier write committed.
StatusWith<std::vector<std::size_t>> AddEvictions(storage::Engine& engine,
                                                  const Collection& collection,
                                                  storage::WriteUnit* unit);

// How a capped collection's natural order agrees with its records (validate).
struct NaturalOrderCheck {
  std::int64_t positions = 0;   // entries of the position index
  std::int64_t missing = 0;     // records without a position
  std::int64_t extra = 0;       // positions of no record
  std::int64_t mismatched = 0;  // records whose two entries disagree, or with several positions
};

// Walks both natural-order indexes of capped collection `info` and its records. The caller holds
// the collection's writers lock, so nothing commits meanwhile. Fails with ExceededMemoryLimit
// when the positions take more than `max_memory_bytes`.
StatusWith<NaturalOrderCheck> CheckNaturalOrder(storage::Engine& engine,
                                                const catalog::CollectionInfo& info,
                                                std::size_t max_memory_bytes);

// The position an entry of the natural-order index keeps (its first 8 key bytes).
std::string NaturalPositionKey(std::int64_t position);

}  // namespace quarry::exec
