#include "storage/bounded_iterator.h"

#include "storage/read_view.h"

namespace quarry::storage::internal {

BoundedIterator::BoundedIterator(const EngineState& state, const ReadView* view,
                                 rocksdb::ColumnFamilyHandle* family, std::string lower,
                                 std::string upper, ScanDirection direction,
                                 std::string_view start_after)
    : forward_(direction == ScanDirection::kForward),
      lower_(std::move(lower)),
      upper_(std::move(upper)),
      lower_slice_(lower_),
      upper_slice_(upper_) {
  options_ = ReadOptionsFor(view);
  options_.iterate_lower_bound = &lower_slice_;
  options_.iterate_upper_bound = &upper_slice_;
  it_ = IterateThrough(state, view, family, options_);
  check_bounds_ = view != nullptr && view->writes != nullptr;
  if (start_after.empty()) {
    if (!check_bounds_) {
      forward_ ? it_->SeekToFirst() : it_->SeekToLast();
    } else if (forward_) {
      it_->Seek(lower_slice_);
    } else {
      it_->SeekForPrev(upper_slice_);
      if (it_->Valid() && it_->key() == upper_slice_) it_->Prev();
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
