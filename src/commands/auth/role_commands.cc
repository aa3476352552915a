// Role management: createRole, updateRole, dropRole, rolesInfo, grantPrivilegesToRole,
// revokePrivilegesFromRole, grantRolesToRole, revokeRolesFromRole. User-defined roles live in
// admin.system.roles (_id "db.role", role, db, privileges, roles); built-in ones are
// auth/builtin_roles.h's.
#include <algorithm>

#include "auth/builtin_roles.h"
#include "bson/builder.h"
#include "commands/auth/authorizer.h"
#include "commands/auth/user_store.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

using A = auth::ActionType;

Status RoleNotFound(std::string_view role, std::string_view db) {
  return Status(ErrorCode::kRoleNotFound,
                "Could not find role: " + std::string(role) + "@" + std::string(db));
}

StatusWith<std::string> RoleNameArgument(const Request& request) {
  bson::ValueView name = request.body.Get(request.name);
  if (name.type() != bson::Type::kString || name.String().empty()) {
    return Status(ErrorCode::kBadValue,
                  std::string(request.name) + " requires a non-empty role name string");
  }
  return std::string(name.String());
}

// The privileges argument, parsed; a role of a database other than admin may only hold
// privileges on its own database, as in mongod.
StatusWith<std::vector<auth::Privilege>> ParsePrivileges(bson::ValueView value,
                                                         std::string_view db) {
  std::vector<auth::Privilege> privileges;
  if (value.type() != bson::Type::kArray) {
    return Status(ErrorCode::kBadValue, "\"privileges\" field must be an array");
  }
  for (const bson::Element& e : value.Document()) {
    if (e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kBadValue, "each privilege must be an object");
    }
    QUARRY_ASSIGN_OR_RETURN(auth::Privilege p, auth::Privilege::Parse(e.value.Document()));
    using Kind = auth::ResourcePattern::Kind;
    const bool own_database =
        (p.resource.kind == Kind::kDatabase || p.resource.kind == Kind::kExactNamespace) &&
        p.resource.db == db;
    if (db != kAuthDatabase && !own_database) {
      return Status(ErrorCode::kBadValue,
                    "Roles on the '" + std::string(db) +
                        "' database cannot be granted privileges that target other databases or "
                        "the cluster");
    }
    privileges.push_back(std::move(p));
  }
  return privileges;
}

bson::Document PrivilegesToArray(const std::vector<auth::Privilege>& privileges) {
  bson::ArrayBuilder array;
  for (const auth::Privilege& p : privileges) array.AppendDocument(p.ToDocument());
  return std::move(array).Finish();
}

// rolesInfo's argument: one role ("name" or {role, db}) or a list of them.
StatusWith<std::vector<RoleName>> NamedRoles(bson::ValueView value, std::string_view db) {
  if (value.type() == bson::Type::kArray) return ParseRoleNames(value, db);
  bson::ArrayBuilder wrapped;
  wrapped.Append(value);
  const bson::Document list = std::move(wrapped).Finish();
  return ParseRoleNames(bson::ValueView(bson::Type::kArray, list.view().data(), list.size()), db);
}

StatusWith<std::vector<auth::Privilege>> StoredPrivileges(bson::DocumentView role) {
  bson::ValueView value = role.Get("privileges");
  if (!value.exists()) return std::vector<auth::Privilege>();
  return ParsePrivileges(value, kAuthDatabase);
}

// The roles argument, each checked to exist and not to reach `self` (a cycle).
StatusWith<std::vector<RoleName>> InheritedRoles(CommandContext& ctx, bson::ValueView value,
                                                 const RoleName& self) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> roles, ParseRoleNames(value, self.db));
  QUARRY_ASSIGN_OR_RETURN(ResolvedRoles resolved, ResolveRoles(ctx, roles, true));
  if (std::find(resolved.all.begin(), resolved.all.end(), self) != resolved.all.end()) {
    return Status(ErrorCode::kGraphContainsCycle,
                  "Cycle in dependency graph: " + self.role + "@" + self.db);
  }
  return roles;
}

Status RefuseBuiltin(std::string_view role, std::string_view db) {
  if (!auth::IsBuiltinRole(role, db)) return Status::OK();
  return Status(ErrorCode::kBadValue, "Cannot create or modify built-in role: " +
                                          std::string(role) + "@" + std::string(db));
}

