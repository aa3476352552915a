// An index build's keys, read from one cursor over its collection outside the commit lock and
// then added to the index family at once as a sorted table file (RocksDB's external file
// ingestion, CommitPipeline::IngestIndexKeys): no WAL, no memtable, and no compaction of keys
// that arrived in random order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "storage/oplog_entry.h"
#include "storage/types.h"
#include "storage/write_unit.h"

namespace rocksdb {
class ColumnFamilyHandle;
class WriteBatch;
}  // namespace rocksdb

namespace quarry::storage {

namespace internal {
struct EngineState;
}  // namespace internal

// The keys a record has now, for each index of a load (none when the record is gone).
using CurrentIndexKeys =
    std::function<StatusWith<std::vector<IndexEntry>>(std::string_view id_key)>;

class IndexBulkLoad {
 public:
  // Keys of `indexes` for the records of `collection` as a cursor opened right after
  // CommitPipeline::ReadPoint returned `read_point` sees them, holding at most `max_bytes`.
  IndexBulkLoad(const CollectionRef& collection, std::vector<IndexId> indexes,
                std::uint64_t read_point, std::size_t max_bytes);
  ~IndexBulkLoad();
  IndexBulkLoad(IndexBulkLoad&&) noexcept;
  IndexBulkLoad& operator=(IndexBulkLoad&&) noexcept;

  // Adds `entries`, every key of the record whose id key is `id_key`. False, adding nothing,
  // when they would take the load past its `max_bytes`.
  bool Add(std::string_view id_key, std::vector<IndexEntry> entries);

  // Moves the keys of `part`, a load of the same indexes from the same read point (of other
  // records), into this one, whose limit it does not count against.
  void Absorb(IndexBulkLoad part);

  // Sorts the keys, which a part can do on its own thread before it is absorbed: the sorted
  // keys of two parts are then merged.
  void SortKeys();

  std::size_t keys() const { return rows_.size(); }
  std::size_t bytes() const { return bytes_; }

 private:
  friend class CommitPipeline;

  // A key and its value, back to back in `arena_` (a unique index's key also keeps the
  // entry's key_value document after them, for DuplicateKey errors). Sorting compares the first
  // kHeadWords * 8 bytes of the keys as integers, and the arena only when those are equal.
  static constexpr std::size_t kHeadWords = 4;
  struct Row {
    std::uint64_t head[kHeadWords] = {};  // the key's first bytes, big-endian, zero-padded
    std::size_t offset = 0;
    std::uint32_t key_size = 0;
    std::uint32_t value_size = 0;
    std::uint32_t record = 0;
    // 1 + the position of the entry's unique index in `uniques_`; 0: not unique.
    std::uint32_t unique = 0;
  };

  std::string_view KeyOf(const Row& row) const;
  std::string_view ValueOf(const Row& row) const;
  Status DuplicateOf(const Row& row) const;
  bool RowBefore(const Row& a, const Row& b) const;
  // Sorts the rows by key unless they are; kDuplicateKey when two records share a key of a
  // unique index.
  Status SortCheckingUniqueKeys();
  // 1 + the position of `index` in `uniques_`, where it is added if missing (Row::unique).
  std::uint32_t UniqueSlot(const std::shared_ptr<const UniqueIndexInfo>& index);
  // Writes the sorted rows as a table file of the index family under `state`'s data directory
  // and returns its path.
  StatusWith<std::string> WriteFile(const internal::EngineState& state) const;
  // Adds to `batch` what makes the keys of the records in `changed` (id keys of records changed
  // since the read) current: every key read for them is deleted, then the keys they have now are
  // put. kDuplicateKey when a key of a unique index they have now is another record's, one not
  // changed since the read.
  Status AddFixups(const std::unordered_set<std::string>& changed, const CurrentIndexKeys& current,
                   rocksdb::ColumnFamilyHandle* family, rocksdb::WriteBatch* batch) const;

  CollectionId collection_ = 0;
  std::string ns_;
  std::vector<IndexId> indexes_;
  std::uint64_t read_point_ = 0;
  std::size_t max_bytes_ = 0;
  std::size_t bytes_ = 0;
  std::vector<std::string> id_keys_;  // by Row::record
  std::string arena_;
  std::vector<Row> rows_;
  bool sorted_ = true;                                           // rows_ is in key order
  std::vector<std::shared_ptr<const UniqueIndexInfo>> uniques_;  // one per unique index
};

}  // namespace quarry::storage
