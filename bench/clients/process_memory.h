// Memory a local server process holds, from /proc/<pid>/status, so a table can show what an
// index costs the server that holds it.
#pragma once

#include <cstdint>

namespace quarry::bench {

// VmRSS of process `pid` in bytes, or -1 when it cannot be read (pid 0, no such process).
std::int64_t ResidentBytes(int pid);
// RssAnon: the resident part that is anonymous memory (heap), not file pages.
std::int64_t AnonymousResidentBytes(int pid);

}  // namespace quarry::bench
