#include "storage/records_flush_tracker.h"

namespace quarry::storage::internal {
namespace {

// Past this many writes between two flushes (small commits), the newest note replaces the one
// before it: the floor may then lag by one memtable, which costs replay time, never records.
constexpr std::size_t kMaxPending = 4096;

}  // namespace

void RecordsFlushTracker::NoteWritten(rocksdb::SequenceNumber sequence, Timestamp through) {
  std::lock_guard lock(mu_);
  if (pending_.size() >= kMaxPending) {
    pending_.back() = {sequence, through};
  } else {
    pending_.emplace_back(sequence, through);
  }
}

void RecordsFlushTracker::NoteDurable(Timestamp through) {
  Timestamp current = durable_through_.load();
  while (current < through && !durable_through_.compare_exchange_weak(current, through)) {
  }
}

// A family's flushes are installed in order and a flush takes whole memtables, and a records
// write lands in one memtable: so every noted write at or below the flushed memtables' largest
// sequence number is on disk.
void RecordsFlushTracker::OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo& info) {
  if (info.cf_name != docs_family_) return;
  Timestamp covered = 0;
  {
    std::lock_guard lock(mu_);
    while (!pending_.empty() && pending_.front().first <= info.largest_seqno) {
      covered = pending_.front().second;
      pending_.pop_front();
    }
  }
  if (covered != 0) NoteDurable(covered);
}

}  // namespace quarry::storage::internal
