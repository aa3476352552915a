#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "net/cpu_pressure_internal.h"

namespace quarry::net::internal {

namespace {

// The "total=" of the "some" line (the first), in microseconds; -1 when absent.
std::int64_t SomeTotal(const char* text) {
  const char* total = std::strstr(text, "total=");
  if (total == nullptr) return -1;
  return std::strtoll(total + std::strlen("total="), nullptr, 10);
}

}  // namespace

CpuPressure::CpuPressure(const char* path) : fd_(::open(path, O_RDONLY | O_CLOEXEC)) {}

CpuPressure::~CpuPressure() {
  if (fd_ >= 0) ::close(fd_);
}

void CpuPressure::Refresh(std::chrono::steady_clock::time_point now) {
  if (fd_ < 0) return;
  const std::int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  if (now_ns < next_read_ns_.load(std::memory_order_relaxed)) return;
  std::unique_lock lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  next_read_ns_.store(now_ns + std::chrono::nanoseconds(kInterval).count(),
                      std::memory_order_relaxed);
  char text[256];
  const ssize_t n = ::pread(fd_, text, sizeof(text) - 1, 0);
  if (n <= 0) return;
  text[n] = '\0';
  const std::int64_t total_us = SomeTotal(text);
  if (total_us < 0) return;
  if (last_total_us_ >= 0) {
    const double elapsed_us = std::chrono::duration<double, std::micro>(now - last_read_).count();
    if (elapsed_us > 0) {
      const double share = static_cast<double>(total_us - last_total_us_) / elapsed_us;
      contended_.store(share > kContendedShare, std::memory_order_relaxed);
    }
  }
  last_total_us_ = total_us;
  last_read_ = now;
}

}  // namespace quarry::net::internal
