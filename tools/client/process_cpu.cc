// Reads CPU times from /proc/<pid>/stat.
#include "tools/client/process_cpu.h"

#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace quarry::tools::client {

namespace {

// The fields of /proc/<pid>/stat this file reads, in clock ticks.
struct StatTimes {
  int parent = 0;          // field 4
  long long own = 0;       // utime + stime (14, 15)
  long long children = 0;  // cutime + cstime (16, 17): children waited for
};

std::optional<StatTimes> ReadStat(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  if (!std::getline(file, line)) return std::nullopt;
  // The command name (field 2) is in parentheses and may hold spaces; count from after it.
  std::size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 2));
  std::string state;
  StatTimes times;
  if (!(fields >> state >> times.parent)) return std::nullopt;
  std::string field;
  // Fields 5..13 lie between the parent and utime.
  for (int field_no = 5; field_no <= 13 && fields >> field; ++field_no) {
  }
  long long utime = 0;
  long long stime = 0;
  long long cutime = 0;
  long long cstime = 0;
  if (!(fields >> utime >> stime >> cutime >> cstime)) return std::nullopt;
  times.own = utime + stime;
  times.children = cutime + cstime;
  return times;
}

std::optional<StatTimes> ReadStat(int pid) {
  return ReadStat("/proc/" + std::to_string(pid) + "/stat");
}

double Seconds(long long ticks) {
  return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace

double ProcessCpuSeconds(int pid) {
  if (pid <= 0) return -1;
  const std::optional<StatTimes> times = ReadStat(pid);
  return times.has_value() ? Seconds(times->own) : -1;
}

double ProcessTreeCpuSeconds(int pid) {
  if (pid <= 0) return -1;
  // A child reaped while the children are listed would be counted twice (read alive, then in
  // the parent's total) or not at all: the listing counts only when the parent's total of
  // reaped children is the same before and after it.
  long long ticks = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const std::optional<StatTimes> before = ReadStat(pid);
    if (!before.has_value()) return -1;
    long long live = 0;
    std::error_code error;
    for (const std::filesystem::directory_entry& entry :
         std::filesystem::directory_iterator("/proc", error)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::optional<StatTimes> child = ReadStat(entry.path().string() + "/stat");
      if (child.has_value() && child->parent == pid) live += child->own;
    }
    const std::optional<StatTimes> after = ReadStat(pid);
    if (!after.has_value()) return -1;
    ticks = after->own + after->children + live;
    if (after->children == before->children) break;
  }
  return Seconds(ticks);
}

double OwnCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace quarry::tools::client
