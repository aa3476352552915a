// Users and roles as mongod stores them: admin.system.users (_id "db.user", userId, user, db,
// credentials.SCRAM-SHA-1/SCRAM-SHA-256 {iterationCount, salt, storedKey, serverKey}, roles,
// customData) and admin.system.roles (_id "db.role", role, db, privileges, roles). Every
// change bumps AuthState::generation, so connections resolve their privileges again.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/privilege.h"
#include "base/status.h"
#include "bson/value.h"
#include "commands/auth/connection_auth.h"
#include "commands/command_context.h"

namespace quarry::commands {

inline constexpr std::string_view kAuthDatabase = "admin";
inline constexpr std::string_view kUsersCollection = "system.users";
inline constexpr std::string_view kRolesCollection = "system.roles";

// The _id of user or role `name` of database `db`: "db.name".
std::string AuthDocumentId(std::string_view name, std::string_view db);

// The stored document of `name` on `db` in `collection`; nullopt when there is none.
StatusWith<std::optional<bson::Document>> ReadAuthDocument(CommandContext& ctx,
                                                           std::string_view collection,
                                                           std::string_view name,
                                                           std::string_view db);
// The documents of `collection` that `filter` matches.
StatusWith<std::vector<bson::Document>> FindAuthDocuments(CommandContext& ctx,
                                                          std::string_view collection,
                                                          bson::DocumentView filter);
// Inserts `document`; DuplicateKey when its _id exists.
Status InsertAuthDocument(CommandContext& ctx, std::string_view collection,
                          bson::DocumentView document);
// Replaces the document `id` by what `modify` makes of it; returns false when there is none.
StatusWith<bool> ModifyAuthDocument(
    CommandContext& ctx, std::string_view collection, std::string_view id,
    const std::function<StatusWith<bson::Document>(bson::DocumentView)>& modify);
// Deletes what `filter` matches; returns how many.
StatusWith<std::int64_t> DeleteAuthDocuments(CommandContext& ctx, std::string_view collection,
                                             bson::DocumentView filter);

// Whether any user or role exists (the localhost exception ends with the first).
StatusWith<bool> AnyUsersOrRoles(CommandContext& ctx);

// Parses a roles array: each element "name" (on `default_db`) or {role, db}.
StatusWith<std::vector<RoleName>> ParseRoleNames(bson::ValueView roles,
                                                 std::string_view default_db);
// The roles array as stored: [{role, db}].
bson::Document RoleNamesToArray(const std::vector<RoleName>& roles);

// Every role `roles` reach (those included) and the union of their privileges: built-in roles
// by their definition, others from admin.system.roles. Fails with RoleNotFound (31) for a role
// that does not exist when `require_existing`; otherwise skips it.
struct ResolvedRoles {
  std::vector<RoleName> all;
  auth::PrivilegeSet privileges;
};
StatusWith<ResolvedRoles> ResolveRoles(CommandContext& ctx, const std::vector<RoleName>& roles,
                                       bool require_existing);

// Makes the connection's user and privileges current: after a change to users or roles its
// roles are resolved again, and a dropped user is logged out.
Status RefreshAuthentication(CommandContext& ctx);

// Signs the connection in as the user of `user_document` (with its roles resolved).
Status SignIn(CommandContext& ctx, bson::DocumentView user_document);
// Signs the connection out (logout, or its user was dropped).
void SignOut(CommandContext& ctx);

}  // namespace quarry::commands
