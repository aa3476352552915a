#include "base/allocator.h"

#include <malloc.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace quarry {
namespace {

constexpr std::string_view kTunablesVariable = "GLIBC_TUNABLES";
// Appended last, so that the restarted process can take them off again.
constexpr std::string_view kSettings = "glibc.malloc.arena_max=1:glibc.malloc.hugetlb=1";
// Tells the restarted process that it is one, and carries the process name across: the kernel
// names a process after the file it executes, and /proc/self/exe would make that "exe", which
// `ps`, `top`, `pgrep quarryd` and `killall quarryd` would show or miss. The marker is a
// variable of our own because glibc may drop GLIBC_TUNABLES from the environment of a program
// with file capabilities or the setuid bit, and a restart that did not recognize itself would
// start the program again forever.
constexpr const char* kRestartVariable = "QUARRY_RESTARTED_AS";

bool UnderValgrind() {
  const char* preload = std::getenv("LD_PRELOAD");
  return preload != nullptr && std::string_view(preload).find("vgpreload") != std::string::npos;
}

std::string TunablesGiven() {
  const char* found = std::getenv(kTunablesVariable.data());
  return found == nullptr ? std::string() : std::string(found);
}

void SetTunables(std::string_view value) {
  if (value.empty()) {
    unsetenv(kTunablesVariable.data());
  } else {
    setenv(kTunablesVariable.data(), std::string(value).c_str(), 1);
  }
}

// In the restarted process: the name and environment as the first start had them.
void TakeBackWhatTheRestartChanged(const std::string& name) {
  prctl(PR_SET_NAME, name.c_str(), 0, 0, 0);
  unsetenv(kRestartVariable);
  const std::string given = TunablesGiven();
  if (std::string_view(given).ends_with(kSettings)) {
    std::string original = given.substr(0, given.size() - kSettings.size());
    if (!original.empty()) original.pop_back();  // the ':' before the settings
    SetTunables(original);
  }
}

// Starts the program again with kSettings unless this is the restarted process or the process
// must not restart (allocator.h).
void RestartWithAllocatorSettings(char** argv) {
  if (const char* name = std::getenv(kRestartVariable); name != nullptr) {
    TakeBackWhatTheRestartChanged(name);
    return;
  }
  const std::string given = TunablesGiven();
  if (given.find("glibc.malloc.arena_max") != std::string::npos ||
      given.find("glibc.malloc.hugetlb") != std::string::npos || UnderValgrind()) {
    return;
  }
  char name[16] = {};  // the kernel's limit, terminator included
  prctl(PR_GET_NAME, name, 0, 0, 0);
  setenv(kRestartVariable, name, 1);
  SetTunables(given.empty() ? std::string(kSettings) : given + ":" + std::string(kSettings));
  execv("/proc/self/exe", argv);
  SetTunables(given);  // the restart failed: go on as started
  unsetenv(kRestartVariable);
}

}  // namespace

void TuneAllocator(char** argv) {
  RestartWithAllocatorSettings(argv);
  // Setting either value turns off glibc's own adjustment of both, so set both.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
}

}  // namespace quarry
