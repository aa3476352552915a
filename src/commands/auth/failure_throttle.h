// How long to hold the reply to a failed authentication: longer the more failures one address
// had recently, so that guessing passwords is slow while other clients are not held up.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace quarry::commands {

class FailureThrottle {
 public:
  using Clock = std::chrono::steady_clock;
  // Failures more than this far apart do not add up.
  static constexpr std::chrono::seconds kWindow{60};
  static constexpr std::chrono::milliseconds kFirstDelay{100};
  static constexpr std::chrono::milliseconds kMaxDelay{5000};

  // Records a failed authentication from `address` (an IP, no port) at `now` and returns how
  // long its reply waits: nothing for the first failure in the window, then 100 ms doubling
  // with each further failure, at most 5 s. Thread-safe.
  std::chrono::milliseconds RecordFailure(std::string_view address, Clock::time_point now);
  // A success from `address` forgets its failures.
  void RecordSuccess(std::string_view address);

 private:
  struct Recent {
    int failures = 0;
    Clock::time_point last;
  };
  std::mutex mu_;
  std::unordered_map<std::string, Recent> by_address_;
};

// The address part of "ip:port" or "[ip6]:port".
std::string_view AddressOf(std::string_view remote);

}  // namespace quarry::commands
