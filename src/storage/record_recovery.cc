#include "storage/record_recovery.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "bson/value.h"
#include "storage/engine_internal.h"
#include "storage/oplog_entry.h"

namespace quarry::storage::internal {
namespace {

constexpr std::size_t kReplayBatchBytes = std::size_t{4} << 20;

StatusWith<std::optional<Timestamp>> ReadMark(EngineState* state,
                                              rocksdb::ColumnFamilyHandle* family,
                                              std::string_view key) {
  std::string value;
  rocksdb::Status s = state->db->Get(rocksdb::ReadOptions(), family, key, &value);
  if (s.IsNotFound()) return std::optional<Timestamp>();
  if (!s.ok()) return FromRocks(s, "reading the records' applied-through point");
  if (value.size() != 8) {
    return Status(ErrorCode::kInternalError, "the records' applied-through point is corrupt");
  }
  return std::optional<Timestamp>(LoadBigEndian64(value.data()));
}

Status WriteWithoutWal(EngineState* state, rocksdb::WriteBatch* batch) {
  rocksdb::WriteOptions options;
  options.disableWAL = true;
  Status written = FromRocks(state->db->Write(options, batch), "replaying the oplog into records");
  batch->Clear();
  return written;
}

// Redoes the record changes of the entries after `applied_through`; returns how many. Redoing
// an entry the family already holds stores the same bytes again, so a point that lags is safe.
StatusWith<std::uint64_t> Replay(EngineState* state, Timestamp applied_through) {
  std::unique_ptr<rocksdb::Iterator> it(
      state->db->NewIterator(rocksdb::ReadOptions(), state->oplog));
  rocksdb::WriteBatch batch;
  std::uint64_t replayed = 0;
  for (it->Seek(OplogKey(applied_through + 1, 0)); it->Valid(); it->Next()) {
    std::string_view key = it->key().ToStringView();
    RedoKind kind;
    std::string_view record_key;
    if (!ParseRecordOplogKey(key, &kind, &record_key)) continue;
    if (kind == RedoKind::kDelete) {
      batch.Delete(state->docs, record_key);
    } else {
      std::optional<std::string_view> record =
          StoredRecordOf(bson::DocumentView(it->value().data()));
      if (!record.has_value()) {
        return Status(ErrorCode::kInternalError,
                      "an oplog entry that stores a record has no document in 'o' or 'oz'");
      }
      batch.Put(state->docs, record_key, rocksdb::Slice(record->data(), record->size()));
    }
    ++replayed;
    if (batch.GetDataSize() >= kReplayBatchBytes) {
      QUARRY_RETURN_IF_ERROR(WriteWithoutWal(state, &batch));
    }
  }
  QUARRY_RETURN_IF_ERROR(FromRocks(it->status(), "reading the oplog to replay it"));
  if (batch.Count() > 0) QUARRY_RETURN_IF_ERROR(WriteWithoutWal(state, &batch));
  return replayed;
}

}  // namespace

Status PersistRecords(EngineState* state) {
  // A checkpoint must not hold the point this writes without the flush it follows.
  std::lock_guard point_lock(state->records_point_mu);
  // Every record change through `through` was applied before the flush below switches the
  // memtable (the pipeline publishes a timestamp only after writing its records).
  const Timestamp through = state->latest_timestamp.load();
  rocksdb::FlushOptions options;
  options.wait = true;
  options.allow_write_stall = true;
  QUARRY_RETURN_IF_ERROR(FromRocks(state->db->Flush(options, state->docs), "flushing the records"));
  state->records_flushes->NoteDurable(through);
  std::string floor;
  AppendBigEndian64(through, &floor);
  return FromRocks(
      state->db->Put(rocksdb::WriteOptions(), state->meta, kRecordsAppliedThroughName, floor),
      "recording how far the records are on disk");
}

Status RecoverRecords(EngineState* state) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<Timestamp> floor,
                          ReadMark(state, state->meta, kRecordsAppliedThroughName));
  QUARRY_ASSIGN_OR_RETURN(std::optional<Timestamp> legacy,
                          ReadMark(state, state->docs, kLegacyRecordsMarkKey));
  const Timestamp applied_through = floor.value_or(legacy.value_or(0));
  QUARRY_ASSIGN_OR_RETURN(std::uint64_t replayed, Replay(state, applied_through));
  if (replayed > 0 || legacy.has_value()) {
    // The replayed records must be on disk before the point moves past them.
    QUARRY_RETURN_IF_ERROR(PersistRecords(state));
    if (legacy.has_value()) {
      QUARRY_RETURN_IF_ERROR(
          FromRocks(state->db->Delete(rocksdb::WriteOptions(), state->docs, kLegacyRecordsMarkKey),
                    "forgetting the old records mark"));
    }
  }
  if (replayed > 0) {
    log::Write(log::Severity::kInfo, "STORAGE", 22319, "initandlisten",
               "Replayed the oplog into the records after an unclean shutdown",
               {{"appliedThrough", applied_through}, {"entries", replayed}});
  }
  return Status::OK();
}

StatusWith<std::vector<DroppedRange>> UnreclaimedDrops(EngineState* state) {
  std::vector<DroppedRange> drops;
  std::unique_ptr<rocksdb::Iterator> it(
      state->db->NewIterator(rocksdb::ReadOptions(), state->meta));
  for (std::string_view prefix : {kDroppedRecordsPrefix, kDroppedIndexKeysPrefix}) {
    const bool records = prefix == kDroppedRecordsPrefix;
    for (it->Seek(std::string(prefix)); it->Valid(); it->Next()) {
      std::string_view name = it->key().ToStringView();
      if (!name.starts_with(prefix)) break;
      if (name.size() != prefix.size() + 8) continue;
      const std::uint64_t id = LoadBigEndian64(name.data() + prefix.size());
      drops.push_back(records ? DroppedRecordsRange(*state, id, 0)
                              : DroppedIndexKeysRange(*state, id, 0));
    }
  }
  QUARRY_RETURN_IF_ERROR(FromRocks(it->status(), "reading the dropped collections and indexes"));
  return drops;
}

}  // namespace quarry::storage::internal
