// A WriteUnit collects the mutations of one request, prepared outside any lock (documents built,
// keys encoded, oplog entries laid out), for CommitPipeline::Commit to apply in order.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bson/value.h"
#include "storage/types.h"

namespace quarry::storage {

namespace internal {
struct Mutation;
}  // namespace internal

// Each method returns the mutation's index, the index CommitResult reports failures by.
//
// Oplog entries are built by the caller ({op: "i"|"u"|"d"|"c", ns, ui, o, o2, ...}); the pipeline
// adds `ts` (Timestamp, first) and `wall` (Date, last), so the caller's entry must not have them.
// Every change a client can see carries one, so change streams see it. For record mutations the
// entry's `ns` ("db.coll") also names the collection in DuplicateKey messages. For Insert and
// Replace the entry's `o` must be the new document itself, byte for byte (checked): the record
// is stored from it, and rebuilt from the oplog after a crash (docs/formats/storage-layout.md).
class WriteUnit {
 public:
  WriteUnit();
  ~WriteUnit();
  WriteUnit(WriteUnit&&) noexcept;
  WriteUnit& operator=(WriteUnit&&) noexcept;

  // Inserts `document`; fails at commit with kDuplicateKey when a record with an equal _id
  // exists. REQUIRES: `document` has an _id field.
  std::size_t Insert(CollectionId collection, bson::DocumentView document,
                     bson::DocumentView oplog_entry);
  // Replaces the record whose bytes the caller read as `pre_image` by `document` (same _id).
  // Fails at commit with kWriteConflict when the stored record is gone or no longer `pre_image`:
  // re-read and retry.
  std::size_t Replace(CollectionId collection, std::string pre_image,
                      bson::DocumentView document, bson::DocumentView oplog_entry);
  // Deletes the record the caller read as `pre_image`; kWriteConflict as for Replace.
  std::size_t Delete(CollectionId collection, std::string pre_image,
                     bson::DocumentView oplog_entry);
  // Deletes every record of `collection` and its counters. Later record mutations of it, in
  // this unit or any other, fail with kWriteConflict (ids are never reused).
  std::size_t DropCollectionRecords(CollectionId collection);
  // Raw puts and deletes in the catalog and meta families.
  std::size_t PutCatalog(std::string key, std::string value);
  std::size_t DeleteCatalog(std::string key);
  std::size_t PutMeta(std::string name, std::string value);
  std::size_t DeleteMeta(std::string name);
  // An oplog entry with no record change (DDL). `collection` is reported to observers (0: none).
  std::size_t AppendOplog(CollectionId collection, bson::DocumentView oplog_entry);

  std::size_t size() const;
  bool empty() const { return size() == 0; }
  // Bytes the unit will write, roughly.
  std::size_t bytes() const { return bytes_; }
  void Reserve(std::size_t mutations);

 private:
  friend class CommitPipeline;
  std::size_t Add(internal::Mutation mutation);

  std::vector<internal::Mutation> mutations_;
  std::size_t bytes_ = 0;
};

}  // namespace quarry::storage
