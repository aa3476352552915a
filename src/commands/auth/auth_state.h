// The server's authentication state: the generation that tells
// connections their privileges are stale, mongod's authentication counters, and the delay
// that slows down repeated failures from one address.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "commands/auth/delayed_replies.h"
#include "commands/auth/failure_throttle.h"

namespace quarry::commands {

// serverStatus' security.authentication.mechanisms.<mechanism>.
struct MechanismCounters {
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> successful{0};
  std::atomic<std::int64_t> speculative_received{0};
  std::atomic<std::int64_t> speculative_successful{0};
};

struct AuthState {
  // Bumped by every change to users or roles: a connection whose privileges were resolved at
  // an older generation resolves them again before its next command.
  std::atomic<std::uint64_t> generation{1};
  MechanismCounters sha1;
  MechanismCounters sha256;
  FailureThrottle failures;
  DelayedReplies delayed;

  void Changed() { generation.fetch_add(1); }
};

}  // namespace quarry::commands
