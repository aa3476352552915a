// Where a command runs: on its connection's io thread, or on a worker (worker_pool.h). The io
// thread serves many connections, so it keeps only what is short by nature: handshake,
// session, diagnostic and catalog commands, and reads and writes of a few documents chosen by
// _id. Everything else, and any command this file does not know, may run long and goes to a
// worker; that costs a hand-off between threads, which matters only for short requests.
#pragma once

#include "commands/command.h"

namespace quarry::server {

bool RunsOnIoThread(const commands::Command& command, const commands::Request& request);

}  // namespace quarry::server
