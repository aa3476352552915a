// configureFailPoint: test-only, registered when quarryd runs with --enableTestCommands.
#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "commands/test_hooks.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunConfigureFailPoint(CommandContext& ctx, const Request& request) {
  bson::ValueView name = request.body.Get(request.name);
  if (name.type() != bson::Type::kString) {
    return Status(ErrorCode::kTypeMismatch, "configureFailPoint takes the fail point's name");
  }
  if (ctx.service().test_hooks == nullptr) {
    return Status(ErrorCode::kCommandNotFound, "configureFailPoint needs --enableTestCommands");
  }
  bson::ValueView data = request.body.Get("data");
  QUARRY_ASSIGN_OR_RETURN(
      std::int64_t count,
      ctx.service().test_hooks->Configure(
          name.String(), request.body.Get("mode"),
          data.type() == bson::Type::kDocument ? data.Document() : bson::DocumentView()));
  bson::DocumentBuilder b;
  b.AppendInt64("count", count);
  return std::move(b).Finish();
}

}  // namespace

void RegisterTestCommands(CommandRegistry& registry) {
  registry.Add({.name = "configureFailPoint",
                .flags = kAdminOnly | kIgnoresFailCommand,
                .run = RunConfigureFailPoint,
                .auth = OnCluster({auth::ActionType::kConfigureFailPoint})});
}

}  // namespace quarry::commands
