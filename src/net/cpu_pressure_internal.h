// Whether threads of this machine wait for a CPU: Linux's pressure figure for CPUs
// (/proc/pressure/cpu), the share of the last interval in which some runnable thread waited.
// An io thread polls for its next event only while that share is small: when every core is
// wanted, polling takes a core from a thread with work (a client on the same machine, a worker).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace quarry::net::internal {

class CpuPressure {
 public:
  // Reads `path`; one that cannot be read (no pressure accounting) never counts as contended.
  explicit CpuPressure(const char* path = "/proc/pressure/cpu");
  ~CpuPressure();
  CpuPressure(const CpuPressure&) = delete;
  CpuPressure& operator=(const CpuPressure&) = delete;

  // As of the last refresh. Any thread.
  bool Contended() const { return contended_.load(std::memory_order_relaxed); }
  // Re-reads the figure when the interval has passed since the last read (one pread); other
  // threads calling meanwhile return at once. Any thread.
  void Refresh(std::chrono::steady_clock::time_point now);

  static constexpr std::chrono::milliseconds kInterval{100};
  // Waiting for more than this share of the interval is contention.
  static constexpr double kContendedShare = 0.2;

 private:
  int fd_ = -1;
  std::atomic<bool> contended_{false};
  std::atomic<std::int64_t> next_read_ns_{0};  // steady clock
  std::mutex mu_;                              // the read below; try-locked
  std::int64_t last_total_us_ = -1;            // "some" total at the last read
  std::chrono::steady_clock::time_point last_read_;
};

}  // namespace quarry::net::internal
