// Logical sessions: drivers end them when a client closes, long-lived clients refresh them, and
// operators kill them (killSessions interrupts their operations and kills their cursors).
// The sessions themselves are the server's (ServiceState::sessions). A session is its lsid's id
// with its user (commands/session_control.h): an id a client names is taken as its own user's
// session unless it also names the uid, which needs impersonate (or killAnySession to kill).
#include <random>

#include "auth/user_digest.h"
#include "bson/builder.h"
#include "commands/auth/authorizer.h"
#include "commands/auth/session_uid.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/session_control.h"
#include "commands/strict_document.h"

namespace quarry::commands {
namespace {

using A = auth::ActionType;

Status NotAnArray(std::string_view field, bson::ValueView value) {
  return Status(ErrorCode::kTypeMismatch,
                "BSON field '" + std::string(field) + "' is the wrong type '" +
                    std::string(bson::TypeAlias(value.type())) + "', expected type 'array'");
}

// The session keys of the {id, uid?} documents of the command's array; other entries are
// ignored, as mongod does. A uid other than the user's own needs impersonate or
// `also_allowed`.
StatusWith<std::vector<std::string>> SessionKeys(CommandContext& ctx, const Request& request,
                                                 A also_allowed = A::kImpersonate) {
  bson::ValueView sessions = request.body.Get(request.name);
  if (sessions.type() != bson::Type::kArray) return NotAnArray(request.name, sessions);
  std::vector<std::string> keys;
  for (const bson::Element& e : sessions.Document()) {
    if (e.value.type() != bson::Type::kDocument) continue;
    bson::ValueView id = e.value.Document().Get("id");
    if (id.type() != bson::Type::kBinary) continue;
    QUARRY_ASSIGN_OR_RETURN(std::optional<std::string_view> uid,
                            SessionUid(ctx, e.value.Document().Get("uid"), also_allowed));
    if (uid.has_value()) keys.push_back(SessionKey(id.Binary().data, *uid));
  }
  return keys;
}

template <typename Act>
StatusWith<bson::Document> ForEachSession(CommandContext& ctx, const Request& request, Act act,
                                          A also_allowed = A::kImpersonate) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<std::string> keys, SessionKeys(ctx, request, also_allowed));
  if (ctx.service().sessions == nullptr) return bson::Document();
  for (const std::string& key : keys) act(*ctx.service().sessions, key);
  return bson::Document();
}

StatusWith<bson::Document> RunEndSessions(CommandContext& ctx, const Request& request) {
  return ForEachSession(
      ctx, request, [](SessionControl& sessions, const std::string& key) { sessions.End(key); });
}

StatusWith<bson::Document> RunRefreshSessions(CommandContext& ctx, const Request& request) {
  return ForEachSession(ctx, request, [](SessionControl& sessions, const std::string& key) {
    sessions.Refresh(key);
  });
}

// killSessions: the named sessions of the caller (another user's only with its uid and
// killAnySession), or with [] every session of the caller (every session without --auth).
StatusWith<bson::Document> RunKillSessions(CommandContext& ctx, const Request& request) {
  bson::ValueView sessions = request.body.Get(request.name);
  if (sessions.type() == bson::Type::kArray && sessions.Document().empty()) {
    if (ctx.service().sessions == nullptr) return bson::Document();
    if (!ctx.service().config.auth_enabled) {
      ctx.service().sessions->KillAll();
    } else if (std::optional<std::string_view> uid = OwnSessionUid(ctx)) {
      ctx.service().sessions->KillOfUser(std::string(*uid));
    }
    return bson::Document();
  }
  return ForEachSession(
      ctx, request, [](SessionControl& sessions, const std::string& key) { sessions.Kill(key); },
      A::kKillAnySession);
}

// A {user, db} (or {role, db}) of a kill pattern, as mongod's strict IDL struct.
Status CheckNames(bson::ValueView names, std::string_view path, std::string_view name_field) {
  if (names.type() != bson::Type::kArray) return NotAnArray(path, names);
  for (const bson::Element& e : names.Document()) {
    if (e.value.type() != bson::Type::kDocument) {
      return WrongFieldType(std::string(path) + "." + std::string(e.key), e.value, "object");
    }
    QUARRY_RETURN_IF_ERROR(CheckStrictDocument(e.value.Document(), path,
                                               {{name_field, bson::Type::kString, "string", true},
                                                {"db", bson::Type::kString, "string", true}}));
  }
  return Status::OK();
}

// killAllSessions: [] kills every session's operations and cursors; [{user, db}, ...] those of
// the sessions of these users.
StatusWith<bson::Document> RunKillAllSessions(CommandContext& ctx, const Request& request) {
  bson::ValueView users = request.body.Get(request.name);
  if (users.type() != bson::Type::kArray) return NotAnArray("killAllSessions", users);
  QUARRY_RETURN_IF_ERROR(CheckNames(users, "KillAllSessionsCmd.killAllSessions", "user"));
  SessionControl* sessions = ctx.service().sessions;
  if (sessions == nullptr) return bson::Document();
  if (users.Document().empty()) {
    sessions->KillAll();
    return bson::Document();
  }
  for (const bson::Element& e : users.Document()) {
    bson::DocumentView user = e.value.Document();
    sessions->KillOfUser(auth::UserDigest(user.Get("user").String(), user.Get("db").String()));
  }
  return bson::Document();
}

