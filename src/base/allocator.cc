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
// Appended last, so that a restarted process recognizes it and takes it off again.
constexpr std::string_view kSettings = "glibc.malloc.arena_max=1:glibc.malloc.hugetlb=1";
// The kernel names a process after the file it executes, and /proc/self/exe would make that
// "exe", which `ps`, `top`, `pgrep quarryd` and `killall quarryd` would show or miss: the name
// goes to the restarted process here, which takes it back and removes the variable.
constexpr const char* kNameVariable = "QUARRY_PROCESS_NAME";

bool UnderValgrind() {
  const char* preload = std::getenv("LD_PRELOAD");
  return preload != nullptr && std::string_view(preload).find("vgpreload") != std::string::npos;
}

void SetTunables(std::string_view value) {
  if (value.empty()) {
    unsetenv(kTunablesVariable.data());
  } else {
    setenv(kTunablesVariable.data(), std::string(value).c_str(), 1);
  }
}

// Starts the program again with kSettings unless the process already runs with them or must
// not restart (allocator.h).
void RestartWithAllocatorSettings(char** argv) {
  const char* found = std::getenv(kTunablesVariable.data());
  const std::string given = found == nullptr ? std::string() : std::string(found);
  if (std::string_view(given).ends_with(kSettings)) {  // the restarted process
    std::string original = given.substr(0, given.size() - kSettings.size());
    if (!original.empty()) original.pop_back();  // the ':' before the settings
    SetTunables(original);
    if (const char* name = std::getenv(kNameVariable); name != nullptr) {
      prctl(PR_SET_NAME, name, 0, 0, 0);
      unsetenv(kNameVariable);
    }
    return;
  }
  if (given.find("glibc.malloc.arena_max") != std::string::npos ||
      given.find("glibc.malloc.hugetlb") != std::string::npos || UnderValgrind()) {
    return;
  }
  char name[16] = {};  // the kernel's limit, terminator included
  prctl(PR_GET_NAME, name, 0, 0, 0);
  setenv(kNameVariable, name, 1);
  SetTunables(given.empty() ? std::string(kSettings) : given + ":" + std::string(kSettings));
  execv("/proc/self/exe", argv);
  SetTunables(given);  // the restart failed: go on as started
  unsetenv(kNameVariable);
}

}  // namespace

void TuneAllocator(char** argv) {
  RestartWithAllocatorSettings(argv);
  // Setting either value turns off glibc's own adjustment of both, so set both.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
}

}  // namespace quarry
