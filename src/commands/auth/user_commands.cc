// User management: createUser, updateUser, dropUser, dropAllUsersFromDatabase, usersInfo,
// grantRolesToUser, revokeRolesFromUser. Users live in admin.system.users in mongod's format
// (commands/auth/user_store.h); passwords only as SCRAM secrets.
#include <algorithm>

#include "auth/scram.h"
#include "bson/builder.h"
#include "catalog/uuid.h"
#include "commands/auth/authorizer.h"
#include "commands/auth/user_store.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "query/match/matcher.h"

namespace quarry::commands {
namespace {

using A = auth::ActionType;

Status UserNotFound(std::string_view user, std::string_view db) {
  return Status(ErrorCode::kUserNotFound, "Could not find user \"" + std::string(user) +
                                              "\" for db \"" + std::string(db) + "\"");
}

Status MissingField(std::string_view command, std::string_view field) {
  return Status(static_cast<ErrorCode>(40414), "BSON field '" + std::string(command) + "." +
                                                   std::string(field) +
                                                   "' is missing but a required field");
}

StatusWith<std::string> UserNameArgument(const Request& request) {
  bson::ValueView name = request.body.Get(request.name);
  if (name.type() != bson::Type::kString || name.String().empty()) {
    return Status(ErrorCode::kBadValue,
                  std::string(request.name) + " requires a non-empty user name string");
  }
  if (request.db == "$external") {
    return Status(ErrorCode::kBadValue,
                  "Quarry has no external authentication: users of $external are not supported");
  }
  return std::string(name.String());
}

// The mechanisms a createUser or updateUser asks for (both when absent).
StatusWith<std::vector<auth::ScramHash>> Mechanisms(bson::ValueView value) {
  std::vector<auth::ScramHash> hashes;
  if (!value.exists())
    return std::vector<auth::ScramHash>{auth::ScramHash::kSha1, auth::ScramHash::kSha256};
  if (value.type() != bson::Type::kArray || value.Document().empty()) {
    return Status(ErrorCode::kBadValue, "mechanisms field must be a non-empty array of strings");
  }
  for (const bson::Element& e : value.Document()) {
    if (e.value.type() != bson::Type::kString) {
      return Status(ErrorCode::kBadValue, "mechanisms field must be a non-empty array of strings");
    }
    if (e.value.String() == "SCRAM-SHA-1") {
      hashes.push_back(auth::ScramHash::kSha1);
    } else if (e.value.String() == "SCRAM-SHA-256") {
      hashes.push_back(auth::ScramHash::kSha256);
    } else {
      return Status(ErrorCode::kBadValue,
                    "Unknown auth mechanism '" + std::string(e.value.String()) + "'");
    }
  }
  return hashes;
}

// credentials: {SCRAM-SHA-1: {...}, SCRAM-SHA-256: {...}} for `password`.
StatusWith<bson::Document> Credentials(std::string_view user, std::string_view password,
                                       bool digest_password,
                                       const std::vector<auth::ScramHash>& hashes) {
  if (password.empty()) return Status(ErrorCode::kBadValue, "User passwords must not be empty");
  bson::DocumentBuilder b;
  for (auth::ScramHash hash : hashes) {
    std::string digest;
    if (!digest_password) {
      if (hash == auth::ScramHash::kSha256) {
        return Status(ErrorCode::kBadValue, "Use of SCRAM-SHA-256 requires undigested passwords");
      }
      digest = std::string(password);
    } else {
      QUARRY_ASSIGN_OR_RETURN(digest, auth::PasswordDigest(hash, user, password));
    }
    auth::ScramSecrets secrets = auth::MakeSecrets(hash, digest, auth::DefaultIterations(hash));
    b.OpenDocument(auth::MechanismName(hash))
        .AppendInt32("iterationCount", secrets.iteration_count)
        .AppendString("salt", secrets.salt)
        .AppendString("storedKey", secrets.stored_key)
        .AppendString("serverKey", secrets.server_key)
        .Close();
  }
  return std::move(b).Finish();
}

// The roles argument, each role checked to exist.
StatusWith<std::vector<RoleName>> ExistingRoles(CommandContext& ctx, bson::ValueView value,
                                                std::string_view db) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> roles, ParseRoleNames(value, db));
  StatusWith<ResolvedRoles> resolved = ResolveRoles(ctx, roles, /*require_existing=*/true);
  QUARRY_RETURN_IF_ERROR(resolved.status());
  return roles;
}

