// Oplog reads: scans from a timestamp, and the newest and oldest timestamps.
#include "storage/oplog.h"

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>

#include <algorithm>

#include "storage/engine_internal.h"
#include "storage/record_recovery.h"

namespace quarry::storage {
namespace {

class RocksOplogCursor : public OplogCursor {
 public:
  // Forward from `from`, or backward from `from` (inclusive) when `backward`; never below the
  // trim boundary, under which entries may still be stored (see Oplog::TrimBefore).
  RocksOplogCursor(internal::EngineState* state, Timestamp from, bool backward)
      : lower_(internal::OplogKey(state->oplog_trimmed_before.load(), 0)),
        lower_slice_(lower_),
        // A chunk's oplog entries are written before its records: readers see an entry only once
        // the pipeline has published its timestamp, when the records are in too.
        upper_(internal::OplogKey(backward ? std::min(from, state->latest_timestamp.load()) + 1
                                           : state->latest_timestamp.load() + 1,
                                  0)),
        upper_slice_(upper_),
        backward_(backward) {
    rocksdb::ReadOptions options;
    options.iterate_lower_bound = &lower_slice_;
    options.iterate_upper_bound = &upper_slice_;
    it_.reset(state->db->NewIterator(options, state->oplog));
    if (backward) {
      it_->SeekToLast();  // the last key below the upper bound
      return;
    }
    std::string start;
    AppendBigEndian64(from, &start);
    it_->Seek(std::max(rocksdb::Slice(start), lower_slice_, CompareSlices));
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
  static bool CompareSlices(const rocksdb::Slice& a, const rocksdb::Slice& b) {
    return a.compare(b) < 0;
  }

  // Both bounds must outlive the iterator.
  std::string lower_;
  rocksdb::Slice lower_slice_;
  std::string upper_;
  rocksdb::Slice upper_slice_;
  bool backward_ = false;
  std::unique_ptr<rocksdb::Iterator> it_;
};

}  // namespace

Timestamp Oplog::LatestTimestamp() const { return state_->latest_timestamp.load(); }

StatusWith<Timestamp> Oplog::OldestTimestamp() const {
  RocksOplogCursor cursor(state_, 0, /*backward=*/false);
  QUARRY_RETURN_IF_ERROR(cursor.status());
  return cursor.Valid() ? cursor.ts() : Timestamp{0};
}

std::unique_ptr<OplogCursor> Oplog::Scan(Timestamp from) const {
  return std::make_unique<RocksOplogCursor>(state_, from, /*backward=*/false);
}

std::unique_ptr<OplogCursor> Oplog::ScanBackward(Timestamp through) const {
  return std::make_unique<RocksOplogCursor>(state_, through, /*backward=*/true);
}

// No range delete: RocksDB keeps the entries a tombstone covers for as long as a snapshot
// older than it lives (the snapshot history keeps them for minutes), and a flushed file with a
// tombstone over the oldest entries overlaps every file below it, so each trim rewrote the whole
// oplog. Readers skip what lies below the boundary instead, and whole table files under it are
// deleted; a file that straddles it goes at a later trim.
Status Oplog::TrimBefore(Timestamp first_kept) {
  if (first_kept <= state_->oplog_trimmed_before.load()) return Status::OK();
  // The entries about to go may be the only durable copy of recent records.
  QUARRY_RETURN_IF_ERROR(internal::PersistRecords(state_));
  // The boundary reaches the disk before any file goes, so a restart never shows a gap below
  // an older boundary.
  std::string boundary;
  AppendBigEndian64(first_kept, &boundary);
  rocksdb::WriteOptions sync;
  sync.sync = true;
  QUARRY_RETURN_IF_ERROR(internal::FromRocks(
      state_->db->Put(sync, state_->meta, internal::kOplogTrimmedBeforeName, boundary),
      "trimming the oplog"));
  state_->oplog_trimmed_before.store(first_kept);
  // Iterators already open keep the files they read until they end.
  const std::string begin = internal::OplogKey(0, 0);
  const std::string end = internal::OplogKey(first_kept, 0);
  const rocksdb::Slice begin_slice(begin);
  const rocksdb::Slice end_slice(end);
  return internal::FromRocks(rocksdb::DeleteFilesInRange(state_->db, state_->oplog, &begin_slice,
                                                         &end_slice, /*include_end=*/false),
                             "deleting trimmed oplog files");
}

Timestamp Oplog::TrimmedBefore() const { return state_->oplog_trimmed_before.load(); }

}  // namespace quarry::storage
