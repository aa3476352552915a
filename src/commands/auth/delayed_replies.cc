// The timer thread behind DelayedReplies.
#include "commands/auth/delayed_replies.h"

#include <utility>

namespace quarry::commands {

DelayedReplies::~DelayedReplies() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DelayedReplies::Shutdown() {
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    pending.swap(due_);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (auto& [when, callback] : pending) callback();
}

void DelayedReplies::After(std::chrono::milliseconds delay, std::function<void()> callback) {
  bool stopped = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped = stopping_;
    if (!stopped) {
      due_.emplace(std::chrono::steady_clock::now() + delay, std::move(callback));
      if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
    }
  }
  if (stopped) {  // after Shutdown: answered at once
    callback();
    return;
  }
  wake_.notify_all();
}

void DelayedReplies::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (due_.empty()) {
      wake_.wait(lock);
      continue;
    }
    auto first = due_.begin();
    if (first->first > std::chrono::steady_clock::now()) {
      wake_.wait_until(lock, first->first);
      continue;
    }
    std::function<void()> callback = std::move(first->second);
    due_.erase(first);
    lock.unlock();
    callback();
    lock.lock();
  }
}

}  // namespace quarry::commands
