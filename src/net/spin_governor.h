// How long an io thread polls for its next event before it goes to sleep. The window starts
// at its limit, shrinks while events come late (a client's pace that polling cannot meet) or
// while polling keeps another thread from its CPU, and grows back while events come soon
// after the thread went to sleep.
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

  // Polling for `window()` found nothing, and the thread then slept `slept` before its next
  // event had been handled. That includes waking up, which on a virtual machine can take
  // longer than the client's own pause: up to twice the limit counts as soon.
  void OnSlept(Micros slept);
  // The thread lost its CPU while polling (a gap between two looks at the clock): another
  // thread wants the core, and polling takes it from that thread.
  void OnPreempted();

  // A window that grows from nothing starts here; halved below it, it is nothing.
  static constexpr Micros kSmallestWindow{8};
  // Two looks at the clock further apart than this while polling mean the thread was not
  // running in between.
  static constexpr Micros kPreemptionGap{20};

 private:
  const Micros limit_;
  Micros window_;
};

}  // namespace quarry::net
