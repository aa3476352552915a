// find: parse, plan, run the first batch, keep a cursor for the rest.
#include "bson/builder.h"
#include "collation/collator.h"
#include "commands/collation_default.h"
#include "commands/command_context.h"
#include "commands/cursor_reply.h"
#include "commands/cursors/capped_tail.h"
#include "commands/execution.h"
#include "commands/explain/explainers.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "commands/unsupported_options.h"
#include "commands/views/view_reads.h"
#include "cursors/batch_limits.h"
#include "cursors/cursor_manager.h"
#include "exec/plan_executor.h"
#include "exec/planner.h"

namespace quarry::commands {
namespace {

// A find as parsed: what to read, and how to return it.
struct FindArgs {
  std::string coll;
  exec::QuerySpec spec;
  bson::DocumentView filter;
  std::optional<std::int64_t> batch_size;
  bool single_batch = false;
  bool no_cursor_timeout = false;
  bool await_data = false;
  collation::CollatorPtr collator;  // the one the query runs under, for explain
};

// Parses into `*out` in place: returning the arguments moved their QuerySpec twice, about 900
// instructions of a find by _id.
Status ParseFind(CommandContext& ctx, const Request& request, FindArgs* out) {
  RequestParser args(request);
  FindArgs& find = *out;
  QUARRY_ASSIGN_OR_RETURN(find.coll, args.CollectionName());
  QUARRY_ASSIGN_OR_RETURN(find.filter, args.OptionalDocument("filter"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView sort, args.OptionalDocument("sort"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView projection, args.OptionalDocument("projection"));
  QUARRY_ASSIGN_OR_RETURN(std::int64_t skip, args.OptionalNonNegative("skip", 0));
  QUARRY_ASSIGN_OR_RETURN(std::int64_t limit, args.OptionalNonNegative("limit", 0));
  bson::ValueView batch_size_value = args.Raw("batchSize");
  QUARRY_ASSIGN_OR_RETURN(std::int64_t batch_size, args.OptionalInt("batchSize", 0));
  if (batch_size < 0) {
    return Status(ErrorCode::kBadValue,
                  "BSON field 'batchSize' value must be >= 0, actual value '" +
                      std::to_string(batch_size) + "'");
  }
  if (batch_size_value.IsNumber()) find.batch_size = batch_size;
  QUARRY_ASSIGN_OR_RETURN(find.single_batch, args.OptionalBool("singleBatch", false));
  QUARRY_ASSIGN_OR_RETURN(find.no_cursor_timeout, args.OptionalBool("noCursorTimeout", false));
  QUARRY_ASSIGN_OR_RETURN(bool tailable, args.OptionalBool("tailable", false));
  QUARRY_ASSIGN_OR_RETURN(bool await_data, args.OptionalBool("awaitData", false));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView let, args.OptionalDocument("let"));
  bson::ValueView hint = args.Raw("hint");
  QUARRY_ASSIGN_OR_RETURN(bool return_key, args.OptionalBool("returnKey", false));
  QUARRY_RETURN_IF_ERROR(CheckFindKeyOptions(return_key, projection));
  QUARRY_ASSIGN_OR_RETURN(bool show_record_id, args.OptionalBool("showRecordId", false));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView min, args.OptionalDocument("min"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView max, args.OptionalDocument("max"));
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collator,
                          CommandCollator(ctx, request.db, find.coll, args.Raw("collation"), ""));
  QUARRY_ASSIGN_OR_RETURN(bool allow_disk_use, args.OptionalBool("allowDiskUse", false));
  // Hints mongod itself ignores on a replica set member: no shards to be partial over, no
  // oplog replay to speed up, no cache to spare.
  args.Ignore({"allowPartialResults", "oplogReplay", "readOnce", "ntoreturn", "isMaster"});
  for (std::string_view resume : {"$_requestResumeToken", "$_resumeAfter"}) {
    if (args.Raw(resume).exists()) {
      return Status(ErrorCode::kNotImplemented,
                    "find's '" + std::string(resume) + "' is not supported by Quarry");
    }
  }
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (await_data && !tailable) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot set 'awaitData' without also setting 'tailable'");
  }
  if (tailable && find.single_batch) {
    return Status(ErrorCode::kBadValue, "cannot use tailable option with the 'singleBatch' option");
  }
  find.await_data = await_data;
  find.collator = collator;
  QUARRY_RETURN_IF_ERROR(exec::QuerySpec::ParseInto(find.filter, let, projection, sort, skip, limit,
                                                    std::move(collator), &find.spec));
  const ServerConfig& config = ctx.service().config;
  find.spec.sort_memory.max_bytes = config.max_blocking_sort_bytes;
  if (allow_disk_use) find.spec.sort_memory.spill_dir = config.spill_dir;
  find.spec.hint = hint;
  find.spec.min = min;
  find.spec.max = max;
  find.spec.return_key = return_key;
  find.spec.show_record_id = show_record_id;
  find.spec.tailable = tailable;
  return Status::OK();
}

// A tailable find's first batch. Its cursor stays open at the end of the collection, except
// on an empty one, which mongod does not tail.
StatusWith<bson::Document> TailCappedCollection(CommandContext& ctx, const FindArgs& find,
                                                const exec::Collection& collection,
                                                std::unique_ptr<exec::PlanStage> plan) {
  const bool empty = ctx.engine().records().Count(collection.id) == 0;
  auto source = std::make_unique<CappedTailSource>(
      std::make_unique<exec::PlanExecutor>(std::move(plan), /*tailable=*/true),
      ctx.service().notifier);
  cursors::BatchLimits limits = cursors::FirstBatchLimits(find.batch_size);
  QUARRY_ASSIGN_OR_RETURN(query::Batch batch, source->NextBatch(limits.max_docs, limits.max_bytes));
  std::int64_t cursor_id = 0;
  if (!empty) {
    cursors::CursorOptions options = CursorOptionsFor(ctx);
    options.no_cursor_timeout = find.no_cursor_timeout;
    options.tailable = true;
    options.await_data = find.await_data;
    cursor_id = ctx.cursors().Register(collection.ns, std::move(source), options);
  }
  return BuildResultsReply(ctx, "firstBatch", batch, cursor_id, collection.ns);
}

StatusWith<bson::Document> RunFind(CommandContext& ctx, const Request& request) {
  bson::ValueView target = request.body.Get(request.name);
  if (target.type() == bson::Type::kString &&
      IsReplicationCollection(ctx.service(), request.db, target.String())) {
    return FindReplicationCollection(ctx, request, target.String());
  }
  if (target.type() == bson::Type::kString && IsProfileCollection(target.String())) {
    return FindProfileCollection(ctx, request);
  }
  const bson::ValueView filter = request.body.Get("filter");
  if (filter.type() == bson::Type::kDocument && MayHoldText(filter.Document()) &&
      target.type() == bson::Type::kString) {
    // A $text search runs as the aggregate find becomes, whose documents carry their scores
    // for {$meta: "textScore"} in the projection and the sort; mongod's refusals of what an
    // aggregate has no place for come first.
    const bson::ValueView sort = request.body.Get("sort");
    if (sort.type() == bson::Type::kDocument && sort.Document().Has("$natural")) {
      return Status(ErrorCode::kBadValue, "text expression not allowed with $natural sort order");
    }
    if (request.body.Get("tailable").Truthy()) {
      return Status(ErrorCode::kBadValue, "text and tailable cursor not allowed in same query");
    }
    std::optional<exec::Collection> collection =
        LookupCollectionOrView(ctx, request.db, target.String());
    if (!collection.has_value()) {
      return Status(ErrorCode::kIndexNotFound,
                    "text index required for $text query (no such "
                    "collection '" +
                        request.db + "." + std::string(target.String()) + "')");
    }
    return FindOnCollectionAsAggregate(ctx, request, target.String());
  }
  FindArgs find;
  QUARRY_RETURN_IF_ERROR(ParseFind(ctx, request, &find));
  std::optional<exec::Collection> collection = LookupCollectionOrView(ctx, request.db, find.coll);
  QUARRY_ASSIGN_OR_RETURN(std::optional<ResolvedView> view,
                          TakeView(ctx, request.db, find.coll, &collection));
  if (view.has_value()) return FindOnView(ctx, request, *view);
  std::string ns = request.db + "." + find.coll;
  if (!collection.has_value()) {
    return BuildResultsReply(ctx, "firstBatch", query::Batch{}, 0, ns);
  }
  const bool tailable = find.spec.tailable;
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<exec::PlanStage> plan,
                          exec::PlanQuery(ExecContextOf(ctx), *collection, std::move(find.spec)));
  if (tailable) return TailCappedCollection(ctx, find, *collection, std::move(plan));
  auto executor = std::make_unique<exec::PlanExecutor>(std::move(plan));
  cursors::BatchLimits limits = cursors::FirstBatchLimits(find.batch_size);
  QUARRY_ASSIGN_OR_RETURN(query::Batch batch,
                          executor->NextBatch(limits.max_docs, limits.max_bytes));
  std::int64_t cursor_id = 0;
  if (!executor->exhausted() && !find.single_batch) {
    cursors::CursorOptions options = CursorOptionsFor(ctx);
    options.no_cursor_timeout = find.no_cursor_timeout;
    cursor_id = ctx.cursors().Register(ns, std::move(executor), options);
  }
  return BuildResultsReply(ctx, "firstBatch", batch, cursor_id, ns);
}

}  // namespace

