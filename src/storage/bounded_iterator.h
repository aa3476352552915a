// A RocksDB iterator confined to [lower, upper) of one family that walks in either direction
// and can start just past a key: what record and index cursors share.
#pragma once

#include <rocksdb/db.h>

#include <memory>
#include <string>
#include <string_view>

#include "storage/types.h"

namespace quarry::storage::internal {

struct EngineState;
struct ReadView;

class BoundedIterator {
 public:
  // Positions at the first key in `direction` after `start_after` (from the start when empty),
  // reading through `view` (null: the latest data).
  BoundedIterator(const EngineState& state, const ReadView* view,
                  rocksdb::ColumnFamilyHandle* family, std::string lower, std::string upper,
                  ScanDirection direction, std::string_view start_after);
  BoundedIterator(const BoundedIterator&) = delete;
  BoundedIterator& operator=(const BoundedIterator&) = delete;

  bool Valid() const { return it_->Valid() && (!check_bounds_ || WithinBounds()); }
  void Next() {
    if (forward_) {
      it_->Next();
    } else {
      it_->Prev();
    }
  }
  std::string_view key() const { return it_->key().ToStringView(); }
  std::string_view value() const { return it_->value().ToStringView(); }
  const char* value_data() const { return it_->value().data(); }
  rocksdb::Status status() const { return it_->status(); }

 private:
  bool WithinBounds() const {
    const rocksdb::Slice key = it_->key();
    return key.compare(lower_slice_) >= 0 && key.compare(upper_slice_) < 0;
  }

  bool forward_;
  // A transaction's staged writes are merged in by an iterator that does not keep to the read
  // options' bounds: this one then keeps to them itself.
  bool check_bounds_ = false;
  std::string lower_;
  std::string upper_;
  rocksdb::Slice lower_slice_;  // the bounds must outlive the iterator
  rocksdb::Slice upper_slice_;
  rocksdb::ReadOptions options_;  // the iterator reads with these
  std::unique_ptr<rocksdb::Iterator> it_;
};

}  // namespace quarry::storage::internal
