#include "storage/record_recovery.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/log.h"
#include "bson/value.h"
#include "storage/engine_internal.h"

namespace quarry::storage::internal {
namespace {

constexpr std::size_t kReplayBatchBytes = std::size_t{4} << 20;

StatusWith<Timestamp> ReadAppliedThrough(EngineState* state) {
  std::string value;
  rocksdb::Status s =
      state->db->Get(rocksdb::ReadOptions(), state->docs, kRecordsAppliedThroughKey, &value);
  if (s.IsNotFound()) return Timestamp{0};
  if (!s.ok()) return FromRocks(s, "reading the records' applied-through mark");
  if (value.size() != 8) {
    return Status(ErrorCode::kInternalError, "the records' applied-through mark is corrupt");
  }
  return LoadBigEndian64(value.data());
}

Status WriteWithoutWal(EngineState* state, rocksdb::WriteBatch* batch, Timestamp through) {
  std::string mark;
  AppendBigEndian64(through, &mark);
  batch->Put(state->docs, kRecordsAppliedThroughKey, mark);
  rocksdb::WriteOptions options;
  options.disableWAL = true;
  Status written = FromRocks(state->db->Write(options, batch), "replaying the oplog into records");
  batch->Clear();
  return written;
}

// Redoes the record changes of the entries after `applied_through`; returns how many.
StatusWith<std::uint64_t> Replay(EngineState* state, Timestamp applied_through) {
  std::unique_ptr<rocksdb::Iterator> it(
      state->db->NewIterator(rocksdb::ReadOptions(), state->oplog));
  rocksdb::WriteBatch batch;
  std::uint64_t replayed = 0;
  Timestamp last = applied_through;
  for (it->Seek(OplogKey(applied_through + 1, 0)); it->Valid(); it->Next()) {
    std::string_view key = it->key().ToStringView();
    RedoKind kind;
    std::string_view record_key;
    if (!ParseRecordOplogKey(key, &kind, &record_key)) continue;
    last = LoadBigEndian64(key.data());
    if (kind == RedoKind::kDelete) {
      batch.Delete(state->docs, record_key);
    } else {
      bson::ValueView o = bson::DocumentView(it->value().data()).Get("o");
      if (o.type() != bson::Type::kDocument) {
        return Status(ErrorCode::kInternalError,
                      "an oplog entry that stores a record has no document in 'o'");
      }
      batch.Put(state->docs, record_key, rocksdb::Slice(o.data(), o.size()));
    }
    ++replayed;
    if (batch.GetDataSize() >= kReplayBatchBytes) {
      QUARRY_RETURN_IF_ERROR(WriteWithoutWal(state, &batch, last));
    }
  }
  QUARRY_RETURN_IF_ERROR(FromRocks(it->status(), "reading the oplog to replay it"));
  if (batch.Count() > 0) QUARRY_RETURN_IF_ERROR(WriteWithoutWal(state, &batch, last));
  return replayed;
}

// Deletes the record ranges of dropped collections again; returns their meta names.
StatusWith<std::vector<std::string>> DeleteDroppedRanges(EngineState* state) {
  std::unique_ptr<rocksdb::Iterator> it(
      state->db->NewIterator(rocksdb::ReadOptions(), state->meta));
  std::vector<std::string> names;
  rocksdb::WriteBatch batch;
  for (it->Seek(std::string(kDroppedRecordsPrefix)); it->Valid(); it->Next()) {
    std::string_view name = it->key().ToStringView();
    if (!name.starts_with(kDroppedRecordsPrefix)) break;
    if (name.size() != kDroppedRecordsPrefix.size() + 8) continue;
    const CollectionId collection = LoadBigEndian64(name.data() + kDroppedRecordsPrefix.size());
    batch.DeleteRange(state->docs, CollectionPrefix(collection), CollectionUpperBound(collection));
    names.emplace_back(name);
  }
  QUARRY_RETURN_IF_ERROR(FromRocks(it->status(), "reading the dropped collections"));
  if (names.empty()) return names;
  rocksdb::WriteOptions options;
  options.disableWAL = true;
  QUARRY_RETURN_IF_ERROR(
      FromRocks(state->db->Write(options, &batch), "deleting dropped collections' records"));
  return names;
}

}  // namespace

Status PersistRecords(EngineState* state) {
  rocksdb::FlushOptions options;
  options.wait = true;
  options.allow_write_stall = true;
  return FromRocks(state->db->Flush(options, state->docs), "flushing the records");
}

Status RecoverRecords(EngineState* state) {
  QUARRY_ASSIGN_OR_RETURN(Timestamp applied_through, ReadAppliedThrough(state));
  QUARRY_ASSIGN_OR_RETURN(std::uint64_t replayed, Replay(state, applied_through));
  QUARRY_ASSIGN_OR_RETURN(std::vector<std::string> dropped, DeleteDroppedRanges(state));
  if (!dropped.empty()) {
    // The range deletes must be on disk before the notes that would redo them go.
    QUARRY_RETURN_IF_ERROR(PersistRecords(state));
    rocksdb::WriteBatch batch;
    for (const std::string& name : dropped) batch.Delete(state->meta, name);
    QUARRY_RETURN_IF_ERROR(FromRocks(state->db->Write(rocksdb::WriteOptions(), &batch),
                                     "forgetting dropped collections"));
  }
  if (replayed > 0) {
    log::Write(log::Severity::kInfo, "STORAGE", 22319, "initandlisten",
               "Replayed the oplog into the records after an unclean shutdown",
               {{"appliedThrough", applied_through},
                {"entries", replayed},
                {"droppedCollections", static_cast<std::uint64_t>(dropped.size())}});
  }
  return Status::OK();
}

}  // namespace quarry::storage::internal
