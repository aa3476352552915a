// The database as it was after each recent commit, for reads at a past cluster time
// (readConcern snapshot with atClusterTime, mongod's snapshot history): one RocksDB snapshot
// per committed chunk, kept for a window (mongod's minSnapshotHistoryWindowInSeconds, 300 s) and at
// most kMaxSnapshots of them. The oldest go first, so under a heavy write load the window
// shrinks, as mongod's does under cache pressure. Not thread-safe: the commit pipeline guards
// it with its commit lock.
#pragma once

#include <rocksdb/db.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>

#include "base/status.h"
#include "storage/types.h"

namespace quarry::storage::internal {

// A RocksDB snapshot and the timestamp of the last commit it holds, released when the last
// reader lets go of it.
struct SnapshotHandle {
  SnapshotHandle(rocksdb::DB* database, const rocksdb::Snapshot* held, Timestamp ts)
      : db(database), snapshot(held), timestamp(ts) {}
  ~SnapshotHandle() { db->ReleaseSnapshot(snapshot); }
  SnapshotHandle(const SnapshotHandle&) = delete;
  SnapshotHandle& operator=(const SnapshotHandle&) = delete;

  rocksdb::DB* db;
  const rocksdb::Snapshot* snapshot;
  Timestamp timestamp;
};

class SnapshotHistory {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kDefaultWindow{300};
  static constexpr std::size_t kMaxSnapshots = 65536;

  explicit SnapshotHistory(std::chrono::seconds window = kDefaultWindow) : window_(window) {}

  // A chunk that wrote the timestamps `first`..`snapshot->timestamp` is now visible, and
  // `snapshot` holds it. Drops what has aged out of the window.
  void Add(Timestamp first, std::shared_ptr<const SnapshotHandle> snapshot, Clock::time_point now);
  // The latest snapshot, or null when none is kept.
  std::shared_ptr<const SnapshotHandle> Latest() const;
  // The snapshot that holds the data as of `at`: SnapshotTooOld (239) when `at` is older than
  // what is kept, SnapshotUnavailable (246) when it falls inside a chunk (some of the writes
  // committed together with others are at or before it, some after).
  StatusWith<std::shared_ptr<const SnapshotHandle>> At(Timestamp at) const;
  void Clear() { entries_.clear(); }
  // Drops what has aged out of the window without a new commit: what a range tombstone deletes
  // stays in the table files while any snapshot older than it is kept.
  void Prune(Clock::time_point now);

 private:
  struct Entry {
    Timestamp first = 0;
    std::shared_ptr<const SnapshotHandle> snapshot;
    Clock::time_point taken;
  };
  std::chrono::seconds window_;
  std::deque<Entry> entries_;  // by timestamp
};

}  // namespace quarry::storage::internal
