// How long an io thread polls for its next event before it goes to sleep. The window starts
// at its limit, doubles back towards it whenever polling catches an event, halves after a run
// of polls that found nothing (the client's pace is slower than the window; a single miss is
// a client that paused once) or when polling keeps another thread from its CPU, and from
// nothing reopens when an event comes soon after the thread went to sleep.
#pragma once

#include <chrono>

namespace quarry::net {

class SpinGovernor {
 public:
  using Micros = std::chrono::microseconds;

  // `limit` 0 never polls.
  explicit SpinGovernor(Micros limit) : limit_(limit), window_(limit) {}

  Micros window() const { return window_; }
  Micros limit() const { return limit_; }

  // Polling caught an event within the window.
  void OnCaught();
  // The thread slept `slept` before its next event had been handled: after polling for
  // `window()` in vain, or at once when the window was nothing. From nothing, an event within
  // the limit reopens the window to twice what the thread slept (which includes waking up,
  // on a virtual machine often longer than the client's own pause), at most the limit.
  void OnSlept(Micros slept);
  // The thread lost its CPU while polling (a gap between two looks at the clock): another
  // thread wants the core, and polling takes it from that thread.
  void OnPreempted();

  // A window that grows from nothing starts here; halved below it, it is nothing.
  static constexpr Micros kSmallestWindow{8};
  // Polls in a row that find nothing before the window halves.
  static constexpr int kMissesBeforeShrinking = 4;
  // Two looks at the clock further apart than this while polling mean the thread was not
  // running in between.
  static constexpr Micros kPreemptionGap{20};

 private:
  const Micros limit_;
  Micros window_;
  int misses_ = 0;  // polls in a row that found nothing
};

}  // namespace quarry::net
