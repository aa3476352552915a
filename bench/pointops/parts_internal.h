// What the parts share: a timed row with the server's CPU time over it, and how targets and
// numbers read in notes.
#pragma once

#include <string>

#include "base/status.h"
#include "bench/clients/timed_clients.h"
#include "bench/clients/verdict.h"
#include "bench/pointops/parts.h"
#include "bench/pointops/quarry_session.h"
#include "tools/client/result_table.h"

namespace quarry::bench {

// RunTimedClientsMeasuringCpu, failing if no operation completed, since the row would say
// nothing.
StatusWith<MeasuredRow> MeasureRow(const ClientFactory& make, int threads, double seconds, int pid);

// CPU microseconds per operation of `row`, or no value when unknown.
tools::client::Cell CpuMicrosPerOp(const MeasuredRow& row);

// Connects a QuarrySession to settings.uri and settings.db.
std::function<StatusWith<std::unique_ptr<QuarrySession>>()> QuarryConnector(
    const PointOpsSettings& settings);

// Clients that find random documents of `keys` by _id, checking each value.
ClientFactory QuarryPointReaders(const PointOpsSettings& settings, const WrittenKeys& keys);

}  // namespace quarry::bench