Status CheckUid(bson::ValueView uid) {
  if (uid.Binary().data.size() != auth::NoUserDigest().size()) {
    return Status(ErrorCode::kBadValue, "Unsupported SHA256Block hash length: " +
                                            std::to_string(uid.Binary().data.size()));
  }
  return Status::OK();
}

// killAllSessionsByPattern: each pattern {uid} kills a user's sessions, {lsid: {id, uid}} one
// session, and one with neither every session; [] kills every session. `users` and `roles` are
// mongod's impersonation data (whom the kill is done on behalf of), allowed only with
// impersonate; they select nothing.
StatusWith<bson::Document> RunKillAllSessionsByPattern(CommandContext& ctx,
                                                       const Request& request) {
  constexpr std::string_view kPath = "KillAllSessionsByPatternCmd.killAllSessionsByPattern";
  bson::ValueView patterns = request.body.Get(request.name);
  if (patterns.type() != bson::Type::kArray) return NotAnArray(kPath, patterns);
  bool impersonates = false;
  for (const bson::Element& e : patterns.Document()) {
    if (e.value.type() != bson::Type::kDocument) {
      return WrongFieldType(std::string(kPath) + "." + std::string(e.key), e.value, "object");
    }
    bson::DocumentView pattern = e.value.Document();
    QUARRY_RETURN_IF_ERROR(CheckStrictDocument(pattern, kPath,
                                               {{"lsid", bson::Type::kDocument, "object"},
                                                {"uid", bson::Type::kBinary, "binData"},
                                                {"users", bson::Type::kArray, "array"},
                                                {"roles", bson::Type::kArray, "array"}}));
    if (pattern.Has("uid")) QUARRY_RETURN_IF_ERROR(CheckUid(pattern.Get("uid")));
    if (pattern.Has("lsid")) {
      const std::string lsid_path = std::string(kPath) + ".lsid";
      QUARRY_RETURN_IF_ERROR(CheckStrictDocument(pattern.Get("lsid").Document(), lsid_path,
                                                 {{"id", bson::Type::kBinary, "uuid", true},
                                                  {"uid", bson::Type::kBinary, "binData", true}}));
      QUARRY_RETURN_IF_ERROR(CheckUid(pattern.Get("lsid").Document().Get("uid")));
    }
    if (pattern.Has("users")) {
      QUARRY_RETURN_IF_ERROR(
          CheckNames(pattern.Get("users"), std::string(kPath) + ".users", "user"));
    }
    if (pattern.Has("roles")) {
      QUARRY_RETURN_IF_ERROR(
          CheckNames(pattern.Get("roles"), std::string(kPath) + ".roles", "role"));
    }
    impersonates = impersonates || pattern.Has("users") || pattern.Has("roles");
  }
  if (impersonates && ctx.service().config.auth_enabled &&
      !ctx.connection().auth.privileges.Allows(auth::Target::Cluster(), {A::kImpersonate})) {
    return Status(ErrorCode::kUnauthorized,
                  "Not authorized to impersonate in killAllSessionsByPattern");
  }
  SessionControl* sessions = ctx.service().sessions;
  if (sessions == nullptr) return bson::Document();
  if (patterns.Document().empty()) {
    sessions->KillAll();
    return bson::Document();
  }
  for (const bson::Element& e : patterns.Document()) {
    bson::DocumentView pattern = e.value.Document();
    if (pattern.Has("uid")) {
      sessions->KillOfUser(std::string(pattern.Get("uid").Binary().data));
    } else if (pattern.Has("lsid")) {
      bson::DocumentView lsid = pattern.Get("lsid").Document();
      sessions->Kill(SessionKey(lsid.Get("id").Binary().data, lsid.Get("uid").Binary().data));
    } else {
      sessions->KillAll();
      break;
    }
  }
  return bson::Document();
}

StatusWith<bson::Document> RunStartSession(CommandContext&, const Request&) {
  std::random_device rd;
  std::string uuid(16, '\0');
  for (char& c : uuid) c = static_cast<char>(rd());
  uuid[6] = static_cast<char>((uuid[6] & 0x0F) | 0x40);  // version 4
  uuid[8] = static_cast<char>((uuid[8] & 0x3F) | 0x80);  // RFC 4122 variant
  bson::DocumentBuilder b;
  b.OpenDocument("id").AppendBinary("id", 4, uuid).Close();
  b.AppendInt32("timeoutMinutes", 30);
  return std::move(b).Finish();
}

}  // namespace

void RegisterSessionCommands(CommandRegistry& registry) {
  registry.Add({.name = "endSessions", .run = RunEndSessions, .auth = AnyUser()});
  // Any user may kill its own sessions; killing another's names its uid, checked by the handler.
  registry.Add({.name = "killSessions", .run = RunKillSessions, .auth = AnyUser()});
  registry.Add({.name = "killAllSessions",
                .run = RunKillAllSessions,
                .auth = OnCluster({A::kKillAnySession})});
  registry.Add({.name = "killAllSessionsByPattern",
                .run = RunKillAllSessionsByPattern,
                .auth = OnCluster({A::kKillAnySession})});
  registry.Add({.name = "refreshSessions", .run = RunRefreshSessions, .auth = AnyUser()});
  registry.Add({.name = "startSession", .run = RunStartSession, .auth = AnyUser()});
}

}  // namespace quarry::commands
