// The RocksDB handles and the shared in-memory state behind storage's public classes. Only
// storage's .cc files include this: RocksDB types stop at storage/.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/status.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/endian.h"
#include "base/status.h"
#include "storage/dropped_keys.h"
#include "storage/dropped_range_reclaimer.h"
#include "storage/records_flush_tracker.h"
#include "storage/types.h"

namespace quarry::storage::internal {

// Per-collection counters, read by RecordStore and written by the commit pipeline.
class StatsTable {
 public:
  CollectionStats Get(CollectionId collection) const {
    std::shared_lock lock(mu_);
    auto it = map_.find(collection);
    return it == map_.end() ? CollectionStats{} : it->second;
  }
  void Set(CollectionId collection, CollectionStats stats) {
    std::unique_lock lock(mu_);
    map_[collection] = stats;
  }
  void Erase(CollectionId collection) {
    std::unique_lock lock(mu_);
    map_.erase(collection);
  }

 private:
  mutable std::shared_mutex mu_;
  std::unordered_map<CollectionId, CollectionStats> map_;
};

struct EngineState {
  std::string dbpath;
  rocksdb::DB* db = nullptr;
  rocksdb::ColumnFamilyHandle* default_family = nullptr;
  rocksdb::ColumnFamilyHandle* catalog = nullptr;
  rocksdb::ColumnFamilyHandle* docs = nullptr;
  rocksdb::ColumnFamilyHandle* index = nullptr;
  rocksdb::ColumnFamilyHandle* oplog = nullptr;
  rocksdb::ColumnFamilyHandle* meta = nullptr;

  std::atomic<Timestamp> latest_timestamp{0};      // of the last committed oplog entry
  std::atomic<Timestamp> oplog_trimmed_before{0};  // entries below it were deleted
  StatsTable stats;
  std::atomic<std::uint64_t> journal_syncs{0};
  std::atomic<std::uint64_t> background_syncs{0};
  // Registered with RocksDB before the database opens; outlives it.
  std::shared_ptr<RecordsFlushTracker> records_flushes;
  // While a checkpoint copies the database, nothing moves the records' applied-through point
  // (Engine::CreateCheckpoint says why): PersistRecords holds this mutex, and commits leave
  // the point where it is while `records_point_frozen` is set.
  std::mutex records_point_mu;
  std::atomic<bool> records_point_frozen{false};
  // Reclaims the ranges drops leave; owned by the Engine, null until it is open.
  DroppedRangeReclaimer* reclaimer = nullptr;
  // Dropped collections' records and dropped indexes' keys still stored; in the families'
  // options too, so they outlive the database.
  std::shared_ptr<DroppedKeys> dropped_records;
  std::shared_ptr<DroppedKeys> dropped_index_keys;
  // Those of `family` (null for the families drops do not touch).
  DroppedKeys* DroppedKeysOf(const rocksdb::ColumnFamilyHandle* family) const {
    if (family == docs) return dropped_records.get();
    if (family == index) return dropped_index_keys.get();
    return nullptr;
  }
  std::chrono::seconds snapshot_history_window{300};  // EngineOptions'
};

// A RocksDB failure as a Status ("context: RocksDB message"). Storage failures are not the
// client's fault, so they become InternalError.
Status FromRocks(const rocksdb::Status& status, std::string_view context);

// ---- key layouts (docs/formats/storage-layout.md) ----

// The 8-byte big-endian prefix of an index's keys in the index family, and the first key after
// them. An entry's key is the prefix + the encoded key fields (+ the record's id key for an
// index whose keys need not be unique); its value is the record's id key, then any key values.
std::string IndexPrefix(IndexId index);
// Appends IndexPrefix(index) to `out`.
void AppendIndexPrefix(IndexId index, std::string* out);
std::string IndexUpperBound(IndexId index);

// The 8-byte big-endian prefix of a collection's record keys, and the first key after them.
std::string CollectionPrefix(CollectionId collection);
std::string CollectionUpperBound(CollectionId collection);

// The directory for temporary files under `dbpath` (Engine::temp_dir).
std::string TempDirOf(const std::string& dbpath);

// Puts an index entry: its whole key, and its value, the record's id key then the entry's key
// values (exec/key_values.h), without assembling the value first.
void PutIndexEntry(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* family,
                   std::string_view key, std::string_view id_key, std::string_view key_values);

// Meta name of the oplog's trim boundary (8 bytes, big-endian).
inline constexpr std::string_view kOplogTrimmedBeforeName = "oplog/trimmed_before";

// Oplog keys: 8-byte big-endian timestamp, 4-byte big-endian position in its commit chunk.
std::string OplogKey(Timestamp ts, std::uint32_t position);
inline constexpr std::size_t kOplogKeySize = 12;

// The oplog is the records' redo log: the key of a record change goes on with what to redo
// (one byte) and the record key, so recovery needs no catalog to find the record.
enum class RedoKind : char {
  kPut = 'p',     // store the entry's `o` under the record key
  kDelete = 'd',  // delete the record key
};
std::string RecordOplogKey(Timestamp ts, std::uint32_t position, RedoKind kind,
                           std::string_view record_key);
// The redo part of an oplog key; false for entries that change no record (DDL, and every
// entry written by format version 1).
bool ParseRecordOplogKey(std::string_view oplog_key, RedoKind* kind, std::string_view* record_key);

// Meta name of the point the docs family is on disk through: the timestamp (8 bytes BE) of an
// oplog entry whose record changes, and all before it, a completed flush holds. Recovery redoes
// the entries after it (records_flush_tracker.h).
inline constexpr std::string_view kRecordsAppliedThroughName = "records/applied_through";
// Format version 2 kept that point in the docs family under this key instead; recovery reads it
// when the meta name is absent, then deletes it.
inline constexpr std::string_view kLegacyRecordsMarkKey{"\0", 1};
// Meta names a drop writes for each range it leaves to the reclaimer (dropped_range_reclaimer.h),
// which removes them once the range is gone; start-up queues those still there.
inline constexpr std::string_view kDroppedRecordsPrefix = "dropped_records/";       // + 8-byte id
inline constexpr std::string_view kDroppedIndexKeysPrefix = "dropped_index_keys/";  // + 8-byte id
std::string DroppedRecordsName(CollectionId collection);
std::string DroppedIndexKeysName(IndexId index);
// What the reclaimer removes for a dropped collection's records or a dropped index's keys
// (`sequence`: DroppedRange's).
DroppedRange DroppedRecordsRange(const EngineState& state, CollectionId collection,
                                 std::uint64_t sequence);
DroppedRange DroppedIndexKeysRange(const EngineState& state, IndexId index, std::uint64_t sequence);

// Meta names owned by storage.
inline constexpr std::string_view kFormatVersionName = "format_version";
// The layout this code writes (docs/formats/storage-layout.md); Engine::Open upgrades 1 to 3.
inline constexpr std::uint32_t kFormatVersion = 4;
inline constexpr std::string_view kStatsPrefix = "stats/";  // + 8-byte big-endian id
std::string StatsName(CollectionId collection);
std::string EncodeStats(const CollectionStats& stats);
bool DecodeStats(std::string_view bytes, CollectionStats* stats);

}  // namespace quarry::storage::internal
