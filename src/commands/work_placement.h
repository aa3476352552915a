// Where a command runs: on its connection's io thread, or on one of the service's workers. An
// io thread serves many connections, so it keeps only work that is short by nature: handshake,
// session, diagnostic and catalog commands, and reads and writes of one document chosen by
// _id or by a unique index. Everything else, and any command this file does not know, may run
// long and goes to a worker; that costs a hand-off between threads, which matters only for
// short requests.
#pragma once

#include "commands/command.h"
#include "commands/service_state.h"

namespace quarry::commands {

// `state.catalog` tells which indexes are unique; without it only _id counts.
bool RunsOnIoThread(const ServiceState& state, const Command& command, const Request& request);

}  // namespace quarry::commands
