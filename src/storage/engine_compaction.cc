// Engine::CompactCollection: rewrites one collection's table files without what deletes and
// overwrites left behind, for the compact command.
#include <rocksdb/db.h>

#include "storage/engine.h"
#include "storage/engine_internal.h"

namespace quarry::storage {
namespace {

// One key range of one family: a collection's records or an index's keys.
struct FamilyRange {
  rocksdb::ColumnFamilyHandle* family;
  std::string begin;
  std::string end;
};

// The bytes the range's table files take now (memtables are flushed before this is read).
std::uint64_t FileBytes(rocksdb::DB* db, const FamilyRange& range) {
  rocksdb::Range r(range.begin, range.end);
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = false;
  options.include_files = true;
  std::uint64_t size = 0;
  return db->GetApproximateSizes(options, range.family, &r, 1, &size).ok() ? size : 0;
}

}  // namespace

StatusWith<std::uint64_t> Engine::CompactCollection(CollectionId collection,
                                                    const std::vector<IndexId>& indexes) {
  if (closed_) return Status(ErrorCode::kShutdownInProgress, "the storage engine is closed");
  std::vector<FamilyRange> ranges;
  ranges.push_back({state_->docs, internal::CollectionPrefix(collection),
                    internal::CollectionUpperBound(collection)});
  for (IndexId index : indexes) {
    ranges.push_back(
        {state_->index, internal::IndexPrefix(index), internal::IndexUpperBound(index)});
  }
  // Old versions stay while a snapshot of the history may read them: let go of the expired
  // snapshots first, and write the memtables out so that before and after count files alike.
  pipeline_->ReleaseExpiredSnapshots();
  QUARRY_RETURN_IF_ERROR(Flush());
  std::uint64_t before = 0;
  for (const FamilyRange& range : ranges) before += FileBytes(state_->db, range);
  rocksdb::CompactRangeOptions options;
  // Alongside RocksDB's own compactions: writes must not stall behind this one.
  options.exclusive_manual_compaction = false;
  // The last level too, where deletes' tombstones and the versions under them finally go.
  options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
  for (const FamilyRange& range : ranges) {
    const rocksdb::Slice begin(range.begin);
    const rocksdb::Slice end(range.end);
    QUARRY_RETURN_IF_ERROR(internal::FromRocks(
        state_->db->CompactRange(options, range.family, &begin, &end), "compacting a collection"));
  }
  std::uint64_t after = 0;
  for (const FamilyRange& range : ranges) after += FileBytes(state_->db, range);
  return before > after ? before - after : 0;
}

}  // namespace quarry::storage
