// What a read sees: the latest committed data, or a transaction's view of it (one snapshot of
// the database with the transaction's own writes on top). Record and index reads go through
// these helpers so that both kinds of read share one code path.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/utilities/write_batch_with_index.h>

#include <memory>

#include "storage/engine_internal.h"

namespace quarry::storage::internal {

struct ReadView {
  const rocksdb::Snapshot* snapshot = nullptr;
  // The transaction's staged record and index writes; read over the snapshot.
  rocksdb::WriteBatchWithIndex* writes = nullptr;
};

// Read options for `view` (null: the latest data).
rocksdb::ReadOptions ReadOptionsFor(const ReadView* view);

// A point read of `key` in `family` through `view`.
rocksdb::Status ReadThrough(const EngineState& state, const ReadView* view,
                            rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key,
                            rocksdb::PinnableSlice* value);

// Point reads of `count` keys at once through `view`.
void MultiReadThrough(const EngineState& state, const ReadView* view,
                      rocksdb::ColumnFamilyHandle* family, std::size_t count,
                      const rocksdb::Slice* keys, rocksdb::PinnableSlice* values,
                      rocksdb::Status* statuses);

// An iterator over `family` through `view`; `options` (with its bounds) must outlive it.
std::unique_ptr<rocksdb::Iterator> IterateThrough(const EngineState& state, const ReadView* view,
                                                  rocksdb::ColumnFamilyHandle* family,
                                                  const rocksdb::ReadOptions& options);

}  // namespace quarry::storage::internal
