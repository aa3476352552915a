// Per-address failure counts for the authentication delay.
#include "commands/auth/failure_throttle.h"

#include <algorithm>

namespace quarry::commands {
namespace {
// Addresses kept at most; past it, entries older than the window are dropped.
constexpr std::size_t kMaxAddresses = 10000;
}  // namespace

std::chrono::milliseconds FailureThrottle::RecordFailure(std::string_view address,
                                                         Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (by_address_.size() >= kMaxAddresses) {
    std::erase_if(by_address_,
                  [now](const auto& entry) { return now - entry.second.last > kWindow; });
  }
  Recent& recent = by_address_[std::string(address)];
  if (recent.failures > 0 && now - recent.last > kWindow) recent.failures = 0;
  ++recent.failures;
  recent.last = now;
  if (recent.failures <= 1) return std::chrono::milliseconds(0);
  const int doublings = std::min(recent.failures - 2, 16);
  return std::min(kMaxDelay, std::chrono::milliseconds(kFirstDelay.count() << doublings));
}

void FailureThrottle::RecordSuccess(std::string_view address) {
  std::lock_guard<std::mutex> lock(mu_);
  by_address_.erase(std::string(address));
}

std::string_view AddressOf(std::string_view remote) {
  if (remote.starts_with("[")) {
    const std::size_t close = remote.find(']');
    return close == std::string_view::npos ? remote : remote.substr(1, close - 1);
  }
  const std::size_t colon = remote.rfind(':');
  if (colon == std::string_view::npos || remote.find(':') != colon) return remote;
  return remote.substr(0, colon);
}

}  // namespace quarry::commands
