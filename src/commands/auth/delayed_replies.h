// Runs callbacks after a delay on one timer thread of its own, so that a reply held back (a
// failed authentication's) holds no io thread or worker. Callbacks must be short: they only
// hand a finished reply back to its connection.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace quarry::commands {

class DelayedReplies {
 public:
  DelayedReplies() = default;
  // Stops the thread; callbacks not yet due are dropped without running.
  ~DelayedReplies();
  DelayedReplies(const DelayedReplies&) = delete;
  DelayedReplies& operator=(const DelayedReplies&) = delete;

  // Runs `callback` on the timer thread once `delay` has passed; at once after Shutdown.
  // Thread-safe.
  void After(std::chrono::milliseconds delay, std::function<void()> callback);
  // Runs every pending callback now (their connections are still open) and stops the thread.
  void Shutdown();

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable wake_;
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>> due_;
  bool stopping_ = false;
  std::thread thread_;  // started by the first After
};

}  // namespace quarry::commands
