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
  // when they would take the load past its `max_bytes` (or one is of an index not the load's).
  bool Add(std::string_view id_key, std::vector<IndexEntry> entries);

  // Makes room for about `rows` keys up front (as far as `max_bytes` allows), so that adding
  // them, and absorbing parts, need not move the ones already added: for a large build, every
  // move is tens of megabytes of fresh memory.
  void ReserveRows(std::size_t rows);

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

  // A key and its value, back to back in a chunk of `arena_` (a unique index's key also keeps
  // the entry's key_value document after them, for DuplicateKey errors). Every key of an index
  // starts with the same prefix, so sorting compares the indexes' ranks, then the kHeadWords * 8
  // bytes after the prefix as integers, and the arena only when those are equal. A row fills one
  // cache line.
  static constexpr std::size_t kHeadWords = 5;
  struct Row {
    std::uint64_t head[kHeadWords] = {};  // the key's bytes after its prefix, big-endian, padded
    const char* data = nullptr;
    std::uint32_t key_size = 0;
    std::uint32_t value_size = 0;
    std::uint32_t record = 0;
    std::uint16_t rank = 0;  // of the entry's index among `indexes_`, in key order
    // 1 + the position of the entry's unique index in `uniques_`; 0: not unique.
    std::uint16_t unique = 0;
  };

  std::string_view KeyOf(const Row& row) const;
  std::string_view ValueOf(const Row& row) const;
  Status DuplicateOf(const Row& row) const;
  bool RowBefore(const Row& a, const Row& b) const;
  // Sorts the rows by key unless they are; kDuplicateKey when two records share a key of a
  // unique index.
  Status SortCheckingUniqueKeys();
  // 1 + the position of `index` in `uniques_`, where it is added if missing (Row::unique).
  std::uint16_t UniqueSlot(const std::shared_ptr<const UniqueIndexInfo>& index);
  // `size` bytes of the arena for one row's bytes. Chunks never move, so rows point into them
  // and a part's chunks join another load without copying.
  char* Allocate(std::size_t size);
  // Writes the sorted rows as table files of the index family under `state`'s data directory,
  // consecutive runs of keys written by threads of their own, and returns their paths.
  StatusWith<std::vector<std::string>> WriteFiles(const internal::EngineState& state) const;
  // Writes rows [begin, end) as the table file `path`.
  Status WriteFile(const internal::EngineState& state, std::size_t begin, std::size_t end,
                   const std::string& path) const;
  // Adds to `batch` what makes the keys of the records in `changed` (id keys of records changed
  // since the read) current: every key read for them is deleted, then the keys they have now are
  // put. kDuplicateKey when a key of a unique index they have now is another record's, one not
  // changed since the read.
  Status AddFixups(const std::unordered_set<std::string>& changed, const CurrentIndexKeys& current,
                   rocksdb::ColumnFamilyHandle* family, rocksdb::WriteBatch* batch) const;

  CollectionId collection_ = 0;
  std::string ns_;
  std::vector<IndexId> indexes_;
  // By position in `indexes_`: each index's key prefix, and its rank in key order (Row::rank).
  std::vector<std::string> prefixes_;
  std::vector<std::uint16_t> ranks_;
  std::uint64_t read_point_ = 0;
  std::size_t max_bytes_ = 0;
  std::size_t bytes_ = 0;
  std::vector<std::string> id_keys_;  // by Row::record
  std::vector<std::unique_ptr<char[]>> arena_;
  char* arena_free_ = nullptr;  // the unused end of the newest chunk
  std::size_t arena_left_ = 0;
  std::vector<Row> rows_;
  bool sorted_ = true;                                           // rows_ is in key order
  std::vector<std::shared_ptr<const UniqueIndexInfo>> uniques_;  // one per unique index
};

}  // namespace quarry::storage
