// The documents the currentOp command and the $currentOp aggregation stage list: one per running
// operation (and, on request, one per idle connection), in mongod's shape.
#pragma once

#include <optional>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "commands/auth/user_name.h"
#include "commands/service_state.h"

namespace quarry::commands {

struct CurrentOpOptions {
  bool idle_connections = false;  // also list connections running nothing (active: false)
  bool idle_sessions = true;      // also list open transactions no command runs in now
  bool truncate_ops = false;      // a command over 1000 bytes shows as {$truncated: "..."}
  bool all_users = false;         // $currentOp's allUsers
  // Set under --auth without allUsers: only this user's operations and connections are listed
  // (mongod lists those of the clients authenticated as the caller).
  std::optional<UserName> only_user = std::nullopt;
};

// Parses {$currentOp: {...}}'s options as mongod: allUsers, idleConnections, idleSessions,
// localOps, truncateOps, idleCursors and backtrace, each a bool. Fails with TypeMismatch (14)
// when `spec` is not a document or allUsers/localOps is not a bool, with FailedToParse (9) for
// the other options' types and "Unrecognized option 'x' in $currentOp stage.".
StatusWith<CurrentOpOptions> ParseCurrentOpStage(bson::ValueView spec);

// One document per operation listed in `state.operations` now (of `options.only_user` when
// set), including the caller's own; each names the user that started it (effectiveUsers), and
// one in a transaction shows it. Then, with `idle_sessions`, one per open transaction that no
// command runs in now (of the user's sessions when `only_user` is set).
std::vector<bson::Document> CurrentOpDocuments(const ServiceState& state,
                                               const CurrentOpOptions& options);

}  // namespace quarry::commands