std::vector<std::string_view> StoredMechanisms(bson::DocumentView user) {
  std::vector<std::string_view> names;
  bson::ValueView credentials = user.Get("credentials");
  if (credentials.type() != bson::Type::kDocument) return names;
  for (const bson::Element& e : credentials.Document()) names.push_back(e.key);
  return names;
}

// A stored user with some of its fields replaced.
struct UserChanges {
  std::optional<bson::Document> credentials;
  std::optional<bson::Document> roles;
  bson::ValueView custom_data;
};

bson::Document ApplyChanges(bson::DocumentView stored, const UserChanges& changes) {
  bson::DocumentBuilder b;
  for (const bson::Element& e : stored) {
    if (e.key == "credentials" && changes.credentials.has_value()) {
      b.AppendDocument("credentials", *changes.credentials);
    } else if (e.key == "roles" && changes.roles.has_value()) {
      b.AppendArray("roles", *changes.roles);
    } else if (e.key == "customData" && changes.custom_data.exists()) {
      continue;
    } else {
      b.Append(e.key, e.value);
    }
  }
  if (changes.custom_data.exists()) b.Append("customData", changes.custom_data);
  return std::move(b).Finish();
}

// createUser's and updateUser's arguments.
struct UserArguments {
  std::string user;
  bson::ValueView pwd;
  bson::ValueView custom_data;
  bson::ValueView roles;
  bson::ValueView mechanisms;
  bool digest_password = true;
};

StatusWith<UserArguments> ParseUserArguments(const Request& request) {
  RequestParser args(request);
  UserArguments parsed;
  QUARRY_ASSIGN_OR_RETURN(parsed.user, UserNameArgument(request));
  parsed.pwd = args.Raw("pwd");
  parsed.custom_data = args.Raw("customData");
  parsed.roles = args.Raw("roles");
  parsed.mechanisms = args.Raw("mechanisms");
  QUARRY_ASSIGN_OR_RETURN(parsed.digest_password, args.OptionalBool("digestPassword", true));
  bson::ValueView restrictions = args.Raw("authenticationRestrictions");
  args.Ignore({"comment"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (restrictions.exists() &&
      !(restrictions.type() == bson::Type::kArray && restrictions.Document().empty())) {
    return Status(ErrorCode::kBadValue, "authenticationRestrictions are not supported by Quarry");
  }
  if (parsed.pwd.exists() && parsed.pwd.type() != bson::Type::kString) {
    return Status(ErrorCode::kTypeMismatch, "\"pwd\" must be a string");
  }
  if (parsed.custom_data.exists() && parsed.custom_data.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kBadValue, "\"customData\" field must be an object");
  }
  return parsed;
}

StatusWith<bson::Document> RunCreateUser(CommandContext& ctx, const Request& request) {
  QUARRY_ASSIGN_OR_RETURN(UserArguments args, ParseUserArguments(request));
  if (!args.pwd.exists()) {
    return Status(ErrorCode::kBadValue,
                  "Must provide a 'pwd' field for all user documents, except those with "
                  "'$external' as the user's source db");
  }
  if (!args.roles.exists()) return MissingField("createUser", "roles");
  QUARRY_ASSIGN_OR_RETURN(std::vector<auth::ScramHash> hashes, Mechanisms(args.mechanisms));
  QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> roles, ExistingRoles(ctx, args.roles, request.db));
  QUARRY_ASSIGN_OR_RETURN(bson::Document credentials,
                          Credentials(args.user, args.pwd.String(), args.digest_password, hashes));
  bson::DocumentBuilder b;
  b.AppendString("_id", AuthDocumentId(args.user, request.db));
  b.AppendBinary("userId", 4, catalog::Uuid::Random().view());
  b.AppendString("user", args.user);
  b.AppendString("db", request.db);
  b.AppendDocument("credentials", credentials);
  if (args.custom_data.exists()) b.AppendDocument("customData", args.custom_data.Document());
  b.AppendArray("roles", RoleNamesToArray(roles));
  Status inserted = InsertAuthDocument(ctx, kUsersCollection, std::move(b).Finish());
  if (inserted.code() == ErrorCode::kDuplicateKey) {
    return Status(static_cast<ErrorCode>(51003),
                  "User \"" + args.user + "@" + request.db + "\" already exists");
  }
  QUARRY_RETURN_IF_ERROR(inserted);
  return bson::Document();
}

