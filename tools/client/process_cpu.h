// CPU time a local server process has used, from /proc, so a table can show what an operation
// cost the server even when the machine is shared and wall time includes waiting for a core.
#pragma once

namespace quarry::tools::client {

// User + system seconds of process `pid` (all its threads, RocksDB's background work included),
// or -1 when `pid` is 0 or /proc has no such process. Clock-tick resolution (10 ms).
double ProcessCpuSeconds(int pid);

// ProcessCpuSeconds(pid), with what its children used: those it has waited for, and those
// still running (a PostgreSQL server's backends, one per connection). -1 as ProcessCpuSeconds.
double ProcessTreeCpuSeconds(int pid);

// User + system seconds this process has used, at the clock's full resolution.
double OwnCpuSeconds();

}  // namespace quarry::tools::client