bson::Document RoleDocument(const RoleName& name, const std::vector<auth::Privilege>& privileges,
                            const std::vector<RoleName>& roles) {
  bson::DocumentBuilder b;
  b.AppendString("_id", AuthDocumentId(name.role, name.db));
  b.AppendString("role", name.role);
  b.AppendString("db", name.db);
  b.AppendArray("privileges", PrivilegesToArray(privileges));
  b.AppendArray("roles", RoleNamesToArray(roles));
  return std::move(b).Finish();
}

// The arguments of the role commands: each takes `privileges`, `roles` or both (any other
// field fails as mongod's parser fails it).
struct RoleArguments {
  std::string role;
  bson::ValueView privileges;
  bson::ValueView roles;
};

StatusWith<RoleArguments> ParseRoleArguments(const Request& request, bool takes_privileges,
                                             bool takes_roles) {
  RequestParser args(request);
  RoleArguments parsed;
  QUARRY_ASSIGN_OR_RETURN(parsed.role, RoleNameArgument(request));
  if (takes_privileges) parsed.privileges = args.Raw("privileges");
  if (takes_roles) parsed.roles = args.Raw("roles");
  bson::ValueView restrictions = args.Raw("authenticationRestrictions");
  args.Ignore({"comment"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (restrictions.exists()) {
    return Status(ErrorCode::kBadValue, "authenticationRestrictions are not supported by Quarry");
  }
  return parsed;
}

StatusWith<bson::Document> RunCreateRole(CommandContext& ctx, const Request& request) {
  QUARRY_ASSIGN_OR_RETURN(RoleArguments args, ParseRoleArguments(request, true, true));
  if (!args.privileges.exists() || !args.roles.exists()) {
    return Status(static_cast<ErrorCode>(40414),
                  "BSON field 'createRole.privileges' and 'createRole.roles' are required fields");
  }
  QUARRY_RETURN_IF_ERROR(RefuseBuiltin(args.role, request.db));
  const RoleName self{args.role, request.db};
  QUARRY_ASSIGN_OR_RETURN(std::vector<auth::Privilege> privileges,
                          ParsePrivileges(args.privileges, request.db));
  QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> roles, InheritedRoles(ctx, args.roles, self));
  Status inserted =
      InsertAuthDocument(ctx, kRolesCollection, RoleDocument(self, privileges, roles));
  if (inserted.code() == ErrorCode::kDuplicateKey) {
    return Status(static_cast<ErrorCode>(51002),
                  "Role \"" + args.role + "@" + request.db + "\" already exists");
  }
  QUARRY_RETURN_IF_ERROR(inserted);
  return bson::Document();
}

// Rewrites the stored role `self` through `change` (privileges and roles in, changed in place).
StatusWith<bson::Document> ChangeRole(
    CommandContext& ctx, const RoleName& self,
    const std::function<Status(std::vector<auth::Privilege>*, std::vector<RoleName>*)>& change) {
  QUARRY_RETURN_IF_ERROR(RefuseBuiltin(self.role, self.db));
  QUARRY_ASSIGN_OR_RETURN(
      bool found,
      ModifyAuthDocument(ctx, kRolesCollection, AuthDocumentId(self.role, self.db),
                         [&](bson::DocumentView current) -> StatusWith<bson::Document> {
                           QUARRY_ASSIGN_OR_RETURN(std::vector<auth::Privilege> privileges,
                                                   StoredPrivileges(current));
                           QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> roles,
                                                   ParseRoleNames(current.Get("roles"), ""));
                           QUARRY_RETURN_IF_ERROR(change(&privileges, &roles));
                           return RoleDocument(self, privileges, roles);
                         }));
  if (!found) return RoleNotFound(self.role, self.db);
  return bson::Document();
}

