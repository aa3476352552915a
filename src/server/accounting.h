// What dispatch records about each command once it ran: mongod's opcounters, the command's own
// counters (serverStatus metrics.commands), getLastError's last write, the errors of a w:0 write
// that nobody else will see, and the slow-operation log. All of it from the command's
// descriptor and its typed write outcome, never from its reply.
#pragma once

#include <chrono>

#include "base/status.h"
#include "commands/command.h"
#include "commands/command_context.h"
#include "commands/write_outcome.h"

namespace quarry::server {

// One finished command, as accounting sees it.
struct Accounted {
  const commands::Command* command = nullptr;  // null: refused before or at the lookup
  std::string_view name;                       // as the request spelled it
  std::string_view db;
  bson::DocumentView body;         // the command as sent, for the slow-operation log
  const Status* status = nullptr;  // the command's failure, or OK
  const commands::WriteOutcome* outcome = nullptr;
  const commands::OperationStats* stats = nullptr;
  bool unacknowledged = false;  // w:0 / moreToCome
  std::chrono::steady_clock::duration elapsed{};
};

void Account(commands::ServiceState& state, commands::ConnectionState& connection,
             const Accounted& done);

}  // namespace quarry::server
