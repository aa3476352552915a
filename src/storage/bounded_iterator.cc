#include "storage/bounded_iterator.h"

namespace quarry::storage::internal {

BoundedIterator::BoundedIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family,
                                 std::string lower, std::string upper, ScanDirection direction,
                                 std::string_view start_after)
    : forward_(direction == ScanDirection::kForward),
      lower_(std::move(lower)),
      upper_(std::move(upper)),
      lower_slice_(lower_),
      upper_slice_(upper_) {
  rocksdb::ReadOptions options;
  options.iterate_lower_bound = &lower_slice_;
  options.iterate_upper_bound = &upper_slice_;
  it_.reset(db->NewIterator(options, family));
  if (start_after.empty()) {
    if (forward_) {
      it_->SeekToFirst();
    } else {
      it_->SeekToLast();
    }
    return;
  }
  const rocksdb::Slice start(start_after.data(), start_after.size());
  if (forward_) {
    it_->Seek(start);  // the first key >= start
  } else {
    it_->SeekForPrev(start);  // the last key <= start
  }
  // Key encodings are prefix-free, so the key found is `start` itself or strictly beyond it.
  if (it_->Valid() && it_->key() == start) Next();
}

}  // namespace quarry::storage::internal
