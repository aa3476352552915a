#include "base/spinning_mutex.h"

#include <thread>

namespace quarry {
namespace {

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

SpinningMutex::SpinningMutex(std::chrono::microseconds spin_budget)
    : spin_budget_(std::thread::hardware_concurrency() > 1 ? spin_budget
                                                           : std::chrono::microseconds(0)) {}

void SpinningMutex::lock() {
  if (mu_.try_lock()) return;
  if (spin_budget_.count() > 0) {
    // The clock is read once per round of attempts, not per attempt.
    constexpr int kAttemptsPerClockRead = 32;
    const auto deadline = std::chrono::steady_clock::now() + spin_budget_;
    do {
      for (int attempt = 0; attempt < kAttemptsPerClockRead; ++attempt) {
        CpuRelax();
        if (mu_.try_lock()) return;
      }
    } while (std::chrono::steady_clock::now() < deadline);
  }
  mu_.lock();
}

}  // namespace quarry
