// Gives back the disk space of dropped collections and indexes after the drop, as mongod does by
// removing their files once no read at a past cluster time may need them. A drop deletes its
// key range with one range tombstone, and RocksDB rewrites the files under it only when a
// compaction happens to reach them: for data in the last level, perhaps never. This thread
// compacts each dropped range once the snapshot history no longer reaches back before the drop.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace quarry::storage::internal {

class DroppedRangeReclaimer {
 public:
  using Clock = std::chrono::steady_clock;

  // `history`: how long snapshots keep what a drop deleted; `release_expired_snapshots` lets go
  // of those past it before each compaction (a compaction keeps whatever a snapshot sees).
  DroppedRangeReclaimer(rocksdb::DB* db, std::chrono::seconds history,
                        std::function<void()> release_expired_snapshots);
  ~DroppedRangeReclaimer();  // Stop()s
  DroppedRangeReclaimer(const DroppedRangeReclaimer&) = delete;
  DroppedRangeReclaimer& operator=(const DroppedRangeReclaimer&) = delete;

  // Compacts [begin, end) of `family` once the history has passed, after the ranges queued
  // before it. Never blocks: the commit that dropped the range calls it.
  void Enqueue(rocksdb::ColumnFamilyHandle* family, std::string begin, std::string end);

  // Cancels the compaction under way and forgets the queue (RocksDB's own compactions remove
  // those ranges some day). Idempotent. REQUIRES: the database is still open.
  void Stop();

 private:
  struct Range {
    rocksdb::ColumnFamilyHandle* family;
    std::string begin;
    std::string end;
    Clock::time_point due;
  };
  void Run();

  rocksdb::DB* db_;
  const std::chrono::seconds history_;
  const std::function<void()> release_expired_snapshots_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Range> queue_;  // by due time; guarded by mu_
  bool stop_ = false;        // guarded by mu_
  std::thread thread_;
};

}  // namespace quarry::storage::internal
