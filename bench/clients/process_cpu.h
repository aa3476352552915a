// The benchmarks read CPU time with tools/client's reader (the `quarry bench` subcommands use it
// too); these names keep the benchmarks' own spelling.
#pragma once

#include "tools/client/process_cpu.h"

namespace quarry::bench {

using tools::client::OwnCpuSeconds;
using tools::client::ProcessCpuSeconds;
using tools::client::ProcessTreeCpuSeconds;

// What WaitUntilIdle counts as quiet: under this share of a core over this window.
inline constexpr double kIdleCoreShare = 0.02;
inline constexpr double kIdleWindowSeconds = 0.5;

// Waits until process `pid` has used under kIdleCoreShare of a core for kIdleWindowSeconds, or
// `max_seconds` have passed, so that a measurement does not also time background work an earlier
// part left (flushes and compactions after a load). Returns the seconds waited; at once for pid 0.
double WaitUntilIdle(int pid, double max_seconds);

}  // namespace quarry::bench
