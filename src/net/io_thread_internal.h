// The loop of an io thread.
#pragma once

#include <chrono>

#include "net/asio_internal.h"

namespace quarry::net::internal {

class CpuPressure;
class ReadinessRing;

// Runs `io` on the calling thread until it is stopped. With a ring and a limit above 0, the
// thread that runs out of events polls the ring for up to the limit (as SpinGovernor
// adapts it) before it sleeps in the reactor: a client that sends its next request within
// microseconds of the reply then finds the thread awake, which on a virtual machine saves
// more than the polling costs (the sleeping thread's CPU halts, and waking it takes the host).
// It sleeps at once while `pressure` says threads wait for a CPU, and always without a ring,
// as io_context::run() does.
void RunIoThread(asio::io_context& io, ReadinessRing* ring, CpuPressure& pressure,
                 std::chrono::microseconds limit);

}  // namespace quarry::net::internal
