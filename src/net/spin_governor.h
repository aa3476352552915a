// How long an io thread polls for its next event before it goes to sleep. The window starts
// at its limit, doubles back towards it whenever polling catches an event, halves after a run
// of polls that found nothing (the client's pace is slower than the window; a single miss is
// a client that paused once) or when polling keeps another thread from its CPU, and from
// nothing reopens when an event comes soon after the thread went to sleep.
//
// "Soon" counts the thread's own waking, which on a virtual machine can take longer than the
// client's pause: a thread that slept 150 µs may have had its request after 50. So an event
// within three limits reopens the window; a window that then shuts again without catching
// anything halves that reach (down to two limits, which a client slower than polling can meet
// rarely comes within), and a catch restores it.
#pragma once

#include <chrono>

namespace quarry::net {

class SpinGovernor {
 public:
  using Micros = std::chrono::microseconds;

  // `limit` 0 never polls.
  explicit SpinGovernor(Micros limit)
      : limit_(limit), window_(limit), reopen_reach_(limit * kReopenLimits) {}

  Micros window() const { return window_; }
  Micros limit() const { return limit_; }
  // From nothing, the window reopens after a sleep no longer than this.
  Micros reopen_reach() const { return reopen_reach_; }

  // Polling caught an event within the window.
  void OnCaught();
  // The thread slept `slept` before its next event had been handled: after polling for
  // `window()` in vain, or at once when the window was nothing. From nothing, an event within
  // reopen_reach() reopens the window to twice what the thread slept, at most the limit.
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
  // reopen_reach(), in limits: where it starts and returns with a catch, and how short
  // reopenings that catch nothing make it.
  static constexpr int kReopenLimits = 3;
  static constexpr int kReopenLimitsAtLeast = 2;

 private:
  // Halves the window; one that shuts without having caught anything since it opened
  // halves the reach of the next reopening.
  void Shrink();

  const Micros limit_;
  Micros window_;
  Micros reopen_reach_;
  int misses_ = 0;            // polls in a row that found nothing
  bool caught_open_ = false;  // polling caught an event since the window last opened
};

}  // namespace quarry::net
