// writeConcern for a one-member replica set: w:0 / w:1 / w:"majority" / j are satisfiable,
// w > 1 or an unknown tag is not — mongod then still applies the write and reports a
// writeConcernError in the reply.
#pragma once

#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"

namespace quarry::server {

struct ParsedWriteConcern {
  commands::WriteConcern concern;
  // Set when the write concern can never be satisfied here: reported after the write runs.
  std::optional<Status> unsatisfiable;
};

// Parses a writeConcern document. Malformed values fail (FailedToParse / TypeMismatch as mongod).
StatusWith<ParsedWriteConcern> ParseWriteConcern(bson::ValueView write_concern);

}  // namespace quarry::server
