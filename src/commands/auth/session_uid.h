// Which user a logical session belongs to: mongod keys a session by the lsid's id and the uid
// of its user (commands/session_control.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "auth/privilege.h"
#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"

namespace quarry::commands {

// The uid of a session the request names, as mongod's makeLogicalSessionId: the digest of the
// connection's user (auth::NoUserDigest() without --auth), or `given` (an lsid's own `uid`,
// BinData of 32 bytes) when it is that, when auth is off, or when the user holds impersonate or
// `also_allowed` on the cluster; else Unauthorized (13) "Unauthorized to set user digest in
// LogicalSessionId". nullopt under --auth before authentication: such a request is in no
// session. The view lasts as long as the connection's user and `given`.
StatusWith<std::optional<std::string_view>> SessionUid(
    CommandContext& ctx, bson::ValueView given,
    auth::ActionType also_allowed = auth::ActionType::kImpersonate);

// The digest of the connection's user, auth::NoUserDigest() without --auth; nullopt under
// --auth before authentication.
std::optional<std::string_view> OwnSessionUid(CommandContext& ctx);

}  // namespace quarry::commands
