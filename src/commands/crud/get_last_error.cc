// getLastError: the outcome of this connection's last write, as mongod reported it before 5.1.
// Clients that write with w:0 call it to confirm a batch; since a connection
// runs its requests in order, by the time this runs every earlier write has been applied.
#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunGetLastError(CommandContext& ctx, const Request&) {
  const LastWrite& last = ctx.connection().last_write;
  bson::DocumentBuilder b;
  b.AppendInt64("connectionId", ctx.connection().id);
  if (last.error.empty()) {
    b.AppendNull("err");
  } else {
    b.AppendString("err", last.error);
    b.AppendInt32("code", last.code);
    b.AppendString("codeName", last.code_name);
  }
  b.AppendInt64("n", last.n);
  if (last.present && last.error.empty()) b.AppendBool("updatedExisting", last.updated_existing);
  if (last.upserted.has_value()) b.Append("upserted", last.upserted->Get("_id"));
  b.AppendInt32("syncMillis", 0);
  b.OpenArray("writtenTo").Close();
  return std::move(b).Finish();
}

}  // namespace

void RegisterGetLastErrorCommand(CommandRegistry& registry) {
  registry.Add({.name = "getLastError",
                .run = RunGetLastError,
                .aliases = {"getlasterror"},
                .auth = OpenToAll()});
}

}  // namespace quarry::commands
