// Logical sessions: drivers end them when a client closes, long-lived clients refresh them, and
// operators kill them (killSessions interrupts their operations and kills their cursors).
// The sessions themselves are the server's (ServiceState::sessions).
#include <random>

#include "bson/builder.h"
#include "commands/auth/authorizer.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/session_control.h"

namespace quarry::commands {
namespace {

// Calls `act` with the id of each {id: UUID} in the command's array; other entries are
// ignored, as mongod does.
template <typename Act>
StatusWith<bson::Document> ForEachSession(CommandContext& ctx, const Request& request, Act act) {
  bson::ValueView sessions = request.body.Get(request.name);
  if (sessions.type() != bson::Type::kArray) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field '" + std::string(request.name) + "' is the wrong type '" +
                      std::string(bson::TypeAlias(sessions.type())) + "', expected type 'array'");
  }
  if (ctx.service().sessions == nullptr) return bson::Document();
  for (const bson::Element& e : sessions.Document()) {
    if (e.value.type() != bson::Type::kDocument) continue;
    bson::ValueView id = e.value.Document().Get("id");
    if (id.type() == bson::Type::kBinary)
      act(*ctx.service().sessions, std::string(id.Binary().data));
  }
  return bson::Document();
}

StatusWith<bson::Document> RunEndSessions(CommandContext& ctx, const Request& request) {
  return ForEachSession(ctx, request,
                        [](SessionControl& sessions, const std::string& id) { sessions.End(id); });
}

StatusWith<bson::Document> RunRefreshSessions(CommandContext& ctx, const Request& request) {
  return ForEachSession(
      ctx, request, [](SessionControl& sessions, const std::string& id) { sessions.Refresh(id); });
}

StatusWith<bson::Document> RunKillSessions(CommandContext& ctx, const Request& request) {
  return ForEachSession(ctx, request,
                        [](SessionControl& sessions, const std::string& id) { sessions.Kill(id); });
}

// killAllSessions: [] kills every session's operations and cursors. Patterns of users are
// refused: sessions do not record the user that started them.
StatusWith<bson::Document> RunKillAllSessions(CommandContext& ctx, const Request& request) {
  bson::ValueView users = request.body.Get(request.name);
  if (users.type() != bson::Type::kArray) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'killAllSessions' is the wrong type '" +
                                                std::string(bson::TypeAlias(users.type())) +
                                                "', expected type 'array'");
  }
  if (!users.Document().empty()) {
    return Status(ErrorCode::kNotImplemented,
                  "killAllSessions with user patterns is not supported: Quarry's sessions do not "
                  "record their users");
  }
  if (ctx.service().sessions != nullptr) ctx.service().sessions->KillAll();
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
  registry.Add(
      {.name = "killSessions", .run = RunKillSessions, .auth = Custom(AuthorizeKillSessions)});
  registry.Add({.name = "killAllSessions",
                .run = RunKillAllSessions,
                .auth = OnCluster({auth::ActionType::kKillAnySession})});
  registry.Add({.name = "refreshSessions", .run = RunRefreshSessions, .auth = AnyUser()});
  registry.Add({.name = "startSession", .run = RunStartSession, .auth = AnyUser()});
}

}  // namespace quarry::commands
