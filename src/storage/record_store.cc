// Record reads: point lookups by _id and forward scans, straight from the docs family.
#include "storage/record_store.h"

#include <rocksdb/db.h>

#include "storage/bounded_iterator.h"
#include "storage/engine_internal.h"
#include "storage/key_encoding.h"

namespace quarry::storage {
namespace {

class RocksRecordCursor : public RecordCursor {
 public:
  RocksRecordCursor(internal::EngineState* state, CollectionId collection,
                    std::string_view start_after_id_key, ScanDirection direction)
      : prefix_size_(internal::CollectionPrefix(collection).size()),
        it_(state->db, state->docs, internal::CollectionPrefix(collection),
            internal::CollectionUpperBound(collection), direction,
            start_after_id_key.empty()
                ? std::string()
                : internal::CollectionPrefix(collection) + std::string(start_after_id_key)) {}

  bool Valid() const override { return it_.Valid(); }
  void Next() override { it_.Next(); }
  std::string_view key() const override { return it_.key(); }
  std::string_view id_key() const override { return key().substr(prefix_size_); }
  bson::DocumentView document() const override { return bson::DocumentView(it_.value_data()); }
  Status status() const override { return internal::FromRocks(it_.status(), "scanning records"); }

 private:
  std::size_t prefix_size_;
  internal::BoundedIterator it_;
};

}  // namespace

std::string EncodeIdKey(bson::ValueView id) { return EncodeIndexKey(id); }

StatusWith<std::optional<bson::Document>> RecordStore::FindById(CollectionId collection,
                                                                bson::ValueView id) const {
  return FindByIdKey(collection, EncodeIdKey(id));
}

StatusWith<std::optional<bson::Document>> RecordStore::FindByIdKey(CollectionId collection,
                                                                   std::string_view id_key) const {
  std::string key = internal::CollectionPrefix(collection);
  key.append(id_key);
  std::string value;
  rocksdb::Status s = state_->db->Get(rocksdb::ReadOptions(), state_->docs, key, &value);
  if (s.IsNotFound()) return std::optional<bson::Document>();
  if (!s.ok()) return internal::FromRocks(s, "reading a record");
  return std::optional<bson::Document>(bson::Document(std::move(value)));
}

StatusWith<std::vector<std::optional<bson::Document>>> RecordStore::FindByIdKeys(
    CollectionId collection, std::span<const std::string> id_keys) const {
  const std::string prefix = internal::CollectionPrefix(collection);
  std::vector<std::string> keys;
  keys.reserve(id_keys.size());
  for (const std::string& id_key : id_keys) keys.push_back(prefix + id_key);
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  state_->db->MultiGet(rocksdb::ReadOptions(), state_->docs, keys.size(), slices.data(),
                       values.data(), statuses.data());
  std::vector<std::optional<bson::Document>> out(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    if (statuses[k].IsNotFound()) continue;
    if (!statuses[k].ok()) return internal::FromRocks(statuses[k], "reading a record");
    out[k] = bson::Document(values[k].ToString());
  }
  return out;
}

std::unique_ptr<RecordCursor> RecordStore::Scan(CollectionId collection,
                                                std::string_view start_after_id_key,
                                                ScanDirection direction) const {
  return std::make_unique<RocksRecordCursor>(state_, collection, start_after_id_key, direction);
}

CollectionStats RecordStore::Stats(CollectionId collection) const {
  return state_->stats.Get(collection);
}

std::uint64_t RecordStore::ApproximateStorageSize(CollectionId collection) const {
  std::string start = internal::CollectionPrefix(collection);
  std::string limit = internal::CollectionUpperBound(collection);
  rocksdb::Range range(start, limit);
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = true;
  options.include_files = true;
  std::uint64_t size = 0;
  rocksdb::Status s = state_->db->GetApproximateSizes(options, state_->docs, &range, 1, &size);
  return s.ok() ? size : 0;
}

}  // namespace quarry::storage