StatusWith<bson::Document> RunUpdateRole(CommandContext& ctx, const Request& request) {
  QUARRY_ASSIGN_OR_RETURN(RoleArguments args, ParseRoleArguments(request, true, true));
  if (!args.privileges.exists() && !args.roles.exists()) {
    return Status(ErrorCode::kBadValue, "Must specify at least one field to update in updateRole");
  }
  const RoleName self{args.role, request.db};
  std::optional<std::vector<auth::Privilege>> new_privileges;
  std::optional<std::vector<RoleName>> new_roles;
  if (args.privileges.exists()) {
    QUARRY_ASSIGN_OR_RETURN(new_privileges, ParsePrivileges(args.privileges, request.db));
  }
  if (args.roles.exists()) {
    QUARRY_ASSIGN_OR_RETURN(new_roles, InheritedRoles(ctx, args.roles, self));
  }
  return ChangeRole(ctx, self,
                    [&](std::vector<auth::Privilege>* privileges, std::vector<RoleName>* roles) {
                      if (new_privileges.has_value()) *privileges = *new_privileges;
                      if (new_roles.has_value()) *roles = *new_roles;
                      return Status::OK();
                    });
}

// grantPrivilegesToRole / revokePrivilegesFromRole.
StatusWith<bson::Document> ChangeRolePrivileges(CommandContext& ctx, const Request& request,
                                                bool grant) {
  QUARRY_ASSIGN_OR_RETURN(RoleArguments args, ParseRoleArguments(request, true, false));
  QUARRY_ASSIGN_OR_RETURN(std::vector<auth::Privilege> changed,
                          ParsePrivileges(args.privileges, request.db));
  return ChangeRole(ctx, RoleName{args.role, request.db},
                    [&](std::vector<auth::Privilege>* privileges, std::vector<RoleName>*) {
                      for (const auth::Privilege& p : changed) {
                        auto it = std::find_if(
                            privileges->begin(), privileges->end(),
                            [&p](const auth::Privilege& q) { return q.resource == p.resource; });
                        if (grant) {
                          if (it == privileges->end()) {
                            privileges->push_back(p);
                          } else {
                            it->actions.Add(p.actions);
                          }
                        } else if (it != privileges->end()) {
                          it->actions.Remove(p.actions);
                          if (it->actions.empty()) privileges->erase(it);
                        }
                      }
                      return Status::OK();
                    });
}

StatusWith<bson::Document> RunGrantPrivilegesToRole(CommandContext& ctx, const Request& request) {
  return ChangeRolePrivileges(ctx, request, true);
}

StatusWith<bson::Document> RunRevokePrivilegesFromRole(CommandContext& ctx,
                                                       const Request& request) {
  return ChangeRolePrivileges(ctx, request, false);
}

// grantRolesToRole / revokeRolesFromRole.
StatusWith<bson::Document> ChangeRoleRoles(CommandContext& ctx, const Request& request,
                                           bool grant) {
  QUARRY_ASSIGN_OR_RETURN(RoleArguments args, ParseRoleArguments(request, false, true));
  const RoleName self{args.role, request.db};
  QUARRY_ASSIGN_OR_RETURN(
      std::vector<RoleName> changed,
      grant ? InheritedRoles(ctx, args.roles, self) : ParseRoleNames(args.roles, request.db));
  return ChangeRole(ctx, self, [&](std::vector<auth::Privilege>*, std::vector<RoleName>* roles) {
    for (const RoleName& r : changed) {
      auto it = std::find(roles->begin(), roles->end(), r);
      if (grant && it == roles->end()) roles->push_back(r);
      if (!grant && it != roles->end()) roles->erase(it);
    }
    return Status::OK();
  });
}

StatusWith<bson::Document> RunGrantRolesToRole(CommandContext& ctx, const Request& request) {
  return ChangeRoleRoles(ctx, request, true);
}

StatusWith<bson::Document> RunRevokeRolesFromRole(CommandContext& ctx, const Request& request) {
  return ChangeRoleRoles(ctx, request, false);
}

