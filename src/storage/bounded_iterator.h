// A RocksDB iterator confined to [lower, upper) of one family that walks in either direction
// and can start just past a key: what record and index cursors share.
#pragma once

#include <rocksdb/db.h>

#include <memory>
#include <string>
#include <string_view>

#include "storage/types.h"

namespace quarry::storage::internal {

class BoundedIterator {
 public:
  // Positions at the first key in `direction` after `start_after` (from the start when empty).
  BoundedIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family, std::string lower,
                  std::string upper, ScanDirection direction, std::string_view start_after);
  BoundedIterator(const BoundedIterator&) = delete;
  BoundedIterator& operator=(const BoundedIterator&) = delete;

  bool Valid() const { return it_->Valid(); }
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
  bool forward_;
  std::string lower_;
  std::string upper_;
  rocksdb::Slice lower_slice_;  // the bounds must outlive the iterator
  rocksdb::Slice upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

}  // namespace quarry::storage::internal
