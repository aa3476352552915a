// The representation of a WriteUnit's mutations, shared by write_unit.cc and commit_pipeline.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/oplog_entry_internal.h"
#include "storage/types.h"
#include "storage/write_unit.h"

namespace quarry::storage::internal {

enum class MutationKind : std::uint8_t {
  kInsert,
  kUpdate,
  kDelete,
  kAddIndexKeys,
  kDropIndexKeys,
  kDropCollectionRecords,
  kPutCatalog,
  kDeleteCatalog,
  kPutMeta,
  kDeleteMeta,
  kOplogOnly,
};

inline bool IsRecordMutation(MutationKind kind) {
  return kind == MutationKind::kInsert || kind == MutationKind::kUpdate ||
         kind == MutationKind::kDelete;
}

// A write conflict (112): the writer re-reads and retries, a transaction aborts.
inline Status Conflict(std::string_view why) {
  return Status(ErrorCode::kWriteConflict, std::string(why));
}

// The whole key of `entry` in the index family: the index prefix, the encoded key fields, and
// for an index whose keys need not be unique the record's id key, which keeps keys distinct.
std::string IndexFamilyKey(const IndexEntry& entry, std::string_view id_key);

// One index entry to write: `key` is its whole key in the index family.
struct IndexWrite {
  bool put = true;  // false: delete
  std::string key;
  const IndexEntry* entry = nullptr;  // into the mutation's `index_entries`, for errors
};

struct Mutation {
  MutationKind kind = MutationKind::kOplogOnly;
  CollectionId collection = 0;
  std::string key;  // record key (prefix + id key), or the catalog / meta key
  // The catalog / meta value; the pre-image of an update or delete when its entry omits it or
  // holds it compressed.
  std::string value;
  // The laid-out oplog entry (placeholders for ts and wall), empty when there is none. Insert
  // and Update store the record from its `o`, and the pipeline checks Update's and Delete's
  // read against its `pre`, so each document is held once.
  std::string oplog;
  Span ns;
  Span record;  // Insert, Update: the stored record in `oplog` (the document, or its frame)
  // Insert, Update of a compressed record: the document itself, for index keys and observers.
  std::string document;
  Span pre;  // Update, and Delete when logged: the document as read, in `oplog`
  std::optional<std::uint64_t> tag;       // WriteUnit::Tag, for the chunk record
  std::vector<IndexEntry> index_entries;  // what `index_writes` write, removed then added
  std::vector<IndexWrite> index_writes;   // deletes first, then puts
  std::vector<IndexId> indexes;           // kDropCollectionRecords, kDropIndexKeys
  Status failure;                         // WriteUnit::Fail: reported instead of applying
  std::string unlogged_ns;                // AddIndexKeys: the namespace its errors name
  std::uint64_t read_point = 0;           // AddIndexKeys: the chunks its record's read saw
  // Update, Delete: the stored frame the pre-image was read from, when the caller had it.
  std::shared_ptr<const std::string> read_frame;

  // The record's id key: its key without the collection prefix.
  std::string_view id_key() const { return std::string_view(key).substr(8); }

  std::string_view record_bytes() const { return record.In(oplog); }
  bson::DocumentView record_document() const {
    return bson::DocumentView(document.empty() ? record_bytes().data() : document.data());
  }
  std::string_view ns_text() const { return oplog.empty() ? unlogged_ns : ns.In(oplog); }
  // The bytes the caller read, which the stored record must still equal.
  std::string_view pre_image() const { return value.empty() ? pre.In(oplog) : value; }
};

// Whether `stored`, a record as stored now, is still the document `m` (an update or delete)
// read.
bool StillHoldsPreImage(std::string_view stored, const Mutation& m);

}  // namespace quarry::storage::internal