// Removes `role` from the roles of every user and role that has it, as mongod's dropRole does.
Status ForgetRole(CommandContext& ctx, const RoleName& role) {
  bson::DocumentBuilder filter;
  filter.OpenDocument("roles")
      .OpenDocument("$elemMatch")
      .AppendString("role", role.role)
      .AppendString("db", role.db)
      .Close()
      .Close();
  const bson::Document holders_filter = std::move(filter).Finish();
  const std::function<StatusWith<bson::Document>(bson::DocumentView)> without_role =
      [&role](bson::DocumentView current) -> StatusWith<bson::Document> {
    QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> roles, ParseRoleNames(current.Get("roles"), ""));
    std::erase(roles, role);
    bson::DocumentBuilder b;
    for (const bson::Element& e : current) {
      if (e.key == "roles") {
        b.AppendArray("roles", RoleNamesToArray(roles));
      } else {
        b.Append(e.key, e.value);
      }
    }
    return std::move(b).Finish();
  };
  for (std::string_view collection : {kUsersCollection, kRolesCollection}) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> holders,
                            FindAuthDocuments(ctx, collection, holders_filter));
    for (const bson::Document& holder : holders) {
      StatusWith<bool> changed =
          ModifyAuthDocument(ctx, collection, holder.Get("_id").String(), without_role);
      QUARRY_RETURN_IF_ERROR(changed.status());
    }
  }
  return Status::OK();
}

