// Oplog reads: scans from a timestamp, and the newest and oldest timestamps.
#include "storage/oplog.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>

#include "storage/engine_internal.h"
#include "storage/record_recovery.h"

namespace quarry::storage {
namespace {

class RocksOplogCursor : public OplogCursor {
 public:
  // Forward from `from`, or backward from `from` (inclusive) when `backward`.
  RocksOplogCursor(internal::EngineState* state, Timestamp from, bool backward)
      // A chunk's oplog entries are written before its records: readers see an entry only once
      // the pipeline has published its timestamp, when the records are in too.
      : upper_(internal::OplogKey(backward ? std::min(from, state->latest_timestamp.load()) + 1
                                           : state->latest_timestamp.load() + 1,
                                  0)),
        upper_slice_(upper_),
        backward_(backward) {
    rocksdb::ReadOptions options;
    options.iterate_upper_bound = &upper_slice_;
    it_.reset(state->db->NewIterator(options, state->oplog));
    if (backward) {
      it_->SeekToLast();  // the last key below the upper bound
      return;
    }
    std::string start;
    AppendBigEndian64(from, &start);
    it_->Seek(start);
  }

  bool Valid() const override { return it_->Valid(); }
  void Next() override {
    if (backward_) {
      it_->Prev();
    } else {
      it_->Next();
    }
  }
  Timestamp ts() const override { return LoadBigEndian64(it_->key().data()); }
  bson::DocumentView entry() const override { return bson::DocumentView(it_->value().data()); }
  Status status() const override {
    return internal::FromRocks(it_->status(), "scanning the oplog");
  }

 private:
  std::string upper_;
  rocksdb::Slice upper_slice_;  // must outlive the iterator
  bool backward_ = false;
  std::unique_ptr<rocksdb::Iterator> it_;
};

}  // namespace

Timestamp Oplog::LatestTimestamp() const { return state_->latest_timestamp.load(); }

StatusWith<Timestamp> Oplog::OldestTimestamp() const {
  std::unique_ptr<rocksdb::Iterator> it(
      state_->db->NewIterator(rocksdb::ReadOptions(), state_->oplog));
  it->SeekToFirst();
  if (!it->status().ok())
    return internal::FromRocks(it->status(), "reading the oldest oplog entry");
  if (!it->Valid()) return Timestamp{0};
  return LoadBigEndian64(it->key().data());
}

std::unique_ptr<OplogCursor> Oplog::Scan(Timestamp from) const {
  return std::make_unique<RocksOplogCursor>(state_, from, /*backward=*/false);
}

std::unique_ptr<OplogCursor> Oplog::ScanBackward(Timestamp through) const {
  return std::make_unique<RocksOplogCursor>(state_, through, /*backward=*/true);
}

Status Oplog::TrimBefore(Timestamp first_kept) {
  if (first_kept <= state_->oplog_trimmed_before.load()) return Status::OK();
  // The entries about to go may be the only durable copy of recent records.
  QUARRY_RETURN_IF_ERROR(internal::PersistRecords(state_));
  rocksdb::WriteBatch batch;
  rocksdb::Status put =
      batch.DeleteRange(state_->oplog, internal::OplogKey(0, 0), internal::OplogKey(first_kept, 0));
  if (!put.ok()) return internal::FromRocks(put, "trimming the oplog");
  std::string boundary;
  AppendBigEndian64(first_kept, &boundary);
  put = batch.Put(state_->meta, internal::kOplogTrimmedBeforeName, boundary);
  if (!put.ok()) return internal::FromRocks(put, "trimming the oplog");
  QUARRY_RETURN_IF_ERROR(internal::FromRocks(state_->db->Write(rocksdb::WriteOptions(), &batch),
                                             "trimming the oplog"));
  state_->oplog_trimmed_before.store(first_kept);
  return Status::OK();
}

Timestamp Oplog::TrimmedBefore() const { return state_->oplog_trimmed_before.load(); }

}  // namespace quarry::storage
