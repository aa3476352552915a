// The documents the currentOp command and the $currentOp aggregation stage list: one per running
// operation (and, on request, one per idle connection), in mongod's shape.
#pragma once

#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "commands/service_state.h"

namespace quarry::commands {

struct CurrentOpOptions {
  bool idle_connections = false;  // also list connections running nothing (active: false)
  bool truncate_ops = false;      // a command over 1000 bytes shows as {$truncated: "..."}
};

// Parses {$currentOp: {...}}'s options as mongod: allUsers, idleConnections, idleSessions,
// localOps, truncateOps, idleCursors and backtrace, each a bool. Fails with TypeMismatch (14)
// when `spec` is not a document or allUsers/localOps is not a bool, with FailedToParse (9) for
// the other options' types and "Unrecognized option 'x' in $currentOp stage.".
StatusWith<CurrentOpOptions> ParseCurrentOpStage(bson::ValueView spec);

// One document per operation listed in `state.operations` now, including the caller's own.
std::vector<bson::Document> CurrentOpDocuments(const ServiceState& state,
                                               const CurrentOpOptions& options);

}  // namespace quarry::commands
