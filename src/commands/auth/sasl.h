// SCRAM authentication as mongod runs it: saslStart and saslContinue, their speculative form in
// hello, and hello's saslSupportedMechs.
#pragma once

#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"

namespace quarry::commands {

// hello's speculativeAuthenticate: runs `sasl_start` ({saslStart: 1, mechanism, payload, db})
// and returns what hello answers in speculativeAuthenticate; nullopt when it failed (the client
// then authenticates with saslStart as usual, as mongod expects).
std::optional<bson::Document> SpeculativeAuthenticate(CommandContext& ctx,
                                                      bson::DocumentView sasl_start);

// hello's saslSupportedMechs "db.user": the mechanisms the user has credentials for, as an
// array; nullopt when there is no such user. BadValue when `user` is not "db.user".
StatusWith<std::optional<bson::Document>> SupportedMechanisms(CommandContext& ctx,
                                                              bson::ValueView user);

}  // namespace quarry::commands
