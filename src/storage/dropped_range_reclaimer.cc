#include "storage/dropped_range_reclaimer.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <utility>

#include "base/log.h"

namespace quarry::storage::internal {
namespace {

// After the history window, so that the snapshot taken just before the drop has aged out.
constexpr std::chrono::seconds kMargin{1};

}  // namespace

DroppedRangeReclaimer::DroppedRangeReclaimer(rocksdb::DB* db, std::chrono::seconds history,
                                             std::function<void()> release_expired_snapshots)
    : db_(db),
      history_(history),
      release_expired_snapshots_(std::move(release_expired_snapshots)),
      thread_([this] { Run(); }) {}

DroppedRangeReclaimer::~DroppedRangeReclaimer() { Stop(); }

void DroppedRangeReclaimer::Enqueue(rocksdb::ColumnFamilyHandle* family, std::string begin,
                                    std::string end) {
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    queue_.push_back({family, std::move(begin), std::move(end), Clock::now() + history_ + kMargin});
  }
  wake_.notify_one();
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

void DroppedRangeReclaimer::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    const Clock::time_point due = queue_.front().due;
    if (wake_.wait_until(lock, due, [this] { return stop_; })) return;
    Range range = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    release_expired_snapshots_();
    rocksdb::CompactRangeOptions options;
    // Alongside RocksDB's own compactions, not before them: writes must not stall behind it.
    options.exclusive_manual_compaction = false;
    const rocksdb::Slice begin(range.begin);
    const rocksdb::Slice end(range.end);
    const rocksdb::Status status = db_->CompactRange(options, range.family, &begin, &end);
    lock.lock();
    if (!status.ok() && !stop_) {
      log::Write(log::Severity::kWarning, "STORAGE", 22330, "DroppedRangeReclaimer",
                 "Could not compact the range of a dropped collection or index; RocksDB's own "
                 "compactions will remove it later",
                 {{"error", status.ToString()}});
    }
  }
}

}  // namespace quarry::storage::internal
