#include <immintrin.h>

#include "net/cpu_pressure_internal.h"
#include "net/io_thread_internal.h"
#include "net/readiness_ring_internal.h"
#include "net/spin_governor.h"

namespace quarry::net::internal {

namespace {

using Clock = std::chrono::steady_clock;

enum class Polled { kRaised, kTimedOut, kPreempted };

// Watches the ring for `window`, without a system call.
Polled PollRing(const ReadinessRing& ring, std::chrono::microseconds window,
                Clock::time_point start) {
  Clock::time_point last = start;
  for (;;) {
    if (ring.Raised()) return Polled::kRaised;
    const Clock::time_point now = Clock::now();
    if (now - last > SpinGovernor::kPreemptionGap) return Polled::kPreempted;
    if (now - start >= window) return Polled::kTimedOut;
    last = now;
    _mm_pause();
  }
}

}  // namespace

void RunIoThread(asio::io_context& io, ReadinessRing* ring, CpuPressure& pressure,
                 std::chrono::microseconds limit) {
  if (ring == nullptr || limit.count() <= 0) {
    io.run();
    return;
  }
  SpinGovernor governor(limit);
  for (;;) {
    io.poll();
    if (io.stopped()) return;
    // Settled once the reactor has looked: what the ring raises from here on came after the
    // look, or so close to it that a second look costs one empty epoll_wait. (What came just
    // before the settling, unflagged, waits for the window, then wakes the reactor at once.)
    ring->Settle();
    if (ring->Raised()) continue;
    const Clock::time_point now = Clock::now();
    pressure.Refresh(now);
    const bool polling = governor.window().count() > 0 && !pressure.Contended();
    const Polled polled = polling ? PollRing(*ring, governor.window(), now) : Polled::kTimedOut;
    if (polled == Polled::kRaised) {
      governor.OnCaught();
      continue;
    }
    if (polled == Polled::kPreempted) governor.OnPreempted();
    const Clock::time_point before = Clock::now();
    if (io.run_one() == 0) return;  // stopped
    // While contended the window is kept as it was: it says nothing about the client's pace.
    if (polled == Polled::kTimedOut && (polling || governor.window().count() == 0)) {
      governor.OnSlept(
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - before));
    }
  }
}

}  // namespace quarry::net::internal
