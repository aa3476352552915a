// A mutex for short critical sections that threads on other cores contend for.
#pragma once

#include <chrono>
#include <mutex>

namespace quarry {

// Locking first retries for up to `spin_budget` while the holder, running on another core,
// finishes; only then does the thread sleep. A sleep and the wake-up that ends it cost two
// context switches, which on a virtual machine take longer than a section of microseconds:
// with two network threads committing small inserts, a plain mutex made about one futex call
// per insert, and spinning first raised the inserts per second by about a seventh. Meets
// BasicLockable and Lockable, so std::lock_guard and std::unique_lock take it.
class SpinningMutex {
 public:
  // No spinning on a machine with a single core, where the holder cannot run meanwhile.
  explicit SpinningMutex(std::chrono::microseconds spin_budget);

  SpinningMutex(const SpinningMutex&) = delete;
  SpinningMutex& operator=(const SpinningMutex&) = delete;

  void lock();
  bool try_lock() { return mu_.try_lock(); }
  void unlock() { mu_.unlock(); }

 private:
  std::mutex mu_;
  std::chrono::nanoseconds spin_budget_;
};

}  // namespace quarry
