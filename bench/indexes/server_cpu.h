// CPU time a local server process has used, from /proc, so a table can show what an operation
// cost the server even when the machine is shared and wall time includes waiting for a core.
#pragma once

namespace quarry::bench {

// User + system seconds of process `pid` (all its threads, RocksDB's background work included),
// or -1 when `pid` is 0 or /proc has no such process.
double ProcessCpuSeconds(int pid);

}  // namespace quarry::bench
