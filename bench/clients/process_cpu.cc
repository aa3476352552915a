#include "bench/clients/process_cpu.h"

#include <chrono>
#include <thread>

namespace quarry::bench {

double WaitUntilIdle(int pid, double max_seconds) {
  if (pid <= 0) return 0;
  const std::chrono::duration<double> window(kIdleWindowSeconds);
  const auto start = std::chrono::steady_clock::now();
  auto waited = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double before = ProcessCpuSeconds(pid);
  while (before >= 0 && waited() < max_seconds) {
    std::this_thread::sleep_for(window);
    const double now = ProcessCpuSeconds(pid);
    if (now >= 0 && now - before < kIdleCoreShare * kIdleWindowSeconds) {
      break;
    }
    before = now;
  }
  return waited();
}

}  // namespace quarry::bench
