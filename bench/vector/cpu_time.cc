#include "bench/vector/cpu_time.h"

#include "bench/clients/process_cpu.h"

namespace quarry::bench {

CpuMeter::CpuMeter(int pid)
    : pid_(pid), own_start_(OwnCpuSeconds()), pid_start_(ProcessCpuSeconds(pid)) {}

CpuMeter::Used CpuMeter::Stop() const {
  Used used{.own_seconds = OwnCpuSeconds() - own_start_};
  const double pid_now = ProcessCpuSeconds(pid_);
  if (pid_start_ >= 0 && pid_now >= 0) used.pid_seconds = pid_now - pid_start_;
  return used;
}

}  // namespace quarry::bench
