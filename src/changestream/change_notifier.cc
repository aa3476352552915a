// ChangeNotifier: waiters indexed by timestamp (for wake-ups) and by deadline (for timeouts), one
// worker thread that fires them outside the lock.
#include "changestream/change_notifier.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace quarry::changestream {

ChangeNotifier::ChangeNotifier(storage::Timestamp latest, int worker_nice) : latest_(latest) {
  worker_ = std::thread([this, worker_nice] { Run(worker_nice); });
}

ChangeNotifier::~ChangeNotifier() { Shutdown(); }

void ChangeNotifier::OnCommit(const storage::CommittedBatch& batch) {
  if (batch.entries.empty()) return;
  NotifyCommitted(batch.entries.back().ts);
}

void ChangeNotifier::NotifyCommitted(storage::Timestamp ts) {
  {
    std::lock_guard lock(mu_);
    if (ts <= latest_) return;
    latest_ = ts;
    // Nothing to wake: spare the worker a context switch (about 40 us on this kind of VM).
    if (by_after_.empty() || by_after_.begin()->first >= latest_) return;
  }
  cv_.notify_one();
}

ChangeNotifier::WaitId ChangeNotifier::Wait(storage::Timestamp after, Clock::time_point deadline,
                                            Callback callback) {
  WaitId id = 0;
  {
    std::lock_guard lock(mu_);
    if (!stop_) {
      id = next_id_++;
      Waiter& waiter = waiters_[id];
      waiter.after = after;
      waiter.deadline = deadline;
      waiter.callback = std::move(callback);
      waiter.by_after = by_after_.emplace(after, id);
      waiter.by_deadline = by_deadline_.emplace(deadline, id);
    }
  }
  if (id == 0) {
    callback(false);
    return 0;
  }
  cv_.notify_one();
  return id;
}

void ChangeNotifier::Post(std::function<void()> task) {
  // Due at once: the earliest possible deadline.
  Wait(0, Clock::time_point::min(), [task = std::move(task)](bool) { task(); });
}

bool ChangeNotifier::Cancel(WaitId id) {
  std::lock_guard lock(mu_);
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return false;
  by_after_.erase(it->second.by_after);
  by_deadline_.erase(it->second.by_deadline);
  waiters_.erase(it);
  return true;
}

void ChangeNotifier::Shutdown() {
  {
    std::lock_guard lock(mu_);
    if (stop_ && !worker_.joinable()) return;
    stop_ = true;
  }
  cv_.notify_one();
  if (worker_.joinable()) worker_.join();
  std::vector<Callback> remaining;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, waiter] : waiters_) remaining.push_back(std::move(waiter.callback));
    waiters_.clear();
    by_after_.clear();
    by_deadline_.clear();
  }
  for (Callback& callback : remaining) {
    Callback run = std::move(callback);
    run(false);
  }
}

storage::Timestamp ChangeNotifier::latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

std::size_t ChangeNotifier::waiting() const {
  std::lock_guard lock(mu_);
  return waiters_.size();
}

void ChangeNotifier::Run(int nice) {
  pthread_setname_np(pthread_self(), "ChangeNotifier");
  // On Linux a nice value is a thread's own; failing to set it only costs the priority.
  if (nice != 0) {
    const int lowest = 19;
    const int value = std::min(lowest, getpriority(PRIO_PROCESS, 0) + nice);
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), value);
  }
  std::vector<std::pair<Callback, bool>> due;
  std::unique_lock lock(mu_);
  while (!stop_) {
    // Take every waiter a commit has passed, then every one whose deadline has come.
    while (!by_after_.empty() && by_after_.begin()->first < latest_) {
      auto node = waiters_.extract(by_after_.begin()->second);
      by_deadline_.erase(node.mapped().by_deadline);
      by_after_.erase(by_after_.begin());
      due.emplace_back(std::move(node.mapped().callback), true);
    }
    const Clock::time_point now = Clock::now();
    while (!by_deadline_.empty() && by_deadline_.begin()->first <= now) {
      auto node = waiters_.extract(by_deadline_.begin()->second);
      by_after_.erase(node.mapped().by_after);
      by_deadline_.erase(by_deadline_.begin());
      due.emplace_back(std::move(node.mapped().callback), false);
    }
    if (!due.empty()) {
      lock.unlock();
      for (auto& [callback, woke] : due) {
        // Destroy each callback as soon as it returns: what it captured (a pinned cursor, a
        // connection's completion) is released before the next one runs.
        Callback run = std::move(callback);
        run(woke);
      }
      due.clear();
      lock.lock();
      continue;
    }
    if (by_deadline_.empty()) {
      cv_.wait(lock);
    } else {
      cv_.wait_until(lock, by_deadline_.begin()->first);
    }
  }
}

}  // namespace quarry::changestream
