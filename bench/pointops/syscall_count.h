// System calls of a running process, counted by `strace -c -f` attached to all its threads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"

namespace quarry::bench {

struct SyscallCount {
  std::string name;
  std::int64_t calls = 0;
  std::int64_t errors = 0;  // calls that failed, e.g. a receive with nothing to read (EAGAIN)
};

// The per-call rows of an `strace -c` summary, most calls first (the "total" row left out).
std::vector<SyscallCount> ParseStraceSummary(const std::string& summary);

// Attaches strace to every thread of process `pid`, runs `work`, detaches, and returns what
// strace counted meanwhile. Fails with kOperationFailed when strace is missing or cannot
// attach, or with `work`'s error.
StatusWith<std::vector<SyscallCount>> CountSyscalls(int pid, const std::function<Status()>& work);

}  // namespace quarry::bench
