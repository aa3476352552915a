// A WriteUnit collects the mutations of one request, prepared outside any lock (documents
// checked, keys encoded, oplog entries laid out), for CommitPipeline::Commit to apply in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"
#include "storage/oplog_entry.h"
#include "storage/types.h"

namespace quarry::storage {

namespace internal {
struct Mutation;
}  // namespace internal

// What a DuplicateKey error on a unique index reports, shared by the index's entries.
struct UniqueIndexInfo {
  std::string name;
  bson::Document key_pattern;
};

// One key of one secondary index for one record.
struct IndexEntry {
  IndexId index = 0;
  std::string key;  // the encoded key fields (see IndexStore)
  // Set for a unique index: the key may belong to no other record, else the mutation fails
  // with kDuplicateKey naming the index and `key_value` ({field: value, ...}).
  std::shared_ptr<const UniqueIndexInfo> unique;
  bson::Document key_value;
  // The document's own values of the key fields (exec/key_values.h), stored after the record's
  // id key so that a covered read needs no record; empty when the entry keeps none.
  std::string key_values;
};

// How a record change changes its secondary indexes: the keys of the old version that the new
// one does not have, and the other way round.
struct IndexChanges {
  std::vector<IndexEntry> removed;
  std::vector<IndexEntry> added;
};

// Each method returns the mutation's index, the index CommitResult reports failures by.
//
// Record changes and DDL are logged with the oplog entries of storage/oplog_entry.h, which the
// unit lays out itself: each document is copied once, into its entry, and the record is stored
// from there (and rebuilt from it after a crash, docs/formats/storage-layout.md). The pipeline
// fills in each entry's `ts` and `wall`, so change streams see every change a client can see.
class WriteUnit {
 public:
  WriteUnit();
  ~WriteUnit();
  WriteUnit(WriteUnit&&) noexcept;
  WriteUnit& operator=(WriteUnit&&) noexcept;

  // Inserts `document` with the keys `added` in its secondary indexes; fails at commit with
  // kDuplicateKey when a record with an equal _id exists, or another record has one of the
  // unique keys. REQUIRES: `document` has an _id field.
  std::size_t Insert(const CollectionRef& collection, bson::DocumentView document,
                     std::vector<IndexEntry> added = {});
  // Replaces the record the caller read as `pre_image` by `post_image` (same _id), changing
  // its secondary index keys by `index`. Fails at commit with kWriteConflict when the stored
  // record is gone or no longer `pre_image` (re-read and retry), and with kDuplicateKey as
  // Insert does.
  std::size_t Update(const CollectionRef& collection, bson::DocumentView pre_image,
                     bson::DocumentView post_image, UpdateKind kind, IndexChanges index = {});
  // The same for a pre-image as RecordStore read it: a large one's stored frame, which it
  // keeps, is logged as the entry's `prez` instead of compressing the document again.
  std::size_t Update(const CollectionRef& collection, const bson::Document& pre_image,
                     bson::DocumentView post_image, UpdateKind kind, IndexChanges index = {});
  // Deletes the record the caller read as `deleted` and its secondary index keys `removed`;
  // kWriteConflict as for Update.
  std::size_t Delete(const CollectionRef& collection, bson::DocumentView deleted,
                     std::vector<IndexEntry> removed = {});
  std::size_t Delete(const CollectionRef& collection, const bson::Document& deleted,
                     std::vector<IndexEntry> removed = {});
  // Deletes every record of `collection`, its counters and every key of `indexes`. Later
  // record mutations of it, in this unit or any other, fail with kWriteConflict (ids are never
  // reused).
  std::size_t DropCollectionRecords(CollectionId collection, std::vector<IndexId> indexes = {});
  // An index build's keys for the record the builder read as `record` through a cursor opened
  // after CommitPipeline::ReadPoint returned `read_point`: added only if no later chunk changed
  // or deleted the record; otherwise nothing happens and it is no error, since whoever changed
  // it has maintained the index (it existed by then). Fails with kDuplicateKey as Insert does.
  // Logs nothing: index entries are derived data.
  std::size_t AddIndexKeys(const CollectionRef& collection, bson::DocumentView record,
                           std::uint64_t read_point, std::vector<IndexEntry> added);
  // Deletes every key of `index`.
  std::size_t DropIndexKeys(IndexId index);
  // What record mutation `k` changes: `before` is empty for an insert, `after` for a delete.
  // Nullopt for a mutation of another kind. REQUIRES: `k` < size().
  struct RecordChange {
    CollectionId collection = 0;
    bson::DocumentView before;
    bson::DocumentView after;
  };
  std::optional<RecordChange> record_change(std::size_t k) const;
  // Sets how record mutation `k` changes secondary indexes (replacing what it had).
  void SetIndexChanges(std::size_t k, IndexChanges changes);
  // Makes mutation `k` fail with `status` at commit instead of applying, in its place among
  // the others (an ordered commit stops there). REQUIRES: !status.ok().
  void Fail(std::size_t k, Status status);

