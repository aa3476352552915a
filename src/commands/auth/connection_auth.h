// Who a connection is authenticated as, and what that user may do.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/privilege.h"
#include "commands/auth/user_name.h"

namespace quarry::commands {

struct RoleName {
  std::string role;
  std::string db;
  bool operator==(const RoleName&) const = default;
};

struct AuthenticatedUser {
  std::string user;
  std::string db;
  std::vector<RoleName> roles;      // granted directly
  std::vector<RoleName> inherited;  // every role reached through them, those included

  UserName name() const { return {user, db}; }
};

class SaslConversation;  // commands/auth/sasl_conversation.h

struct ConnectionAuth {
  std::optional<AuthenticatedUser> user;
  auth::PrivilegeSet privileges;
  // The user and role generation (AuthState::generation) the privileges were resolved at.
  std::uint64_t generation = 0;
  // auth::UserDigest of the user, computed at sign-in: the uid of its logical sessions.
  std::string session_uid;
  // The SCRAM conversation saslStart began and saslContinue goes on with.
  std::shared_ptr<SaslConversation> conversation;

  bool authenticated() const { return user.has_value(); }
  std::optional<UserName> Name() const {
    return user.has_value() ? std::optional<UserName>(user->name()) : std::nullopt;
  }
  // "user@db" of the authenticated user, empty when none: a cursor's owner.
  std::string OwnerName() const { return user.has_value() ? user->user + "@" + user->db : ""; }
};

}  // namespace quarry::commands
