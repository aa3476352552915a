// Reads utime and stime from /proc/<pid>/stat.
#include "tools/client/process_cpu.h"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace quarry::tools::client {

double ProcessCpuSeconds(int pid) {
  if (pid <= 0) return -1;
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(file, line)) return -1;
  // The command name (field 2) is in parentheses and may hold spaces; count from after it.
  std::size_t close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  // Fields 3..13 precede utime (14) and stime (15).
  for (int field_no = 3; field_no <= 13 && fields >> field; ++field_no) {
  }
  long long utime = 0;
  long long stime = 0;
  if (!(fields >> utime >> stime)) return -1;
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double OwnCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace quarry::tools::client
