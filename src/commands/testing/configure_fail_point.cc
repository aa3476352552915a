// configureFailPoint: test-only, registered when quarryd runs with --enableTestCommands.
#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunConfigureFailPoint(CommandContext& ctx, const Request& request) {
  bson::ValueView name = request.body.Get(request.name);
  if (name.type() != bson::Type::kString) {
    return Status(ErrorCode::kTypeMismatch, "configureFailPoint takes the fail point's name");
  }
  FailCommandPoint* point = nullptr;
  if (name.String() == "failCommand") point = &ctx.service().fail_command;
  if (name.String() == "failGetMoreAfterCursorCheckout") point = &ctx.service().fail_get_more;
  if (name.String() == "onPrimaryTransactionalWrite") point = &ctx.service().fail_primary_write;
  if (point == nullptr) {
    return Status(ErrorCode::kBadValue,
                  "Unknown fail point: " + std::string(name.String()) +
                      " (Quarry has failCommand, failGetMoreAfterCursorCheckout and "
                      "onPrimaryTransactionalWrite)");
  }
  bson::ValueView data = request.body.Get("data");
  QUARRY_ASSIGN_OR_RETURN(
      std::int64_t count,
      point->Configure(request.body.Get("mode"),
                       data.type() == bson::Type::kDocument ? data.Document() : bson::DocumentView(),
                       /*needs_command_list=*/point == &ctx.service().fail_command));
  bson::DocumentBuilder b;
  b.AppendInt64("count", count);
  return std::move(b).Finish();
}

}  // namespace

void RegisterTestCommands(CommandRegistry& registry) {
  registry.Add({.name = "configureFailPoint", .flags = kAdminOnly, .run = RunConfigureFailPoint});
}

}  // namespace quarry::commands
