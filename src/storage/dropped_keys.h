// The dropped collections and indexes of one column family whose keys are still stored. A drop
// writes no range tombstone: RocksDB keeps what a tombstone covers while any older snapshot
// lives (the snapshot history keeps them for minutes), and a flushed file holding one overlaps
// every file between the dropped range and the newest keys, so each drop made the next
// compactions rewrite all of that data. Instead reads hide a dropped id's keys as the tombstone
// would have (from the latest data and from snapshots taken after the drop), and once no older
// snapshot is left the reclaimer (dropped_range_reclaimer.h) has compactions remove them, with
// a compaction filter, which acts whatever snapshots remain. Collection and index ids are never
// reused, so nothing else ever reads those keys.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rocksdb {
class CompactionFilterFactory;
class Snapshot;
}  // namespace rocksdb

namespace quarry::storage::internal {

// Keys of the family start with their collection's or index's 8-byte big-endian id.
class DroppedKeys {
 public:
  // `sequence`: RocksDB's latest sequence number once the drop was written (0: before every
  // snapshot, as for a drop found at start-up).
  void Drop(std::uint64_t id, std::uint64_t sequence);
  // From now on compactions remove the id's keys.
  void StartReclaiming(std::uint64_t id);
  // The id's keys are gone: forgets it.
  void Forget(std::uint64_t id);

  // Whether a read through `snapshot` (null: the latest data) must not see `key`.
  bool Hides(std::string_view key, const rocksdb::Snapshot* snapshot) const;
  // The ids being reclaimed, sorted.
  std::vector<std::uint64_t> Reclaiming() const;

 private:
  struct Entry {
    std::uint64_t sequence;
    bool reclaiming = false;
  };
  std::atomic<bool> any_{false};  // spares the common read the lock
  mutable std::shared_mutex mu_;
  std::unordered_map<std::uint64_t, Entry> drops_;  // guarded by mu_
};

// For the family's options: each compaction removes the keys of the ids being reclaimed when it
// started (none: no filter).
std::shared_ptr<rocksdb::CompactionFilterFactory> NewDroppedKeyFilterFactory(
    std::shared_ptr<const DroppedKeys> keys);

}  // namespace quarry::storage::internal
