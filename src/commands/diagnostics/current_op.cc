// currentOp and killOp: the operations running now, and asking one of them to stop.
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "base/log.h"
#include "bson/builder.h"
#include "bson/types.h"
#include "commands/auth/authorizer.h"
#include "commands/command_context.h"
#include "commands/diagnostics/current_op_report.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "query/match/matcher.h"

namespace quarry::commands {
namespace {

bool IsCurrentOpParameter(std::string_view key) {
  return key == "$all" || key == "$ownOps" || key == "$truncateOps";
}

// mongod runs currentOp as [{$currentOp: ...}, {$match: <the other fields>}]; the same filter,
// applied to the same documents, gives the same answer.
StatusWith<bson::Document> RunCurrentOp(CommandContext& ctx, const Request& request) {
  CurrentOpOptions options;
  options.idle_connections = request.body.Get("$all").Truthy();
  // Only test deployments may ask for whole commands; the reply must fit one document.
  bson::ValueView truncate = request.body.Get("$truncateOps");
  options.truncate_ops =
      !ctx.service().config.enable_test_commands || !truncate.exists() || truncate.Truthy();
  // mongod's currentOp is $currentOp with allUsers: !$ownOps.
  options.all_users = !request.body.Get("$ownOps").Truthy();
  if (ctx.service().config.auth_enabled && !options.all_users) {
    options.only_user = ctx.connection().auth.Name();
  }
  bson::DocumentBuilder filter;
  bool first = true;
  for (const bson::Element& e : request.body) {
    if (std::exchange(first, false)) continue;
    if (IsCurrentOpParameter(e.key) || IsGenericArgument(e.key)) continue;
    filter.Append(e.key, e.value);
  }
  const bson::Document filter_doc = std::move(filter).Finish();
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter_doc.view()));
  bson::DocumentBuilder b;
  b.OpenArray("inprog");
  std::size_t n = 0;
  for (const bson::Document& op : CurrentOpDocuments(ctx.service(), options)) {
    if (matcher.Matches(op.view())) b.AppendDocument(std::to_string(n++), op.view());
  }
  b.Close();
  if (ctx.service().fsync_lock.lock_count() > 0) {
    b.AppendBool("fsyncLock", true);
    b.AppendString("info", "use db.fsyncUnlock() to terminate the fsync write/snapshot lock");
  }
  return std::move(b).Finish();
}

// The opid as mongod's bsonExtractIntegerField and its 32-bit check read it.
StatusWith<std::int32_t> ParseOpId(bson::DocumentView body) {
  bson::ValueView op = body.Get("op");
  if (!op.exists()) return Status(ErrorCode::kNoSuchKey, "Missing expected field \"op\"");
  if (!op.IsNumber()) {
    return Status(ErrorCode::kTypeMismatch,
                  "Expected field \"op\" to have numeric type, but found " +
                      std::string(bson::TypeAlias(op.type())));
  }
  const double as_double = op.AsDouble();
  if (op.type() == bson::Type::kDouble &&
      (std::isnan(as_double) || std::trunc(as_double) != as_double ||
       std::abs(as_double) >= 9.2e18)) {
    return Status(ErrorCode::kBadValue,
                  "Expected field \"op\" to have a value exactly representable as a 64-bit "
                  "integer, but found op: " +
                      op.ToJson());
  }
  const std::int64_t id = op.AsInt64();
  if (id < std::numeric_limits<std::int32_t>::min() ||
      id > std::numeric_limits<std::int32_t>::max()) {
    return Status(static_cast<ErrorCode>(26823), "invalid op : " + std::to_string(id) +
                                                     ". Op ID cannot be represented with 32 bits");
  }
  return static_cast<std::int32_t>(id);
}

// The operation stops at its next check for interruption; killOp answers at once, and the same
// whether or not the opid is running, as mongod does.
StatusWith<bson::Document> RunKillOp(CommandContext& ctx, const Request& request) {
  QUARRY_ASSIGN_OR_RETURN(std::int32_t opid, ParseOpId(request.body));
  log::Write(log::Severity::kInfo, "COMMAND", 20482, "conn" + std::to_string(ctx.connection().id),
             "Going to kill op", {{"opId", static_cast<std::int64_t>(opid)}});
  (void)ctx.service().operations.Kill(opid);
  bson::DocumentBuilder b;
  b.AppendString("info", "attempting to kill op");
  return std::move(b).Finish();
}

}  // namespace

void RegisterCurrentOpCommands(CommandRegistry& registry) {
  registry.Add({.name = "currentOp",
                .flags = kAdminOnly,
                .run = RunCurrentOp,
                .auth = Custom(AuthorizeCurrentOp)});
  registry.Add(
      {.name = "killOp", .flags = kAdminOnly, .run = RunKillOp, .auth = Custom(AuthorizeKillOp)});
}

}  // namespace quarry::commands
