#include "bench/vector/cpu_time.h"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace quarry::bench {

double OwnCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double CpuSecondsOf(int pid) {
  if (pid <= 0) return -1;
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(file, stat)) return -1;
  // The command name, in parentheses, may hold spaces: count fields after its closing one.
  const std::size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) return -1;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  // Fields 3..13 (state .. cmajflt) come before utime (14) and stime (15).
  for (int skipped = 0; skipped < 11; ++skipped) {
    if (!(fields >> field)) return -1;
  }
  long long user_ticks = 0, system_ticks = 0;
  if (!(fields >> user_ticks >> system_ticks)) return -1;
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  if (ticks_per_second <= 0) return -1;
  return static_cast<double>(user_ticks + system_ticks) / static_cast<double>(ticks_per_second);
}

CpuMeter::CpuMeter(int pid)
    : pid_(pid), own_start_(OwnCpuSeconds()), pid_start_(CpuSecondsOf(pid)) {}

CpuMeter::Used CpuMeter::Stop() const {
  Used used{.own_seconds = OwnCpuSeconds() - own_start_};
  const double pid_now = CpuSecondsOf(pid_);
  if (pid_start_ >= 0 && pid_now >= 0) used.pid_seconds = pid_now - pid_start_;
  return used;
}

}  // namespace quarry::bench
