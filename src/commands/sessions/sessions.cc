// Logical sessions. Quarry keeps no server-side session state yet (no transactions), so these
// acknowledge what drivers send: endSessions at every client close, refresh from long-lived
// clients. Answering CommandNotFound here makes applications log errors (reference §4.3).
#include <random>

#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunAcknowledge(CommandContext&, const Request&) {
  return bson::Document();
}

// endSessions: [{id: UUID}, ...]; unknown ids are ignored, as in mongod.
StatusWith<bson::Document> RunEndSessions(CommandContext& ctx, const Request& request) {
  bson::ValueView sessions = request.body.Get(request.name);
  if (sessions.type() == bson::Type::kArray) {
    for (const bson::Element& e : sessions.Document()) {
      if (e.value.type() != bson::Type::kDocument) continue;
      bson::ValueView id = e.value.Document().Get("id");
      if (id.type() == bson::Type::kBinary) ctx.service().sessions.End(std::string(id.Binary().data));
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
  registry.Add({.name = "endSessions", .run = RunEndSessions});
  registry.Add({.name = "killSessions", .run = RunAcknowledge});
  registry.Add({.name = "killAllSessions", .run = RunAcknowledge});
  registry.Add({.name = "refreshSessions", .run = RunAcknowledge});
  registry.Add({.name = "startSession", .run = RunStartSession});
}

}  // namespace quarry::commands
