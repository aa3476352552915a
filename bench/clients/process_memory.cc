// Lines of /proc/<pid>/status read as "<field>: <n> kB".
#include "bench/clients/process_memory.h"

#include <fstream>
#include <sstream>
#include <string>

namespace quarry::bench {
namespace {

// A "<field>: <n> kB" line of /proc/<pid>/status, in bytes; -1 when it cannot be read.
std::int64_t StatusBytes(int pid, const std::string& field) {
  if (pid <= 0) return -1;
  std::ifstream file("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind(field, 0) != 0) continue;
    std::istringstream fields(line.substr(field.size()));
    std::int64_t kilobytes = 0;
    std::string unit;
    if (fields >> kilobytes >> unit && unit == "kB") return kilobytes * 1024;
    return -1;
  }
  return -1;
}

}  // namespace

std::int64_t ResidentBytes(int pid) { return StatusBytes(pid, "VmRSS:"); }
std::int64_t AnonymousResidentBytes(int pid) { return StatusBytes(pid, "RssAnon:"); }

}  // namespace quarry::bench