StatusWith<bson::Document> RunUpdateUser(CommandContext& ctx, const Request& request) {
  QUARRY_ASSIGN_OR_RETURN(UserArguments args, ParseUserArguments(request));
  if (!args.pwd.exists() && !args.custom_data.exists() && !args.roles.exists() &&
      !args.mechanisms.exists()) {
    return Status(ErrorCode::kBadValue, "Must specify at least one field to update in updateUser");
  }
  if (args.mechanisms.exists() && !args.pwd.exists()) {
    return Status(ErrorCode::kBadValue,
                  "mechanisms field may only be specified with a new password");
  }
  UserChanges changes;
  changes.custom_data = args.custom_data;
  if (args.roles.exists()) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> roles,
                            ExistingRoles(ctx, args.roles, request.db));
    changes.roles = RoleNamesToArray(roles);
  }
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> stored,
                          ReadAuthDocument(ctx, kUsersCollection, args.user, request.db));
  if (!stored.has_value()) return UserNotFound(args.user, request.db);
  if (args.pwd.exists()) {
    std::vector<auth::ScramHash> hashes;
    if (args.mechanisms.exists()) {
      QUARRY_ASSIGN_OR_RETURN(hashes, Mechanisms(args.mechanisms));
    } else {
      for (std::string_view name : StoredMechanisms(*stored)) {
        if (name == "SCRAM-SHA-1") hashes.push_back(auth::ScramHash::kSha1);
        if (name == "SCRAM-SHA-256") hashes.push_back(auth::ScramHash::kSha256);
      }
    }
    QUARRY_ASSIGN_OR_RETURN(changes.credentials, Credentials(args.user, args.pwd.String(),
                                                             args.digest_password, hashes));
  }
  QUARRY_ASSIGN_OR_RETURN(
      bool found,
      ModifyAuthDocument(ctx, kUsersCollection, AuthDocumentId(args.user, request.db),
                         [&changes](bson::DocumentView current) -> StatusWith<bson::Document> {
                           return ApplyChanges(current, changes);
                         }));
  if (!found) return UserNotFound(args.user, request.db);
  return bson::Document();
}

