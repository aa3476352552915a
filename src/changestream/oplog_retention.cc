// OplogRetention: the per-second size index and the trim decision.
#include "changestream/oplog_retention.h"

#include <iterator>

namespace quarry::changestream {
namespace {

// Bytes an entry costs: its BSON plus its key (timestamp and position).
constexpr std::uint64_t kKeyBytes = 12;

}  // namespace

OplogRetention::OplogRetention(RetentionPolicy policy, OplogTrimmer* trimmer,
                               storage::Timestamp trimmed_before)
    : policy_(policy),
      trimmer_(trimmer),
      trimmed_before_(trimmed_before),
      deleted_before_(trimmed_before) {}

Status OplogRetention::Load(const storage::Oplog& oplog) {
  std::map<std::uint32_t, Totals> sizes;
  Totals total;
  std::unique_ptr<storage::OplogCursor> cursor = oplog.Scan(trimmed_before_.load());
  for (; cursor->Valid(); cursor->Next()) {
    const Totals entry{.bytes = cursor->entry().size() + kKeyBytes, .entries = 1};
    sizes[storage::TimestampSeconds(cursor->ts())].Add(entry);
    total.Add(entry);
  }
  QUARRY_RETURN_IF_ERROR(cursor->status());
  std::lock_guard lock(mu_);
  for (const auto& [second, totals] : sizes) by_second_[second].Add(totals);
  total_.Add(total);
  return Status::OK();
}

void OplogRetention::OnCommit(const storage::CommittedBatch& batch) {
  std::lock_guard lock(mu_);
  for (const storage::CommittedEntry& entry : batch.entries) {
    const Totals totals{.bytes = entry.entry.size() + kKeyBytes, .entries = 1};
    by_second_[storage::TimestampSeconds(entry.ts)].Add(totals);
    total_.Add(totals);
  }
}

std::uint64_t OplogRetention::bytes() const {
  std::lock_guard lock(mu_);
  return total_.bytes;
}

std::uint64_t OplogRetention::entries() const {
  std::lock_guard lock(mu_);
  return total_.entries;
}

StatusWith<storage::Timestamp> OplogRetention::TrimOnce(std::chrono::system_clock::time_point now) {
  std::lock_guard trim_lock(trim_mu_);
  std::uint32_t first_kept_second = 0;
  {
    std::lock_guard lock(mu_);
    if (by_second_.size() <= 1) return trimmed_before_.load();
    std::uint64_t remaining = total_.bytes;
    const auto now_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    const std::int64_t oldest_allowed =
        policy_.max_age.count() > 0 ? now_seconds - policy_.max_age.count() : 0;
    auto it = by_second_.begin();
    auto newest = std::prev(by_second_.end());
    while (it != newest) {
      const bool too_big = policy_.max_bytes > 0 && remaining > policy_.max_bytes;
      const bool too_old = static_cast<std::int64_t>(it->first) < oldest_allowed;
      if (!too_big && !too_old) break;
      remaining -= it->second.bytes;
      ++it;
    }
    if (it == by_second_.begin()) return trimmed_before_.load();
    first_kept_second = it->first;
  }

  const storage::Timestamp boundary = storage::MakeTimestamp(first_kept_second, 0);
  if (boundary <= deleted_before_) return trimmed_before_.load();
  // Raise the boundary first: a change stream that scanned while entries disappeared sees it
  // when it checks after its scan. A failed delete leaves it raised (some entries may be gone)
  // and is tried again next time.
  if (boundary > trimmed_before_.load()) trimmed_before_.store(boundary);
  QUARRY_RETURN_IF_ERROR(trimmer_->TrimBefore(boundary));
  deleted_before_ = boundary;

  std::lock_guard lock(mu_);
  while (!by_second_.empty() && by_second_.begin()->first < first_kept_second) {
    total_.bytes -= by_second_.begin()->second.bytes;
    total_.entries -= by_second_.begin()->second.entries;
    by_second_.erase(by_second_.begin());
  }
  return boundary;
}

}  // namespace quarry::changestream
