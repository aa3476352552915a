// The change notifier: lets a getMore wait for the next commit without holding a thread. It is a
// commit observer; one worker thread of its own runs every wake-up and timeout callback, so a
// thousand parked change-stream cursors cost a thousand small records, not a thousand threads,
// and writers only store a timestamp and signal.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "storage/commit_pipeline.h"
#include "storage/types.h"

namespace quarry::changestream {

class ChangeNotifier final : public storage::CommitObserver {
 public:
  using Clock = std::chrono::steady_clock;
  using WaitId = std::uint64_t;
  // `woke_by_change`: true when a commit after the waiter's timestamp arrived, false at the
  // deadline (or at shutdown).
  using Callback = std::function<void(bool woke_by_change)>;

  // `latest`: the newest committed timestamp at start (Oplog::LatestTimestamp()).
  // `worker_nice`: added to the process's nice value for the worker thread (0: the process's
  // own priority; capped at 19, the lowest). Starts the worker thread.
  explicit ChangeNotifier(storage::Timestamp latest = 0, int worker_nice = 0);
  // Shutdown().
  ~ChangeNotifier() override;
  ChangeNotifier(const ChangeNotifier&) = delete;
  ChangeNotifier& operator=(const ChangeNotifier&) = delete;

  // Records the batch's last timestamp and signals the worker; runs no callback.
  void OnCommit(const storage::CommittedBatch& batch) override;
  // The same for a timestamp known some other way (tests, commits made before registration).
  void NotifyCommitted(storage::Timestamp ts);

  // Calls `callback` exactly once, on the worker thread: with true at the first commit whose
  // timestamp is > `after` (at once if there already is one), or with false at `deadline`.
  // The callback is destroyed right after it returns. Callbacks run one after another on one
  // thread: keep them short and never block (one ChangeStreamCursor::NextBatch is fine; post
  // anything longer to an executor); they may call Wait and Cancel. Thread-safe. After
  // Shutdown, calls `callback(false)` on the calling thread and returns 0.
  WaitId Wait(storage::Timestamp after, Clock::time_point deadline, Callback callback);

  // Runs `task` on the worker thread as soon as it is free; after Shutdown, on the calling
  // thread. The same rules as for Wait's callbacks apply.
  void Post(std::function<void()> task);

  // Forgets a waiter. True: its callback will never run. False: it already ran, is running, or
  // the id is unknown.
  bool Cancel(WaitId id);

  // Stops the worker and calls every remaining callback with false, on the calling thread.
  // Idempotent.
  void Shutdown();

  storage::Timestamp latest() const;
  std::size_t waiting() const;  // waiters not fired yet

 private:
  struct Waiter {
    storage::Timestamp after = 0;
    Clock::time_point deadline;
    Callback callback;
    std::multimap<storage::Timestamp, WaitId>::iterator by_after;
    std::multimap<Clock::time_point, WaitId>::iterator by_deadline;
  };

  void Run(int nice);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  storage::Timestamp latest_ = 0;                         // guarded by mu_
  bool stop_ = false;                                     // guarded by mu_
  WaitId next_id_ = 1;                                    // guarded by mu_
  std::unordered_map<WaitId, Waiter> waiters_;            // guarded by mu_
  std::multimap<storage::Timestamp, WaitId> by_after_;    // guarded by mu_
  std::multimap<Clock::time_point, WaitId> by_deadline_;  // guarded by mu_
  std::thread worker_;
};

}  // namespace quarry::changestream