  // Raw puts and deletes in the catalog and meta families.
  std::size_t PutCatalog(std::string key, std::string value);
  std::size_t DeleteCatalog(std::string key);
  std::size_t PutMeta(std::string name, std::string value);
  std::size_t DeleteMeta(std::string name);
  // Logs a DDL command {op: "c", ns: "<db>.$cmd", ui: `uuid` (none when empty), o}, with no
  // record change. `collection` is reported to observers (0: none).
  std::size_t LogCommand(CollectionId collection, std::string_view db, std::string_view uuid,
                         bson::DocumentView o);

  // A record that commits with each chunk of the unit: in every chunk where tagged mutations
  // apply, `record(tags)` names a meta entry and its value, `tags` being those mutations' tags
  // in order, and it is written in the same atomic write as the chunk. How a retryable write
  // records, atomically with its writes, which of its statements executed. `record` runs under
  // the commit lock: keep it short, and never call into storage from it.
  struct MetaEntry {
    std::string name;
    std::string value;
    std::vector<std::string> deletes;  // meta names deleted in the same write
  };
  using ChunkRecord = std::function<MetaEntry(std::span<const std::uint64_t> tags)>;
  void SetChunkRecord(ChunkRecord record);
  bool has_chunk_record() const { return static_cast<bool>(chunk_record_); }
  // Tags mutation `mutation` for the chunk record. REQUIRES: an index this unit returned.
  void Tag(std::size_t mutation, std::uint64_t tag);

  // Declares that every pre-image of the unit's updates and deletes was read from the latest
  // records (not a transaction's snapshot) after CommitPipeline::ChunksWritten returned
  // `chunks`. If no chunk has been written since when the unit's first chunk commits, nothing
  // can have changed those records, and that chunk takes its pre-images as current instead of
  // reading each record again under the commit lock.
  void ReadAfter(std::uint64_t chunks) { read_after_ = chunks; }

  std::size_t size() const;
  bool empty() const { return size() == 0; }
  // Bytes the unit will write, roughly.
  std::size_t bytes() const { return bytes_; }
  void Reserve(std::size_t mutations);

 private:
  friend class CommitPipeline;
  friend class Transaction;
  std::size_t Add(internal::Mutation mutation);
  std::size_t Add(internal::Mutation mutation, std::vector<IndexEntry> removed,
                  std::vector<IndexEntry> added);
  // `pre_frame`: the stored frame the pre-image was read from, or null.
  std::size_t AddUpdate(const CollectionRef& collection, bson::DocumentView pre_image,
                        std::shared_ptr<const std::string> pre_frame, bson::DocumentView post_image,
                        UpdateKind kind, IndexChanges index);
  std::size_t AddDelete(const CollectionRef& collection, bson::DocumentView deleted,
                        std::shared_ptr<const std::string> pre_frame,
                        std::vector<IndexEntry> removed);

  std::vector<internal::Mutation> mutations_;
  std::size_t bytes_ = 0;
  ChunkRecord chunk_record_;
  std::optional<std::uint64_t> read_after_;
};

}  // namespace quarry::storage
