// The authorization check that server/ runs before every command with --auth, from the
// command's declared Authorization (commands/command.h), and the checks of commands whose needs
// depend on their arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "auth/privilege.h"
#include "base/status.h"
#include "commands/auth/connection_auth.h"
#include "commands/command.h"
#include "commands/command_context.h"
#include "commands/operation_registry.h"

namespace quarry::commands {

// What the connection's user may do, as a command's declaration asks it.
class Authorizer {
 public:
  Authorizer(const ConnectionAuth& auth, const CommandRegistry& registry,
             const OperationRegistry* operations = nullptr)
      : auth_(auth), registry_(registry), operations_(operations) {}

  bool authenticated() const { return auth_.authenticated(); }
  const ConnectionAuth& connection() const { return auth_; }
  bool Allows(const auth::Target& target, const auth::ActionSet& actions) const {
    return auth_.privileges.Allows(target, actions);
  }
  // `actions` on namespace db.coll.
  bool AllowsOn(std::string_view db, std::string_view coll, const auth::ActionSet& actions) const;
  // Whether `command`'s declaration allows `request`.
  bool AllowsCommand(const Command& command, const Request& request) const;
  const CommandRegistry& registry() const { return registry_; }
  // Whether operation `opid` runs now and was started by this connection's user.
  bool OwnsOperation(std::int32_t opid) const;

 private:
  const ConnectionAuth& auth_;
  const CommandRegistry& registry_;
  const OperationRegistry* operations_;
};

// OK, or Unauthorized (13) as mongod words it: "command <name> requires authentication" before
// any authentication, "not authorized on <db> to execute command { ... }" after. With auth off,
// always OK. Resolves the connection's privileges again when users or roles changed.
Status CheckAuthorization(CommandContext& ctx, const Command& command, const Request& request);

// Whether this connection may kill cursors other users opened: always without --auth, else
// with killAnyCursor on the cluster (hostManager, clusterAdmin, root).
bool MayKillAnyCursor(CommandContext& ctx);

// listDatabases' authorizedDatabases, as mongod: with --auth, a user without listDatabases (or
// any user asking for authorizedDatabases: true) sees only the databases it has privileges on.
// Returns nullopt to list every database, else the test a database name must pass.
std::optional<std::function<bool(std::string_view db)>> AuthorizedDatabases(
    CommandContext& ctx, bson::ValueView authorized_databases);

// Whether the user holds `action` on the database of every role in `roles` (grantRole for a
// role given to a user, revokeRole for one taken away). `db` is the database of roles named
// by a string.
bool AllowsOnRoles(const Authorizer& authorizer, bson::ValueView roles, std::string_view db,
                   auth::ActionType action);

// The checks of commands whose needs depend on their arguments, as mongod makes them.
// aggregate: find on the collection (changeStream too for $changeStream; none for
// collection-less stages), find on what $lookup, $graphLookup and $unionWith read, insert and
// remove or update on what $out and $merge write, inprog for $currentOp of all users,
// listSessions for $listLocalSessions of all users or of users other than the caller.
bool AuthorizeAggregate(const Authorizer& authorizer, const Request& request);
// explain: what the explained command needs.
bool AuthorizeExplain(const Authorizer& authorizer, const Request& request);
// update: update, and insert when a statement upserts.
bool AuthorizeUpdate(const Authorizer& authorizer, const Request& request);
// findAndModify: find with update or remove, and insert when it upserts.
bool AuthorizeFindAndModify(const Authorizer& authorizer, const Request& request);
// renameCollection: renameCollectionSameDB within a database; find and dropCollection on the
// source and insert and createIndex on the target across databases; dropCollection on the
// target with dropTarget.
bool AuthorizeRenameCollection(const Authorizer& authorizer, const Request& request);
// cloneCollectionAsCapped: find on the source, and insert, createIndex and convertToCapped on
// the target, as mongod asks.
bool AuthorizeCloneCollectionAsCapped(const Authorizer& authorizer, const Request& request);
// listDatabases: listDatabases on the cluster, or any user unless authorizedDatabases is false.
bool AuthorizeListDatabases(const Authorizer& authorizer, const Request& request);
// currentOp: inprog on the cluster, or any user with $ownOps: true (its own operations).
bool AuthorizeCurrentOp(const Authorizer& authorizer, const Request& request);
// killOp: killop on the cluster, or any user killing an operation it started (mongod's
// findOpForKilling: an opid that runs no operation of the user needs killop).
bool AuthorizeKillOp(const Authorizer& authorizer, const Request& request);

}  // namespace quarry::commands
