// Key layouts and RocksDB status conversion shared inside storage/.
#include "storage/engine_internal.h"

#include <rocksdb/write_batch.h>

#include <array>

namespace quarry::storage::internal {

Status FromRocks(const rocksdb::Status& status, std::string_view context) {
  if (status.ok()) return Status::OK();
  std::string message(context);
  message.append(": ");
  message.append(status.ToString());
  // A full disk is the client's to know about (mongod's code); other failures, including a
  // process out of descriptors ("Too many open files"), are internal errors of this operation.
  return Status(status.IsNoSpace() ? ErrorCode::kOutOfDiskSpace : ErrorCode::kInternalError,
                std::move(message));
}

std::string IndexPrefix(IndexId index) { return CollectionPrefix(index); }

void AppendIndexPrefix(IndexId index, std::string* out) { AppendBigEndian64(index, out); }

std::string TempDirOf(const std::string& dbpath) { return dbpath + "/_tmp"; }

void PutIndexEntry(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* family,
                   std::string_view key, std::string_view id_key, std::string_view key_values) {
  const rocksdb::Slice key_part(key.data(), key.size());
  const std::array<rocksdb::Slice, 2> value_parts{
      rocksdb::Slice(id_key.data(), id_key.size()),
      rocksdb::Slice(key_values.data(), key_values.size())};
  batch->Put(family, rocksdb::SliceParts(&key_part, 1),
             rocksdb::SliceParts(value_parts.data(), value_parts.size()));
}

std::string IndexUpperBound(IndexId index) { return CollectionUpperBound(index); }

std::string CollectionPrefix(CollectionId collection) {
  std::string out;
  out.reserve(32);
  AppendBigEndian64(collection, &out);
  return out;
}

std::string CollectionUpperBound(CollectionId collection) {
  // Ids are never UINT64_MAX: the catalog counts up from 1.
  return CollectionPrefix(collection + 1);
}

std::string OplogKey(Timestamp ts, std::uint32_t position) {
  std::string out;
  out.reserve(kOplogKeySize);
  AppendBigEndian64(ts, &out);
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((position >> shift) & 0xFF));
  return out;
}

std::string RecordOplogKey(Timestamp ts, std::uint32_t position, RedoKind kind,
                           std::string_view record_key) {
  std::string out = OplogKey(ts, position);
  out.reserve(kOplogKeySize + 1 + record_key.size());
  out.push_back(static_cast<char>(kind));
  out.append(record_key);
  return out;
}

bool ParseRecordOplogKey(std::string_view oplog_key, RedoKind* kind, std::string_view* record_key) {
  if (oplog_key.size() <= kOplogKeySize + 1) return false;
  const char k = oplog_key[kOplogKeySize];
  if (k != static_cast<char>(RedoKind::kPut) && k != static_cast<char>(RedoKind::kDelete)) {
    return false;
  }
  *kind = static_cast<RedoKind>(k);
  *record_key = oplog_key.substr(kOplogKeySize + 1);
  return true;
}

std::string DroppedRecordsName(CollectionId collection) {
  std::string out(kDroppedRecordsPrefix);
  AppendBigEndian64(collection, &out);
  return out;
}

std::string DroppedIndexKeysName(IndexId index) {
  std::string out(kDroppedIndexKeysPrefix);
  AppendBigEndian64(index, &out);
  return out;
}

DroppedRange DroppedRecordsRange(const EngineState& state, CollectionId collection,
                                 std::uint64_t sequence) {
  return {.family = state.docs,
          .keys = state.dropped_records.get(),
          .id = collection,
          .note = DroppedRecordsName(collection),
          .sequence = sequence};
}

DroppedRange DroppedIndexKeysRange(const EngineState& state, IndexId index,
                                   std::uint64_t sequence) {
  return {.family = state.index,
          .keys = state.dropped_index_keys.get(),
          .id = index,
          .note = DroppedIndexKeysName(index),
          .sequence = sequence};
}

std::string StatsName(CollectionId collection) {
  std::string out(kStatsPrefix);
  AppendBigEndian64(collection, &out);
  return out;
}

std::string EncodeStats(const CollectionStats& stats) {
  std::string out;
  AppendBigEndian64(static_cast<std::uint64_t>(stats.count), &out);
  AppendBigEndian64(static_cast<std::uint64_t>(stats.data_bytes), &out);
  return out;
}

bool DecodeStats(std::string_view bytes, CollectionStats* stats) {
  if (bytes.size() != 16) return false;
  stats->count = static_cast<std::int64_t>(LoadBigEndian64(bytes.data()));
  stats->data_bytes = static_cast<std::int64_t>(LoadBigEndian64(bytes.data() + 8));
  return true;
}

}  // namespace quarry::storage::internal