Status ExplainFind(CommandContext& ctx, const Request& find_request,
                   exec::ExplainVerbosity verbosity, bson::DocumentBuilder* out) {
  FindArgs find;
  QUARRY_RETURN_IF_ERROR(ParseFind(ctx, find_request, &find));
  if (IsReplicationCollection(ctx.service(), find_request.db, find.coll)) {
    return Status(ErrorCode::kCommandNotSupported,
                  "explain is not supported on " + find_request.db + "." + find.coll);
  }
  const std::string ns = find_request.db + "." + find.coll;
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, find_request.db, find.coll));
  if (!collection.has_value()) return AppendExplainOfNothing(ns, find.filter, verbosity, out);
  exec::ExecContext exec_ctx = ExecContextOf(ctx);
  exec_ctx.for_explain = true;
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<exec::PlanStage> plan,
                          exec::PlanQuery(exec_ctx, *collection, std::move(find.spec)));
  return exec::AppendExplain(*plan,
                             {.ns = ns,
                              .parsed_query = find.filter,
                              .command_stage = {},
                              .collation = SpecOf(find.collator)},
                             verbosity, out);
}

void RegisterFindCommand(CommandRegistry& registry) {
  registry.Add({.name = "find",
                .flags = kAllowedInTransaction,
                .run = RunFind,
                .counter = OpCounter::kQuery,
                .auth = OnNamespace({auth::ActionType::kFind})});
}

}  // namespace quarry::commands
