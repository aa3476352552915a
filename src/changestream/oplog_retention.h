// Oplog retention: keeps the oplog within a window (--oplogSizeMB, default 1024, and/or an age),
// deleting the oldest entries, and tells change streams where history now starts so that a
// resume from before it fails with ChangeStreamHistoryLost instead of silently skipping events.
//
// It keeps the oplog's bytes and entries per second of timestamp in memory (built by one scan at
// start, then from the commit observer), so deciding what to trim never rescans the oplog. Trimming
// removes whole seconds and always keeps the newest one.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>

#include "base/status.h"
#include "storage/commit_pipeline.h"
#include "storage/oplog.h"
#include "storage/types.h"

namespace quarry::changestream {

struct RetentionPolicy {
  std::uint64_t max_bytes = std::uint64_t{1024} << 20;  // --oplogSizeMB; 0: no size limit
  std::chrono::seconds max_age{0};                      // 0: no age limit
};

// What retention needs from storage: deleting the oldest entries. The real implementation wraps
// the oplog's range delete (which must also persist the new boundary, see TrimmedBefore).
class OplogTrimmer {
 public:
  virtual ~OplogTrimmer() = default;
  // Deletes every oplog entry with ts < `first_kept`.
  virtual Status TrimBefore(storage::Timestamp first_kept) = 0;
};

class OplogRetention final : public storage::CommitObserver {
 public:
  // `trimmed_before`: the boundary of earlier trims, as persisted (0 when never trimmed).
  OplogRetention(RetentionPolicy policy, OplogTrimmer* trimmer, storage::Timestamp trimmed_before);

  // Builds the size index with one scan of `oplog`. Call once, after registering as an observer
  // (entries committed meanwhile may be counted twice: harmless, trimming a little early).
  Status Load(const storage::Oplog& oplog);

  // Counts the chunk's entries. Short: one map update per second of timestamps.
  void OnCommit(const storage::CommittedBatch& batch) override;

  // Trims what lies outside the window at `now` (wall clock, for the age limit). Returns the
  // boundary afterwards. Call from a background timer (every few seconds), not under any lock.
  StatusWith<storage::Timestamp> TrimOnce(std::chrono::system_clock::time_point now);

  // Entries with a timestamp below this may be gone: resuming from before it is
  // ChangeStreamHistoryLost. Raised before entries are deleted. Thread-safe.
  storage::Timestamp TrimmedBefore() const { return trimmed_before_.load(); }

  std::uint64_t bytes() const;    // tracked oplog bytes
  std::uint64_t entries() const;  // tracked oplog entries (collStats' count of local.oplog.rs)

 private:
  const RetentionPolicy policy_;
  OplogTrimmer* const trimmer_;
  std::atomic<storage::Timestamp> trimmed_before_;  // announced boundary
  std::mutex trim_mu_;                              // one trim at a time
  storage::Timestamp deleted_before_ = 0;           // guarded by trim_mu_: last trim that worked

  struct Totals {
    std::uint64_t bytes = 0;
    std::uint64_t entries = 0;
    void Add(const Totals& other) {
      bytes += other.bytes;
      entries += other.entries;
    }
  };
  mutable std::mutex mu_;
  std::map<std::uint32_t, Totals> by_second_;  // guarded by mu_
  Totals total_;                               // guarded by mu_
};

}  // namespace quarry::changestream
