// A WriteUnit collects the mutations of one request, prepared outside any lock (documents
// checked, keys encoded, oplog entries laid out), for CommitPipeline::Commit to apply in order.
#pragma once

#include <cstddef>
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

  // Inserts `document`; fails at commit with kDuplicateKey when a record with an equal _id
  // exists. REQUIRES: `document` has an _id field.
  std::size_t Insert(const CollectionRef& collection, bson::DocumentView document);
  // Replaces the record the caller read as `pre_image` by `post_image` (same _id). Fails at
  // commit with kWriteConflict when the stored record is gone or no longer `pre_image`:
  // re-read and retry.
  std::size_t Update(const CollectionRef& collection, bson::DocumentView pre_image,
                     bson::DocumentView post_image, UpdateKind kind);
  // Deletes the record the caller read as `deleted`; kWriteConflict as for Update.
  std::size_t Delete(const CollectionRef& collection, bson::DocumentView deleted);
  // Deletes every record of `collection` and its counters. Later record mutations of it, in
  // this unit or any other, fail with kWriteConflict (ids are never reused).
  std::size_t DropCollectionRecords(CollectionId collection);
  // Raw puts and deletes in the catalog and meta families.
  std::size_t PutCatalog(std::string key, std::string value);
  std::size_t DeleteCatalog(std::string key);
  std::size_t PutMeta(std::string name, std::string value);
  std::size_t DeleteMeta(std::string name);
  // Logs a DDL command {op: "c", ns: "<db>.$cmd", ui: `uuid` (none when empty), o}, with no
  // record change. `collection` is reported to observers (0: none).
  std::size_t LogCommand(CollectionId collection, std::string_view db, std::string_view uuid,
                         bson::DocumentView o);

  // Puts meta `name` = `value` in the same atomic write as mutation `mutation`, if and only if
  // that mutation applies: how a retryable write records that a statement executed.
  // REQUIRES: `mutation` is an index this unit returned, with no other PutMetaWith.
  void PutMetaWith(std::size_t mutation, std::string name, std::string value);

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
