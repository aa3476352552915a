// Gives back the disk space of dropped collections and indexes after the drop, as mongod does by
// removing their files once no read at a past cluster time may need them. A drop writes no
// range tombstone (storage/dropped_keys.h says why): its keys stay, readable by the snapshots
// taken before it, until this thread, once the snapshot history no longer reaches back before
// the drop and no such snapshot is left, deletes the table files wholly inside the range and
// compacts the rest away with the family's dropped-key filter. Then it forgets the drop's note
// in `meta`, which start-up reads to queue the drops not yet reclaimed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "base/status.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace quarry::storage::internal {

class DroppedKeys;

struct DroppedRange {
  rocksdb::ColumnFamilyHandle* family;
  DroppedKeys* keys;  // the family's (storage/dropped_keys.h)
  std::uint64_t id;   // of the collection or index: the range is its keys
  std::string note;   // its meta name, deleted once the range is gone
  // RocksDB's latest sequence number once the drop was written: snapshots older than it may
  // read the range. 0 for a drop found at start-up, which no snapshot predates.
  std::uint64_t sequence = 0;
};

class DroppedRangeReclaimer {
 public:
  using Clock = std::chrono::steady_clock;

  // `history`: how long snapshots keep what a drop left; `release_expired_snapshots` lets go of
  // those past it first. `persist_records` flushes the records and moves their applied-through
  // point past the drop before its note goes, so a recovery never redoes records into a range
  // nobody will reclaim.
  DroppedRangeReclaimer(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* meta,
                        std::chrono::seconds history,
                        std::function<void()> release_expired_snapshots,
                        std::function<Status()> persist_records);
  ~DroppedRangeReclaimer();  // Stop()s
  DroppedRangeReclaimer(const DroppedRangeReclaimer&) = delete;
  DroppedRangeReclaimer& operator=(const DroppedRangeReclaimer&) = delete;

  // Hides `range` from reads from now on (DroppedKeys::Drop) and reclaims it once the history
  // has passed (at once for a drop found at start-up), after the ranges queued before it. Never
  // blocks: the commit that dropped the range calls it.
  void Enqueue(DroppedRange range);

  // Cancels the compaction under way and forgets the queue (the notes stay: the next start
  // queues them again). Idempotent. REQUIRES: the database is still open.
  void Stop();

 private:
  struct Queued {
    DroppedRange range;
    Clock::time_point due;
  };
  void Run();
  void QueueLocked(Queued queued);
  // Whether a live snapshot is older than the drop.
  bool SnapshotPredates(std::uint64_t sequence) const;
  Status Reclaim(const DroppedRange& range);

  rocksdb::DB* db_;
  rocksdb::ColumnFamilyHandle* meta_;
  const std::chrono::seconds history_;
  const std::function<void()> release_expired_snapshots_;
  const std::function<Status()> persist_records_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Queued> queue_;  // by due time; guarded by mu_
  bool stop_ = false;         // guarded by mu_
  std::thread thread_;
};

}  // namespace quarry::storage::internal
