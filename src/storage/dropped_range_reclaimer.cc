#include "storage/dropped_range_reclaimer.h"

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <utility>

#include "base/log.h"
#include "storage/dropped_keys.h"
#include "storage/engine_internal.h"

namespace quarry::storage::internal {
namespace {

// After the history window, so that the snapshot taken just before the drop has aged out.
constexpr std::chrono::seconds kMargin{1};
// How long to wait again while a snapshot from before the drop is still read.
constexpr std::chrono::seconds kRetry{1};

}  // namespace

DroppedRangeReclaimer::DroppedRangeReclaimer(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* meta,
                                             std::chrono::seconds history,
                                             std::function<void()> release_expired_snapshots,
                                             std::function<Status()> persist_records)
    : db_(db),
      meta_(meta),
      history_(history),
      release_expired_snapshots_(std::move(release_expired_snapshots)),
      persist_records_(std::move(persist_records)),
      thread_([this] { Run(); }) {}

DroppedRangeReclaimer::~DroppedRangeReclaimer() { Stop(); }

void DroppedRangeReclaimer::Enqueue(DroppedRange range) {
  range.keys->Drop(range.id, range.sequence);
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    const Clock::time_point due =
        range.sequence == 0 ? Clock::now() : Clock::now() + history_ + kMargin;
    QueueLocked({std::move(range), due});
  }
  wake_.notify_one();
}

void DroppedRangeReclaimer::QueueLocked(Queued queued) {
  auto after = std::upper_bound(queue_.begin(), queue_.end(), queued.due,
                                [](Clock::time_point due, const Queued& q) { return due < q.due; });
  queue_.insert(after, std::move(queued));
}

void DroppedRangeReclaimer::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
    queue_.clear();
  }
  wake_.notify_one();
  // Makes a CompactRange under way return instead of finishing first.
  db_->DisableManualCompaction();
  if (thread_.joinable()) thread_.join();
}

bool DroppedRangeReclaimer::SnapshotPredates(std::uint64_t sequence) const {
  std::uint64_t oldest = 0;  // 0: no snapshot
  if (!db_->GetIntProperty(rocksdb::DB::Properties::kOldestSnapshotSequence, &oldest)) return true;
  return oldest != 0 && oldest < sequence;
}

Status DroppedRangeReclaimer::Reclaim(const DroppedRange& range) {
  // A collection's records and an index's keys both start with their owner's id
  // (IndexPrefix is CollectionPrefix), so one pair of bounds serves either family.
  const std::string begin_key = CollectionPrefix(range.id);
  const std::string end_key = CollectionUpperBound(range.id);
  const rocksdb::Slice begin(begin_key);
  const rocksdb::Slice end(end_key);
  range.keys->StartReclaiming(range.id);
  rocksdb::Status status =
      rocksdb::DeleteFilesInRange(db_, range.family, &begin, &end, /*include_end=*/false);
  if (status.ok()) {
    rocksdb::CompactRangeOptions options;
    // Alongside RocksDB's own compactions, not before them: writes must not stall behind it.
    options.exclusive_manual_compaction = false;
    status = db_->CompactRange(options, range.family, &begin, &end);
  }
  QUARRY_RETURN_IF_ERROR(FromRocks(status, "compacting a dropped range"));
  QUARRY_RETURN_IF_ERROR(persist_records_());
  QUARRY_RETURN_IF_ERROR(FromRocks(db_->Delete(rocksdb::WriteOptions(), meta_, range.note),
                                   "forgetting a reclaimed drop"));
  range.keys->Forget(range.id);
  return Status::OK();
}

void DroppedRangeReclaimer::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    const Clock::time_point due = queue_.front().due;
    if (wake_.wait_until(lock, due, [this] { return stop_; })) return;
    if (queue_.empty() || queue_.front().due > Clock::now()) continue;  // queued ahead meanwhile
    Queued queued = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    release_expired_snapshots_();
    if (SnapshotPredates(queued.range.sequence)) {
      lock.lock();
      QueueLocked({std::move(queued.range), Clock::now() + kRetry});
      continue;
    }
    const Status status = Reclaim(queued.range);
    lock.lock();
    if (!status.ok() && !stop_) {
      log::Write(log::Severity::kWarning, "STORAGE", 22330, "DroppedRangeReclaimer",
                 "Could not reclaim the range of a dropped collection or index; the next start "
                 "tries again",
                 {{"error", status.ToString()}});
    }
  }
}

}  // namespace quarry::storage::internal