StatusWith<bson::Document> RunDropRole(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string role, RoleNameArgument(request));
  args.Ignore({"comment"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(RefuseBuiltin(role, request.db));
  bson::DocumentBuilder filter;
  filter.AppendString("_id", AuthDocumentId(role, request.db));
  QUARRY_ASSIGN_OR_RETURN(std::int64_t n,
                          DeleteAuthDocuments(ctx, kRolesCollection, std::move(filter).Finish()));
  if (n == 0) return RoleNotFound(role, request.db);
  QUARRY_RETURN_IF_ERROR(ForgetRole(ctx, RoleName{role, request.db}));
  return bson::Document();
}

// One role as rolesInfo shows it.
StatusWith<bson::Document> DescribeRole(CommandContext& ctx, const RoleName& name,
                                        bool show_privileges) {
  std::vector<RoleName> direct;
  std::vector<auth::Privilege> own;
  const bool builtin = auth::IsBuiltinRole(name.role, name.db);
  if (builtin) {
    own = *auth::BuiltinRolePrivileges(name.role, name.db);
  } else {
    QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> stored,
                            ReadAuthDocument(ctx, kRolesCollection, name.role, name.db));
    if (!stored.has_value()) return RoleNotFound(name.role, name.db);
    QUARRY_ASSIGN_OR_RETURN(own, StoredPrivileges(*stored));
    QUARRY_ASSIGN_OR_RETURN(direct, ParseRoleNames(stored->Get("roles"), ""));
  }
  QUARRY_ASSIGN_OR_RETURN(ResolvedRoles inherited, ResolveRoles(ctx, direct, false));
  bson::DocumentBuilder b;
  if (!builtin) b.AppendString("_id", AuthDocumentId(name.role, name.db));
  b.AppendString("role", name.role);
  b.AppendString("db", name.db);
  b.AppendBool("isBuiltin", builtin);
  b.AppendArray("roles", RoleNamesToArray(direct));
  b.AppendArray("inheritedRoles", RoleNamesToArray(inherited.all));
  if (show_privileges) {
    b.AppendArray("privileges", PrivilegesToArray(own));
    auth::PrivilegeSet all;
    all.Add(own);
    all.Add(inherited.privileges.privileges());
    b.AppendArray("inheritedPrivileges", PrivilegesToArray(all.privileges()));
  }
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunRolesInfo(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  bson::ValueView show_privileges_value = args.Raw("showPrivileges");
  QUARRY_ASSIGN_OR_RETURN(bool show_builtin, args.OptionalBool("showBuiltinRoles", false));
  bson::ValueView restrictions = args.Raw("showAuthenticationRestrictions");
  args.Ignore({"comment"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (restrictions.Truthy() || show_privileges_value.type() == bson::Type::kString) {
    return Status(
        ErrorCode::kBadValue,
        "rolesInfo's showAuthenticationRestrictions and showPrivileges: \"asUserFragment\" "
        "are not supported by Quarry");
  }
  const bool show_privileges = show_privileges_value.Truthy();
  std::vector<RoleName> names;
  bson::ValueView value = request.body.Get(request.name);
  if (value.IsNumber()) {
    if (show_builtin) {
      for (std::string_view r : auth::BuiltinRoleNames(request.db)) {
        names.push_back({std::string(r), request.db});
      }
    }
    bson::DocumentBuilder filter;
    filter.AppendString("db", request.db);
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> stored,
                            FindAuthDocuments(ctx, kRolesCollection, std::move(filter).Finish()));
    for (const bson::Document& role : stored) {
      names.push_back({std::string(role.Get("role").String()), request.db});
    }
  } else {
    QUARRY_ASSIGN_OR_RETURN(names, NamedRoles(value, request.db));
  }
  bson::ArrayBuilder out;
  for (const RoleName& name : names) {
    StatusWith<bson::Document> described = DescribeRole(ctx, name, show_privileges);
    if (described.status().code() == ErrorCode::kRoleNotFound) continue;  // as mongod: omitted
    QUARRY_RETURN_IF_ERROR(described.status());
    out.AppendDocument(described.value());
  }
  bson::DocumentBuilder b;
  b.AppendArray("roles", std::move(out).Finish());
  return std::move(b).Finish();
}

bool AuthorizeCreateRole(const Authorizer& authorizer, const Request& request) {
  return authorizer.Allows(auth::Target::Database(request.db), {A::kCreateRole}) &&
         AllowsOnRoles(authorizer, request.body.Get("roles"), request.db, A::kGrantRole);
}

bool AuthorizeUpdateRole(const Authorizer& authorizer, const Request& request) {
  const auth::Target db = auth::Target::Database(request.db);
  return authorizer.Allows(db, {A::kGrantRole, A::kRevokeRole}) &&
         AllowsOnRoles(authorizer, request.body.Get("roles"), request.db, A::kGrantRole);
}

bool AuthorizeGrantRolesToRole(const Authorizer& authorizer, const Request& request) {
  return AllowsOnRoles(authorizer, request.body.Get("roles"), request.db, A::kGrantRole);
}

bool AuthorizeRevokeRolesFromRole(const Authorizer& authorizer, const Request& request) {
  return AllowsOnRoles(authorizer, request.body.Get("roles"), request.db, A::kRevokeRole);
}

bool AuthorizeRolesInfo(const Authorizer& authorizer, const Request& request) {
  if (authorizer.Allows(auth::Target::Database(request.db), {A::kViewRole})) return true;
  // Without viewRole, a user may see the roles it has.
  bson::ValueView value = request.body.Get(request.name);
  if (value.IsNumber() || !authorizer.connection().user.has_value()) return false;
  StatusWith<std::vector<RoleName>> names = NamedRoles(value, request.db);
  if (!names.ok()) return true;  // the command fails on its argument
  const std::vector<RoleName>& held = authorizer.connection().user->inherited;
  for (const RoleName& name : names.value()) {
    if (std::find(held.begin(), held.end(), name) == held.end()) return false;
  }
  return true;
}

}  // namespace

void RegisterRoleCommands(CommandRegistry& registry) {
  using auth::ActionType;
  registry.Add({.name = "createRole",
                .flags = kChangesStoredData | kLocalhostException,
                .run = RunCreateRole,
                .auth = Custom(AuthorizeCreateRole)});
  registry.Add({.name = "updateRole",
                .flags = kChangesStoredData,
                .run = RunUpdateRole,
                .auth = Custom(AuthorizeUpdateRole)});
  registry.Add({.name = "dropRole",
                .flags = kChangesStoredData,
                .run = RunDropRole,
                .auth = OnDatabase({ActionType::kDropRole})});
  registry.Add({.name = "rolesInfo", .run = RunRolesInfo, .auth = Custom(AuthorizeRolesInfo)});
  registry.Add({.name = "grantPrivilegesToRole",
                .flags = kChangesStoredData,
                .run = RunGrantPrivilegesToRole,
                .auth = OnDatabase({ActionType::kGrantRole})});
  registry.Add({.name = "revokePrivilegesFromRole",
                .flags = kChangesStoredData,
                .run = RunRevokePrivilegesFromRole,
                .auth = OnDatabase({ActionType::kRevokeRole})});
  registry.Add({.name = "grantRolesToRole",
                .flags = kChangesStoredData,
                .run = RunGrantRolesToRole,
                .auth = Custom(AuthorizeGrantRolesToRole)});
  registry.Add({.name = "revokeRolesFromRole",
                .flags = kChangesStoredData,
                .run = RunRevokeRolesFromRole,
                .auth = Custom(AuthorizeRevokeRolesFromRole)});
}

}  // namespace quarry::commands
