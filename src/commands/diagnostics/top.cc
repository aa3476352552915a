// top: for each collection, the time (in microseconds) and number of the commands that named
// it since start-up or since it was created again, in mongod's sections (NamespaceUsage).
#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "commands/service_state.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunTop(CommandContext& ctx, const Request& request) {
  QUARRY_RETURN_IF_ERROR(RequestParser(request).Finish());
  bson::DocumentBuilder b;
  b.OpenDocument("totals");
  b.AppendString("note", "all times in microseconds");
  for (const NamespaceUsage::Row& row : ctx.service().usage.Rows()) {
    b.OpenDocument(row.ns);
    for (std::size_t i = 0; i < NamespaceUsage::kSectionCount; ++i) {
      b.OpenDocument(NamespaceUsage::kSectionNames[i])
          .AppendNumber("time", row.sections[i].micros)
          .AppendNumber("count", row.sections[i].count)
          .Close();
    }
    b.Close();
  }
  b.Close();
  return std::move(b).Finish();
}

}  // namespace

void RegisterTopCommand(CommandRegistry& registry) {
  registry.Add({.name = "top",
                .flags = kAdminOnly,
                .run = RunTop,
                .auth = OnCluster({auth::ActionType::kTop})});
}

}  // namespace quarry::commands