StatusWith<bson::Document> RunDropUser(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string user, UserNameArgument(request));
  args.Ignore({"comment"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  bson::DocumentBuilder filter;
  filter.AppendString("_id", AuthDocumentId(user, request.db));
  QUARRY_ASSIGN_OR_RETURN(std::int64_t n,
                          DeleteAuthDocuments(ctx, kUsersCollection, std::move(filter).Finish()));
  if (n == 0) return UserNotFound(user, request.db);
  return bson::Document();
}

StatusWith<bson::Document> RunDropAllUsersFromDatabase(CommandContext& ctx,
                                                       const Request& request) {
  RequestParser args(request);
  args.Ignore({"comment"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  bson::DocumentBuilder filter;
  filter.AppendString("db", request.db);
  QUARRY_ASSIGN_OR_RETURN(std::int64_t n,
                          DeleteAuthDocuments(ctx, kUsersCollection, std::move(filter).Finish()));
  bson::DocumentBuilder b;
  b.AppendInt64("n", n);
  return std::move(b).Finish();
}

// grantRolesToUser / revokeRolesFromUser.
StatusWith<bson::Document> ChangeUserRoles(CommandContext& ctx, const Request& request,
                                           bool grant) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string user, UserNameArgument(request));
  bson::ValueView roles_value = args.Raw("roles");
  args.Ignore({"comment"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (!roles_value.exists()) return MissingField(request.name, "roles");
  QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> changed,
                          grant ? ExistingRoles(ctx, roles_value, request.db)
                                : ParseRoleNames(roles_value, request.db));
  QUARRY_ASSIGN_OR_RETURN(
      bool found, ModifyAuthDocument(ctx, kUsersCollection, AuthDocumentId(user, request.db),
                                     [&](bson::DocumentView current) -> StatusWith<bson::Document> {
                                       QUARRY_ASSIGN_OR_RETURN(
                                           std::vector<RoleName> roles,
                                           ParseRoleNames(current.Get("roles"), ""));
                                       for (const RoleName& role : changed) {
                                         auto it = std::find(roles.begin(), roles.end(), role);
                                         if (grant && it == roles.end()) roles.push_back(role);
                                         if (!grant && it != roles.end()) roles.erase(it);
                                       }
                                       UserChanges changes;
                                       changes.roles = RoleNamesToArray(roles);
                                       return ApplyChanges(current, changes);
                                     }));
  if (!found) return UserNotFound(user, request.db);
  return bson::Document();
}

StatusWith<bson::Document> RunGrantRolesToUser(CommandContext& ctx, const Request& request) {
  return ChangeUserRoles(ctx, request, true);
}

StatusWith<bson::Document> RunRevokeRolesFromUser(CommandContext& ctx, const Request& request) {
  return ChangeUserRoles(ctx, request, false);
}

// usersInfo's argument as a filter on admin.system.users: 1 (the database's users), "name",
// {user, db}, a list of those, or {forAllDBs: true}.
StatusWith<bson::Document> UsersFilter(bson::ValueView value, std::string_view db) {
  bson::DocumentBuilder b;
  auto one = [db](bson::ValueView v) -> StatusWith<std::string> {
    if (v.type() == bson::Type::kString) return AuthDocumentId(v.String(), db);
    if (v.type() == bson::Type::kDocument &&
        v.Document().Get("user").type() == bson::Type::kString &&
        v.Document().Get("db").type() == bson::Type::kString) {
      return AuthDocumentId(v.Document().Get("user").String(), v.Document().Get("db").String());
    }
    return Status(ErrorCode::kBadValue,
                  "User name must be either a string or an object with user and db fields");
  };
  if (value.IsNumber()) {
    b.AppendString("db", db);
  } else if (value.type() == bson::Type::kDocument && value.Document().Get("forAllDBs").Truthy()) {
    // every user
  } else if (value.type() == bson::Type::kArray) {
    bson::ArrayBuilder ids;
    for (const bson::Element& e : value.Document()) {
      QUARRY_ASSIGN_OR_RETURN(std::string id, one(e.value));
      ids.AppendString(id);
    }
    b.OpenDocument("_id").AppendArray("$in", std::move(ids).Finish()).Close();
  } else {
    QUARRY_ASSIGN_OR_RETURN(std::string id, one(value));
    b.AppendString("_id", id);
  }
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunUsersInfo(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(bool show_credentials, args.OptionalBool("showCredentials", false));
  QUARRY_ASSIGN_OR_RETURN(bool show_privileges, args.OptionalBool("showPrivileges", false));
  QUARRY_ASSIGN_OR_RETURN(bool show_custom_data, args.OptionalBool("showCustomData", true));
  bson::ValueView restrictions = args.Raw("showAuthenticationRestrictions");
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::DocumentView> user_filter,
                          args.MaybeDocument("filter"));
  args.Ignore({"comment"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (restrictions.Truthy()) {
    return Status(ErrorCode::kBadValue,
                  "usersInfo's showAuthenticationRestrictions is not supported by Quarry");
  }
  const bson::ValueView which = request.body.Get(request.name);
  const bool exact = !which.IsNumber() && !(which.type() == bson::Type::kDocument &&
                                            which.Document().Get("forAllDBs").Truthy());
  if (show_privileges && (user_filter.has_value() || !exact)) {
    return Status(ErrorCode::kIllegalOperation,
                  "Privilege or restriction details require exact-match usersInfo queries.");
  }
  // mongod applies `filter` to the documents as shown (mechanisms added, credentials and
  // customData left out unless asked for).
  std::optional<query::Matcher> matcher;
  if (user_filter.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(matcher, query::Matcher::Parse(*user_filter));
  }
  QUARRY_ASSIGN_OR_RETURN(bson::Document filter, UsersFilter(which, request.db));
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> users,
                          FindAuthDocuments(ctx, kUsersCollection, filter));
  // Ordered by user, then db, as mongod's UserName.
  std::sort(users.begin(), users.end(), [](const bson::Document& a, const bson::Document& b) {
    return std::pair(a.Get("user").String(), a.Get("db").String()) <
           std::pair(b.Get("user").String(), b.Get("db").String());
  });
  bson::ArrayBuilder out;
  for (const bson::Document& user : users) {
    bson::DocumentBuilder u;
    for (const char* field : {"_id", "userId", "user", "db"}) u.Append(field, user.Get(field));
    if (show_custom_data && user.Get("customData").exists()) {
      u.Append("customData", user.Get("customData"));
    }
    u.Append("roles", user.Get("roles"));
    if (show_credentials) u.Append("credentials", user.Get("credentials"));
    bson::ArrayBuilder mechanisms;
    for (std::string_view name : StoredMechanisms(user)) mechanisms.AppendString(name);
    u.AppendArray("mechanisms", std::move(mechanisms).Finish());
    if (matcher.has_value()) {
      bson::Document shown = std::move(u).Finish();
      if (matcher->Matches(shown.view())) out.AppendDocument(shown.view());
      continue;
    }
    if (show_privileges) {
      QUARRY_ASSIGN_OR_RETURN(std::vector<RoleName> roles, ParseRoleNames(user.Get("roles"), ""));
      QUARRY_ASSIGN_OR_RETURN(ResolvedRoles resolved, ResolveRoles(ctx, roles, false));
      u.AppendArray("inheritedRoles", RoleNamesToArray(resolved.all));
      bson::ArrayBuilder privileges;
      for (const auth::Privilege& p : resolved.privileges.privileges()) {
        privileges.AppendDocument(p.ToDocument());
      }
      u.AppendArray("inheritedPrivileges", std::move(privileges).Finish());
    }
    out.AppendDocument(std::move(u).Finish());
  }
  bson::DocumentBuilder b;
  b.AppendArray("users", std::move(out).Finish());
  return std::move(b).Finish();
}

// The checks of user management, as mongod: actions on the user's database, grantRole and
// revokeRole on each role's database; a user may always see itself and change its own password
// and customData.
bool IsSelf(const Authorizer& authorizer, std::string_view user, std::string_view db) {
  const ConnectionAuth& auth = authorizer.connection();
  return auth.user.has_value() && auth.user->user == user && auth.user->db == db;
}

bool AuthorizeCreateUser(const Authorizer& authorizer, const Request& request) {
  return authorizer.Allows(auth::Target::Database(request.db), {A::kCreateUser}) &&
         AllowsOnRoles(authorizer, request.body.Get("roles"), request.db, A::kGrantRole);
}

bool AuthorizeUpdateUser(const Authorizer& authorizer, const Request& request) {
  bson::ValueView name = request.body.Get(request.name);
  const bool self =
      name.type() == bson::Type::kString && IsSelf(authorizer, name.String(), request.db);
  const auth::Target db = auth::Target::Database(request.db);
  if (request.body.Has("pwd") && !authorizer.Allows(db, {A::kChangePassword}) &&
      !(self && authorizer.Allows(db, {A::kChangeOwnPassword}))) {
    return false;
  }
  if (request.body.Has("customData") && !authorizer.Allows(db, {A::kChangeCustomData}) &&
      !(self && authorizer.Allows(db, {A::kChangeOwnCustomData}))) {
    return false;
  }
  if (request.body.Has("roles")) {
    return authorizer.Allows(db, {A::kRevokeRole}) &&
           AllowsOnRoles(authorizer, request.body.Get("roles"), request.db, A::kGrantRole);
  }
  return true;
}

bool AuthorizeGrantRolesToUser(const Authorizer& authorizer, const Request& request) {
  return AllowsOnRoles(authorizer, request.body.Get("roles"), request.db, A::kGrantRole);
}

bool AuthorizeRevokeRolesFromUser(const Authorizer& authorizer, const Request& request) {
  return AllowsOnRoles(authorizer, request.body.Get("roles"), request.db, A::kRevokeRole);
}

bool AuthorizeUsersInfo(const Authorizer& authorizer, const Request& request) {
  bson::ValueView value = request.body.Get(request.name);
  if (value.type() == bson::Type::kDocument && value.Document().Get("forAllDBs").Truthy()) {
    return authorizer.Allows(auth::Target::Cluster(), {A::kViewUser});
  }
  auto allowed = [&](bson::ValueView v) {
    std::string user;
    std::string db = request.db;
    if (v.type() == bson::Type::kString) {
      user = std::string(v.String());
    } else if (v.type() == bson::Type::kDocument &&
               v.Document().Get("user").type() == bson::Type::kString &&
               v.Document().Get("db").type() == bson::Type::kString) {
      user = std::string(v.Document().Get("user").String());
      db = std::string(v.Document().Get("db").String());
    } else {
      return authorizer.Allows(auth::Target::Database(request.db), {A::kViewUser});
    }
    return IsSelf(authorizer, user, db) ||
           authorizer.Allows(auth::Target::Database(db), {A::kViewUser});
  };
  if (value.type() == bson::Type::kArray) {
    for (const bson::Element& e : value.Document()) {
      if (!allowed(e.value)) return false;
    }
    return true;
  }
  return allowed(value);
}

}  // namespace

void RegisterUserCommands(CommandRegistry& registry) {
  registry.Add({.name = "createUser",
                .flags = kChangesStoredData | kLocalhostException,
                .run = RunCreateUser,
                .auth = Custom(AuthorizeCreateUser)});
  registry.Add({.name = "updateUser",
                .flags = kChangesStoredData,
                .run = RunUpdateUser,
                .auth = Custom(AuthorizeUpdateUser)});
  registry.Add({.name = "dropUser",
                .flags = kChangesStoredData,
                .run = RunDropUser,
                .auth = OnDatabase({auth::ActionType::kDropUser})});
  registry.Add({.name = "dropAllUsersFromDatabase",
                .flags = kChangesStoredData,
                .run = RunDropAllUsersFromDatabase,
                .auth = OnDatabase({auth::ActionType::kDropUser})});
  registry.Add({.name = "usersInfo", .run = RunUsersInfo, .auth = Custom(AuthorizeUsersInfo)});
  registry.Add({.name = "grantRolesToUser",
                .flags = kChangesStoredData,
                .run = RunGrantRolesToUser,
                .auth = Custom(AuthorizeGrantRolesToUser)});
  registry.Add({.name = "revokeRolesFromUser",
                .flags = kChangesStoredData,
                .run = RunRevokeRolesFromUser,
                .auth = Custom(AuthorizeRevokeRolesFromUser)});
}

}  // namespace quarry::commands
