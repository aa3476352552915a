// The documents of $listLocalSessions and $listSessions.
#pragma once

#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"

namespace quarry::commands {

// {_id: {id, uid}, lastUse, user?: {name}} for each session of the users `spec` names, as
// mongod's listSessionsParseSpec reads it: {allUsers: true} (every session), {users: [{user,
// db}, ...]}, or by default the caller's. `stage` names the stage in errors: TypeMismatch for a
// spec that is not a document, 40415/40414/TypeMismatch for its fields, UnsupportedFormat for
// allUsers with users, NotImplemented for $_internalPredicate.
StatusWith<std::vector<bson::Document>> SessionListDocuments(CommandContext& ctx,
                                                             std::string_view stage,
                                                             bson::ValueView spec);

}  // namespace quarry::commands
