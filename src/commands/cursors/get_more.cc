// getMore and killCursors over the cursors find and aggregate left open.
#include <chrono>
#include <optional>

#include "bson/builder.h"
#include "commands/aggregate/change_stream.h"
#include "commands/auth/authorizer.h"
#include "commands/command_context.h"
#include "commands/cursor_reply.h"
#include "commands/cursors/awaiting_tail.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "commands/test_hooks.h"
#include "cursors/batch_limits.h"
#include "cursors/cursor_manager.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunGetMore(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  bson::ValueView id_value = request.body.Get(request.name);
  if (id_value.type() != bson::Type::kInt64) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'getMore.getMore' is the wrong type '" +
                                                std::string(bson::TypeAlias(id_value.type())) +
                                                "', expected type 'long'");
  }
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.RequiredString("collection"));
  bson::ValueView batch_size_value = args.Raw("batchSize");
  QUARRY_ASSIGN_OR_RETURN(std::int64_t batch_size, args.OptionalNonNegative("batchSize", 0));
  args.Ignore({"term", "lastKnownCommittedOpTime", "$_generateV2ResumeTokens"});
  // maxTimeMS (a generic argument) bounds a change stream's wait for new events.
  QUARRY_RETURN_IF_ERROR(args.Finish());

  std::string ns = request.db + "." + coll;
  QUARRY_ASSIGN_OR_RETURN(
      cursors::PinnedCursor cursor,
      ctx.cursors().Pin(id_value.Int64(), ns, ctx.connection().auth.OwnerName()));
  // As mongod: only a getMore that may wait (awaitData) takes a time limit of its own.
  if (request.body.Get("maxTimeMS").exists() && !cursor.options().await_data) {
    return Status(ErrorCode::kBadValue,
                  "cannot set maxTimeMS on getMore command for a non-awaitData cursor");
  }
  // The cursor's plan checks the Interrupt of the command that opened it: killOp of this getMore
  // must reach that one (and, as in mongod, the cursor dies with the getMore).
  ctx.UseInterrupt(cursor.options().interrupt);
  std::optional<std::int64_t> requested;
  if (batch_size_value.exists() && batch_size > 0) requested = batch_size;
  const bool change_stream = IsChangeStream(cursor);
  if (TestHooks* hooks = ctx.service().test_hooks) {
    Status injected = hooks->AfterCursorCheckout(ctx);
    if (!injected.ok())
      return change_stream ? LabelChangeStreamError(std::move(injected)) : injected;
  }
  if (change_stream) return ChangeStreamGetMore(ctx, request, cursor, requested);
  if (IsAwaitingTailCursor(cursor)) return AwaitingTailGetMore(ctx, request, cursor, requested);
  // The find's or aggregate's maxTimeMS goes on with what it left (the service clears the
  // deadline after the command).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (cursor.options().time_left.has_value() && !cursor.options().tailable) {
    deadline = std::chrono::steady_clock::now() + *cursor.options().time_left;
    ctx.interrupt()->SetDeadline(*deadline);
  }
  cursors::BatchLimits limits = cursors::GetMoreBatchLimits(requested);
  StatusWith<query::Batch> batch = cursor.source().NextBatch(limits.max_docs, limits.max_bytes);
  if (deadline.has_value()) cursor.set_time_left(*deadline - std::chrono::steady_clock::now());
  if (!batch.ok()) {
    cursor.Close();
    return batch.status();
  }
  std::int64_t id = cursor.id();
  if (cursor.source().exhausted()) {
    cursor.Close();
    id = 0;
  }
  return BuildResultsReply(ctx, "nextBatch", batch.value(), id, ns);
}

StatusWith<bson::Document> RunKillCursors(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  bson::ValueView ids = args.Raw("cursors");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (ids.type() != bson::Type::kArray) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'killCursors.cursors' must be an array");
  }
  std::vector<cursors::CursorId> to_kill;
  for (const bson::Element& e : ids.Document()) {
    if (e.value.type() != bson::Type::kInt64) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'killCursors.cursors' must contain only longs");
    }
    to_kill.push_back(e.value.Int64());
  }
  const std::string ns = request.db + "." + coll;
  if (!MayKillAnyCursor(ctx)) {
    QUARRY_RETURN_IF_ERROR(
        ctx.cursors().CheckOwner(ns, to_kill, ctx.connection().auth.OwnerName()));
  }
  cursors::KillCursorsResult result = ctx.cursors().Kill(ns, to_kill);
  bson::DocumentBuilder b;
  auto append = [&b](std::string_view field, const std::vector<cursors::CursorId>& list) {
    b.OpenArray(field);
    for (std::size_t i = 0; i < list.size(); ++i) b.AppendInt64(std::to_string(i), list[i]);
    b.Close();
  };
  append("cursorsKilled", result.killed);
  append("cursorsNotFound", result.not_found);
  append("cursorsAlive", result.alive);
  append("cursorsUnknown", result.unknown);
  return std::move(b).Finish();
}

}  // namespace

void RegisterCursorCommands(CommandRegistry& registry) {
  registry.Add({.name = "getMore",
                .flags = kWaitsByDesign | kAllowedInTransaction,
                .run = RunGetMore,
                .counter = OpCounter::kGetMore,
                .auth = AnyUser()});
  registry.Add({.name = "killCursors",
                .flags = kAllowedInTransaction,
                .run = RunKillCursors,
                .auth = AnyUser()});
}

}  // namespace quarry::commands
