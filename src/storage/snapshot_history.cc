#include "storage/snapshot_history.h"

#include <algorithm>
#include <string>

namespace quarry::storage::internal {

void SnapshotHistory::Add(Timestamp first, std::shared_ptr<const SnapshotHandle> snapshot,
                          Clock::time_point now) {
  while (!entries_.empty() && entries_.size() >= kMaxSnapshots) entries_.pop_front();
  Prune(now);
  entries_.push_back({.first = first, .snapshot = std::move(snapshot), .taken = now});
}

void SnapshotHistory::Prune(Clock::time_point now) {
  while (!entries_.empty() && now - entries_.front().taken > window_) entries_.pop_front();
}

std::shared_ptr<const SnapshotHandle> SnapshotHistory::Latest() const {
  return entries_.empty() ? nullptr : entries_.back().snapshot;
}

StatusWith<std::shared_ptr<const SnapshotHandle>> SnapshotHistory::At(Timestamp at) const {
  // The first chunk that ends after `at`; the one before it holds the data as of `at`, unless
  // `at` falls inside that first chunk.
  auto after = std::ranges::upper_bound(
      entries_, at, {}, [](const Entry& entry) { return entry.snapshot->timestamp; });
  if (after == entries_.begin()) {
    return Status(ErrorCode::kSnapshotTooOld, "Read timestamp " +
                                                  std::to_string(TimestampSeconds(at)) + ", " +
                                                  std::to_string(TimestampIncrement(at)) +
                                                  " is older than the oldest available timestamp");
  }
  if (after != entries_.end() && after->first <= at) {
    return Status(ErrorCode::kSnapshotUnavailable,
                  "Read timestamp " + std::to_string(TimestampSeconds(at)) + ", " +
                      std::to_string(TimestampIncrement(at)) +
                      " falls inside a group of writes that committed together; read at " +
                      std::to_string(TimestampSeconds(after->snapshot->timestamp)) + ", " +
                      std::to_string(TimestampIncrement(after->snapshot->timestamp)) +
                      " or before " + std::to_string(TimestampSeconds(after->first)) + ", " +
                      std::to_string(TimestampIncrement(after->first)));
  }
  return std::prev(after)->snapshot;
}

}  // namespace quarry::storage::internal
