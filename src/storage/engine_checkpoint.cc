// Engine::CreateCheckpoint: a consistent copy of the running database (RocksDB's checkpoint).
#include <rocksdb/utilities/checkpoint.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>

#include "storage/engine.h"
#include "storage/engine_internal.h"

namespace quarry::storage {

// A checkpoint records the live SST files (the MANIFEST) and then the end of the WAL, and
// writes may land in between. The records skip the WAL, so the copy relies on redoing them from
// the oplog after `records/applied_through`; that point must therefore never be newer in the
// copied WAL than the docs files in the copied MANIFEST. It moves only after the flush it names
// has been installed: by a commit's write (frozen here, so a commit in the gap leaves it) or by
// PersistRecords (excluded by the mutex). Every point in the copy then names a flush installed
// before the MANIFEST was read. Without a flush the copy is taken in the time it takes to link
// the files; its WAL and oplog carry what the memtables held.
Status Engine::CreateCheckpoint(const std::string& dir) {
  if (closed_) return Status(ErrorCode::kShutdownInProgress, "the storage engine is closed");
  rocksdb::Checkpoint* raw = nullptr;
  QUARRY_RETURN_IF_ERROR(
      internal::FromRocks(rocksdb::Checkpoint::Create(state_->db, &raw), "starting a checkpoint"));
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  std::lock_guard point_lock(state_->records_point_mu);
  state_->records_point_frozen.store(true);
  // No flush (the largest WAL-size threshold): a flush would be slower, and the records written
  // since the last one are redone from the oplog on open anyway.
  rocksdb::Status created =
      checkpoint->CreateCheckpoint(dir, std::numeric_limits<std::uint64_t>::max());
  state_->records_point_frozen.store(false);
  return internal::FromRocks(created, "creating a checkpoint in " + dir);
}

}  // namespace quarry::storage
