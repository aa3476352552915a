// What the server reports about authentication: serverStatus' security section.
#pragma once

#include "bson/builder.h"
#include "commands/auth/auth_state.h"

namespace quarry::commands {

// security.authentication.mechanisms.<mechanism>.{authenticate, speculativeAuthenticate,
// clusterAuthenticate}.{received, successful}, as mongod's serverStatus.
void AppendSecuritySection(const AuthState& state, bson::DocumentBuilder* b);

}  // namespace quarry::commands
