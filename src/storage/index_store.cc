// Index reads: range scans over the index family, bounded by encoded keys.
#include "storage/index_store.h"

#include <rocksdb/db.h>

#include "storage/bounded_iterator.h"
#include "storage/engine_internal.h"
#include "storage/key_encoding.h"

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

class RocksIndexCursor : public IndexCursor {
 public:
  RocksIndexCursor(internal::EngineState* state, IndexId index, const KeyRange& range,
                   ScanDirection direction, std::string_view resume_after)
      : it_(state->db, state->index, LowerKey(index, range), UpperKey(index, range), direction,
            resume_after) {}

  bool Valid() const override { return it_.Valid(); }
  void Next() override { it_.Next(); }
  std::string_view entry_key() const override { return it_.key(); }
  std::string_view id_key() const override { return it_.value().substr(0, IdKeyLength()); }
  std::string_view key_values() const override { return it_.value().substr(IdKeyLength()); }
  std::string_view key() const override { return entry_key().substr(kPrefixSize); }
  Status status() const override { return internal::FromRocks(it_.status(), "scanning an index"); }

 private:
  static constexpr std::size_t kPrefixSize = 8;

  // Id keys are self-delimiting encodings: what follows one is the entry's key values.
  std::size_t IdKeyLength() const {
    const std::string_view value = it_.value();
    const std::size_t length = EncodedLength(value);
    return length == 0 ? value.size() : length;
  }
  internal::BoundedIterator it_;
};

}  // namespace

std::unique_ptr<IndexCursor> IndexStore::Scan(IndexId index, const KeyRange& range,
                                              ScanDirection direction,
                                              std::string_view resume_after) const {
  return std::make_unique<RocksIndexCursor>(state_, index, range, direction, resume_after);
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
