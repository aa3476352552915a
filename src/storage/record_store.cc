// Record reads: point lookups by _id and forward scans, straight from the docs family.
#include "storage/record_store.h"

#include <rocksdb/db.h>

#include "storage/bounded_iterator.h"
#include "storage/engine_internal.h"
#include "storage/key_encoding.h"
#include "storage/read_view.h"
#include "storage/record_compression.h"

namespace quarry::storage {
namespace {

class RocksRecordCursor : public RecordCursor {
 public:
  RocksRecordCursor(internal::EngineState* state, const internal::ReadView* view,
                    CollectionId collection, std::string_view start_after_id_key,
                    ScanDirection direction)
      : prefix_size_(internal::CollectionPrefix(collection).size()),
        it_(*state, view, state->docs, internal::CollectionPrefix(collection),
            internal::CollectionUpperBound(collection), direction,
            start_after_id_key.empty()
                ? std::string()
                : internal::CollectionPrefix(collection) + std::string(start_after_id_key)) {
    InflateIfCompressed();
  }

  bool Valid() const override { return it_.Valid() && inflate_error_.ok(); }
  void Next() override {
    it_.Next();
    InflateIfCompressed();
  }
  std::string_view key() const override { return it_.key(); }
  std::string_view id_key() const override { return key().substr(prefix_size_); }
  bson::DocumentView document() const override {
    return bson::DocumentView(inflated_.empty() ? it_.value_data() : inflated_.data());
  }
  Status status() const override {
    if (!inflate_error_.ok()) return inflate_error_;
    return internal::FromRocks(it_.status(), "scanning records");
  }

 private:
  // A corrupt frame ends the scan with its error rather than yielding a wrong document.
  void InflateIfCompressed() {
    inflated_.clear();
    if (!it_.Valid()) return;
    std::string_view stored = it_.value();
    if (!IsCompressedRecord(stored)) return;
    StatusWith<std::string> document = InflateRecord(stored);
    if (!document.ok()) {
      inflate_error_ = document.status();
      return;
    }
    inflated_ = std::move(document).value();
  }

  std::size_t prefix_size_;
  internal::BoundedIterator it_;
  std::string inflated_;  // the current record's document when it is stored compressed
  Status inflate_error_;
};

// A compressed record's document keeps its frame, for a reply to send as it is.
StatusWith<bson::Document> DocumentOfRecord(std::string stored) {
  if (!IsCompressedRecord(stored)) return bson::Document(std::move(stored));
  QUARRY_ASSIGN_OR_RETURN(std::string bytes, InflateRecord(stored));
  bson::Document document(std::move(bytes));
  document.AddCompressedSpans(
      {{.offset = 0,
        .size = document.size(),
        .zstd_frame = std::make_shared<const std::string>(std::move(stored))}});
  return document;
}

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
  rocksdb::PinnableSlice read(&value);  // fills `value` unless it pins a block
  rocksdb::Status s = internal::ReadThrough(*state_, view_, state_->docs, key, &read);
  if (s.IsNotFound()) return std::optional<bson::Document>();
  if (!s.ok()) return internal::FromRocks(s, "reading a record");
  if (read.IsPinned()) value.assign(read.data(), read.size());
  QUARRY_ASSIGN_OR_RETURN(bson::Document document, DocumentOfRecord(std::move(value)));
  return std::optional<bson::Document>(std::move(document));
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
  internal::MultiReadThrough(*state_, view_, state_->docs, keys.size(), slices.data(),
                             values.data(), statuses.data());
  std::vector<std::optional<bson::Document>> out(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    if (statuses[k].IsNotFound()) continue;
    if (!statuses[k].ok()) return internal::FromRocks(statuses[k], "reading a record");
    QUARRY_ASSIGN_OR_RETURN(out[k], DocumentOfRecord(values[k].ToString()));
  }
  return out;
}

std::unique_ptr<RecordCursor> RecordStore::Scan(CollectionId collection,
                                                std::string_view start_after_id_key,
                                                ScanDirection direction) const {
  return std::make_unique<RocksRecordCursor>(state_, view_, collection, start_after_id_key,
                                             direction);
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
