// Index reads: range scans over the index family, bounded by encoded keys.
#include "storage/index_store.h"

#include <rocksdb/db.h>

#include "storage/bounded_iterator.h"
#include "storage/engine_internal.h"
#include "storage/key_encoding.h"
#include "storage/read_view.h"

namespace quarry::storage {
namespace {

// The smallest key greater than every key that starts with `prefix`.
std::string PrefixSuccessor(std::string prefix) {
  while (!prefix.empty()) {
    auto last = static_cast<unsigned char>(prefix.back());
    if (last != 0xFF) {
      prefix.back() = static_cast<char>(last + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;  // every key starts with the empty prefix: no upper bound
}

// Keys are prefix + key fields [+ id key], and encodings are prefix-free: every entry whose
// key fields start with K lies in [prefix+K, successor(prefix+K)).
std::string LowerKey(IndexId index, const KeyRange& range) {
  std::string lower = internal::IndexPrefix(index) + range.lower;
  return range.lower_inclusive ? lower : PrefixSuccessor(std::move(lower));
}

std::string UpperKey(IndexId index, const KeyRange& range) {
  std::string upper = internal::IndexPrefix(index) + range.upper;
  if (range.upper_inclusive) upper = PrefixSuccessor(std::move(upper));
  std::string end = internal::IndexUpperBound(index);
  return upper.empty() || upper > end ? end : upper;
}

constexpr std::size_t kIndexPrefixSize = 8;

// Id keys are self-delimiting encodings: what follows one in an entry's value is the entry's key
// values.
std::size_t IdKeyLengthIn(std::string_view value) {
  const std::size_t length = EncodedLength(value);
  return length == 0 ? value.size() : length;
}

class RocksIndexCursor : public IndexCursor {
 public:
  RocksIndexCursor(internal::EngineState* state, const internal::ReadView* view, IndexId index,
                   const KeyRange& range, ScanDirection direction, std::string_view resume_after)
      : it_(*state, view, state->index, LowerKey(index, range), UpperKey(index, range), direction,
            resume_after) {}

  bool Valid() const override { return it_.Valid(); }
  void Next() override { it_.Next(); }
  std::string_view entry_key() const override { return it_.key(); }
  std::string_view id_key() const override { return it_.value().substr(0, IdKeyLength()); }
  std::string_view key_values() const override { return it_.value().substr(IdKeyLength()); }
  std::string_view key() const override { return entry_key().substr(kIndexPrefixSize); }
  Status status() const override { return internal::FromRocks(it_.status(), "scanning an index"); }

 private:
  std::size_t IdKeyLength() const { return IdKeyLengthIn(it_.value()); }
  internal::BoundedIterator it_;
};

// The one entry keyed by exactly the given key fields, read with a Get: no iterator to build
// over every memtable and file, which costs a point read more than the read itself.
class PointIndexCursor : public IndexCursor {
 public:
  PointIndexCursor(internal::EngineState* state, const internal::ReadView* view, IndexId index,
                   std::string_view key_fields)
      : entry_key_(internal::IndexPrefix(index)) {
    entry_key_ += key_fields;
    rocksdb::Status s = internal::ReadThrough(*state, view, state->index, entry_key_, &value_);
    valid_ = s.ok();
    if (!s.ok() && !s.IsNotFound()) status_ = s;
  }

  bool Valid() const override { return valid_; }
  void Next() override { valid_ = false; }
  std::string_view entry_key() const override { return entry_key_; }
  std::string_view id_key() const override { return value().substr(0, IdKeyLength()); }
  std::string_view key_values() const override { return value().substr(IdKeyLength()); }
  std::string_view key() const override { return entry_key().substr(kIndexPrefixSize); }
  Status status() const override { return internal::FromRocks(status_, "reading an index"); }

 private:
  std::string_view value() const { return {value_.data(), value_.size()}; }
  std::size_t IdKeyLength() const { return IdKeyLengthIn(value()); }

  std::string entry_key_;
  rocksdb::PinnableSlice value_;
  bool valid_ = false;
  rocksdb::Status status_;
};

}  // namespace

std::unique_ptr<IndexCursor> IndexStore::Lookup(IndexId index, std::string_view key_fields) const {
  return std::make_unique<PointIndexCursor>(state_, view_, index, key_fields);
}

std::unique_ptr<IndexCursor> IndexStore::Scan(IndexId index, const KeyRange& range,
                                              ScanDirection direction,
                                              std::string_view resume_after) const {
  return std::make_unique<RocksIndexCursor>(state_, view_, index, range, direction, resume_after);
}

std::uint64_t IndexStore::ApproximateSize(IndexId index) const {
  std::string start = internal::IndexPrefix(index);
  std::string limit = internal::IndexUpperBound(index);
  rocksdb::Range range(start, limit);
  std::uint64_t size = 0;
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = true;
  options.include_files = true;
  (void)state_->db->GetApproximateSizes(options, state_->index, &range, 1, &size);
  return size;
}

}  // namespace quarry::storage
