// The benchmarks read CPU time with tools/client's reader (the `quarry bench` subcommands use it
// too); these names keep the benchmarks' own spelling.
#pragma once

#include "tools/client/process_cpu.h"

namespace quarry::bench {

using tools::client::OwnCpuSeconds;
using tools::client::ProcessCpuSeconds;

}  // namespace quarry::bench
