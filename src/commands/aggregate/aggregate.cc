// aggregate: a pipeline over a collection (or `aggregate: 1` for collection-less stages), run
// lazily behind a client cursor; $out and $merge write through the same commit pipeline as
// the write commands.
#include "commands/aggregate/aggregate.h"

#include <memory>
#include <string>
#include <utility>

#include "base/clock.h"
#include "bson/builder.h"
#include "changestream/change_stream_spec.h"
#include "collation/collator.h"
#include "commands/aggregate/aggregate_io.h"
#include "commands/aggregate/change_stream.h"
#include "commands/aggregate/coll_stats_stage.h"
#include "commands/aggregate/index_stats.h"
#include "commands/aggregate/plan_cache_stats.h"
#include "commands/aggregate/session_lists.h"
#include "commands/auth/authorizer.h"
#include "commands/collation_default.h"
#include "commands/command_context.h"
#include "commands/cursor_reply.h"
#include "commands/diagnostics/current_op_report.h"
#include "commands/execution.h"
#include "commands/explain/explainers.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "commands/search/search_indexes.h"
#include "commands/views/view_reads.h"
#include "commands/views/view_resolution.h"
#include "cursors/batch_limits.h"
#include "cursors/cursor_manager.h"
#include "exec/count_all.h"
#include "exec/pipeline_input.h"
#include "exec/planner.h"
#include "exec/storage_stats.h"
#include "query/pipeline/pipeline.h"

namespace quarry::commands {
namespace {

std::string_view FirstStageName(bson::DocumentView stages) {
  auto it = stages.begin();
  if (it == stages.end() || it->value.type() != bson::Type::kDocument) return {};
  return it->value.Document().FirstKey();
}

// $currentOp, $indexStats, $collStats, $planCacheStats, the session lists and the search stages
// read server state, so they must come first (mongod's 40602).
Status CheckSourceStagePositions(bson::DocumentView stages) {
  bool first = true;
  for (const bson::Element& e : stages) {
    if (std::exchange(first, false) || e.value.type() != bson::Type::kDocument) continue;
    std::string_view name = e.value.Document().FirstKey();
    if (name == "$currentOp" || name == "$indexStats" || name == "$collStats" ||
        name == "$planCacheStats" || name == "$vectorSearch" || name == "$search" ||
        name == "$searchMeta" || name == "$listSearchIndexes" || name == "$listSessions" ||
        name == "$listLocalSessions") {
      return Status(static_cast<ErrorCode>(40602),
                    std::string(name) + " is only valid as the first stage in a pipeline");
    }
  }
  return Status::OK();
}

StatusWith<bson::Document> RunAggregateAs(CommandContext& ctx, const Request& request,
                                          std::string_view cursor_ns);

// mongod's rewrite of an aggregate on a view: the chain's stages in front of the request's, run
// over the source collection under the view's collation; the cursor carries the view's name.
StatusWith<bson::Document> AggregateOverView(CommandContext& ctx, const Request& request,
                                             const ResolvedView& view, bool explain) {
  QUARRY_RETURN_IF_ERROR(CheckPipelineReadsView(view, request.body.Get("pipeline").Document()));
  QUARRY_ASSIGN_OR_RETURN(const bson::Document rewritten, AggregateOverSource(request, view));
  Request over_source = request;
  over_source.name = "aggregate";
  over_source.body = rewritten.view();
  over_source.fields = nullptr;
  if (explain) return ExplainReply(ctx, over_source, exec::ExplainVerbosity::kQueryPlanner);
  return RunAggregateAs(ctx, over_source, view.ns());
}

// `cursor_ns`: the namespace the reply and cursor carry when it is not the request's own (a
// view's, for an aggregate rewritten over its source).
StatusWith<bson::Document> RunAggregateAs(CommandContext& ctx, const Request& request,
                                          std::string_view cursor_ns) {
  RequestParser args(request);
  bson::ValueView target = request.body.Get(request.name);
  bson::ValueView pipeline_value = args.Raw("pipeline");
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::DocumentView> cursor, args.MaybeDocument("cursor"));
  QUARRY_ASSIGN_OR_RETURN(bool explain, args.OptionalBool("explain", false));
  QUARRY_ASSIGN_OR_RETURN(bool allow_disk_use, args.OptionalBool("allowDiskUse", false));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView let, args.OptionalDocument("let"));
  bson::ValueView collation = args.Raw("collation");
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collator,
                          collation::Collator::ParseArgument(collation, ""));
  bson::ValueView hint = args.Raw("hint");
  QUARRY_ASSIGN_OR_RETURN(bool bypass_validation,
                          args.OptionalBool("bypassDocumentValidation", false));
  args.Ignore({"fromMongos", "needsMerge", "$_requestReshardingResumeToken", "isMapReduceCommand"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (pipeline_value.type() != bson::Type::kArray) {
    return Status(ErrorCode::kTypeMismatch, "'pipeline' option must be specified as an array");
  }
  std::optional<exec::Collection> collection;  // looked up once, read below
  if (target.type() == bson::Type::kString) {
    collection = LookupCollectionOrView(ctx, request.db, target.String());
    QUARRY_ASSIGN_OR_RETURN(std::optional<ResolvedView> view,
                            TakeView(ctx, request.db, target.String(), &collection));
    if (view.has_value()) {
      // A rewritten aggregate names the view's source, a collection unless replaced since.
      if (!cursor_ns.empty()) return NotSupportedOnView(request.db, target.String());
      return AggregateOverView(ctx, request, *view, explain);
    }
  }
  if (explain) return ExplainReply(ctx, request, exec::ExplainVerbosity::kQueryPlanner);
  if (!cursor.has_value()) {
    return Status(
        ErrorCode::kFailedToParse,
        "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  bson::DocumentView stages = pipeline_value.Document();
  const bson::DocumentView stages_as_sent = stages;
  QUARRY_ASSIGN_OR_RETURN(bool change_stream, changestream::IsChangeStreamPipeline(stages));
  if (change_stream) {
    std::optional<std::string> stream_coll;
    if (target.type() == bson::Type::kString) stream_coll = std::string(target.String());
    std::optional<std::int64_t> stream_batch;
    if (cursor->Get("batchSize").IsNumber()) stream_batch = cursor->Get("batchSize").AsInt64();
    StatusWith<bson::Document> opened =
        RunChangeStreamAggregate(ctx, request, stream_coll, stages, let, stream_batch);
    if (!opened.ok()) return LabelChangeStreamError(opened.status());
    return opened;
  }
  QUARRY_RETURN_IF_ERROR(CheckSourceStagePositions(stages));
  // $listLocalSessions and $currentOp are source stages that read server state: each becomes the
  // input, and the pipeline proper is what follows it.
  // $listSessions reads config.system.sessions, which mongod fills from its sessions every few
  // minutes; one server has only its own, so both list the server's sessions as they are now.
  const std::string_view sessions_stage = FirstStageName(stages);
  const bool local_sessions =
      sessions_stage == "$listLocalSessions" || sessions_stage == "$listSessions";
  if (sessions_stage == "$listSessions" &&
      (request.db != "config" || target.type() != bson::Type::kString ||
       target.String() != "system.sessions")) {
    return Status(ErrorCode::kInvalidNamespace,
                  "$listSessions may only be run against config.system.sessions");
  }
  const bool index_stats = FirstStageName(stages) == "$indexStats";
  const bool coll_stats = FirstStageName(stages) == "$collStats";
  const bool plan_cache_stats = FirstStageName(stages) == "$planCacheStats";
  const bool list_search_indexes = FirstStageName(stages) == "$listSearchIndexes";
  const bool vector_search = FirstStageName(stages) == "$vectorSearch";
  const bool full_text_search = FirstStageName(stages) == "$search";
  const bool search_meta = FirstStageName(stages) == "$searchMeta";
  const bool collection_source = index_stats || coll_stats || plan_cache_stats ||
                                 list_search_indexes || vector_search || full_text_search ||
                                 search_meta;
  if (collection_source && target.type() != bson::Type::kString) {
    return Status(ErrorCode::kInvalidNamespace, std::string(FirstStageName(stages)) +
                                                    " must be run against a collection, not "
                                                    "with {aggregate: 1}");
  }
  bson::ValueView source_argument;  // the collection source stage's
  if (collection_source) {
    source_argument = stages.begin()->value.Document().Get(FirstStageName(stages));
  }
  std::optional<CurrentOpOptions> current_op;
  if (FirstStageName(stages) == "$currentOp") {
    if (request.db != "admin" || !target.IsNumber() || target.AsDouble() != 1) {
      return Status(ErrorCode::kInvalidNamespace,
                    "$currentOp must be run against the 'admin' database with {aggregate: 1}");
    }
    QUARRY_ASSIGN_OR_RETURN(
        current_op, ParseCurrentOpStage(stages.begin()->value.Document().Get("$currentOp")));
    if (ctx.service().config.auth_enabled && !current_op->all_users) {
      current_op->only_user = ctx.connection().auth.Name();
    }
  }
  bson::Document rest_of_pipeline;
  if (local_sessions || current_op.has_value() || collection_source) {
    bson::ArrayBuilder rest;
    bool first = true;
    for (const bson::Element& e : stages) {
      if (!first) rest.Append(e.value);
      first = false;
    }
    rest_of_pipeline = std::move(rest).Finish();
    stages = rest_of_pipeline.view();
  }

  std::string coll;
  if (target.type() == bson::Type::kString) {
    coll = std::string(target.String());
  } else if (!(target.IsNumber() && target.AsDouble() == 1)) {
    return Status(
        ErrorCode::kFailedToParse,
        "Invalid command format: the 'aggregate' field must specify a collection name or 1");
  }
  std::string ns = !cursor_ns.empty() ? std::string(cursor_ns)
                   : coll.empty()     ? request.db + ".$cmd.aggregate"
                                      : request.db + "." + coll;

  // After a source stage, the rest of the pipeline reads its documents, not the collection.
  const bool reads_collection = !local_sessions && !current_op.has_value() && !collection_source;
  exec::ResolvedHint resolved_hint;
  if (collection.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(resolved_hint, exec::ResolveHint(*collection, hint));
  }
  const bool replication_collection =
      reads_collection && IsReplicationCollection(ctx.service(), request.db, coll);
  const bool profile_collection = reads_collection && IsProfileCollection(coll);
  if (!coll.empty() && reads_collection && !replication_collection && !profile_collection) {
    if (std::optional<std::vector<bson::Document>> counted =
            exec::CountAllPipeline(ExecContextOf(ctx), collection, stages)) {
      query::Batch batch;
      for (bson::Document& doc : *counted) {
        batch.bytes += doc.size();
        batch.documents.push_back(std::move(doc));
      }
      return BuildResultsReply(ctx, "firstBatch", batch, 0, ns);
    }
  }
  if (!NamesCollation(collation) && reads_collection) {
    QUARRY_ASSIGN_OR_RETURN(collator, CollectionDefaultCollator(ctx, request.db, coll));
  }
  auto io = std::make_shared<AggregateIo>(ctx, bypass_validation);
  query::PipelineContext pipeline_ctx = io->MakePipelineContext(request.db, let, allow_disk_use);
  pipeline_ctx.collator = std::move(collator);
  if (full_text_search && query::NamesSearchMeta(stages)) {
    QUARRY_ASSIGN_OR_RETURN(
        pipeline_ctx.search_meta,
        SearchMetaOfSearch(SearchContextOf(ctx), request.db, coll, source_argument));
  }
  QUARRY_ASSIGN_OR_RETURN(query::Pipeline pipeline,
                          query::Pipeline::Parse(stages, std::move(pipeline_ctx)));

  if (pipeline.writes_output()) {
    bson::ValueView read_concern = request.body.Get("readConcern");
    if (read_concern.type() == bson::Type::kDocument &&
        read_concern.Document().Get("level").type() == bson::Type::kString &&
        read_concern.Document().Get("level").String() == "linearizable") {
      return Status(ErrorCode::kInvalidOptions,
                    "$out and $merge cannot be used with a 'linearizable' read concern level");
    }
  }
  std::unique_ptr<query::DocumentStream> input;
  if (local_sessions) {
    QUARRY_ASSIGN_OR_RETURN(
        std::vector<bson::Document> docs,
        SessionListDocuments(ctx, sessions_stage,
                             stages_as_sent.begin()->value.Document().Get(sessions_stage)));
    input = query::StreamOfDocuments(std::move(docs));
  } else if (current_op.has_value()) {
    input = query::StreamOfDocuments(CurrentOpDocuments(ctx.service(), *current_op));
  } else if (index_stats) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> docs,
                            IndexStatsDocuments(ctx, request.db, coll, source_argument));
    input = query::StreamOfDocuments(std::move(docs));
  } else if (coll_stats) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> docs,
                            CollStatsDocuments(ctx, request.db, coll, source_argument));
    input = query::StreamOfDocuments(std::move(docs));
  } else if (plan_cache_stats) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> docs,
                            PlanCacheStatsDocuments(ctx, request.db, coll, source_argument));
    input = query::StreamOfDocuments(std::move(docs));
  } else if (list_search_indexes) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> docs,
                            ListSearchIndexesDocuments(ctx, request.db, coll, source_argument));
    input = query::StreamOfDocuments(std::move(docs));
  } else if (vector_search) {
    const VectorSearchOutput output = IdsAreEnough(rest_of_pipeline.view())
                                          ? VectorSearchOutput::kIdsOnly
                                          : VectorSearchOutput::kDocuments;
    QUARRY_ASSIGN_OR_RETURN(input, VectorSearchDocuments(SearchContextOf(ctx), request.db, coll,
                                                         source_argument, output));
  } else if (search_meta) {
    QUARRY_ASSIGN_OR_RETURN(
        bson::Document meta,
        SearchMetaDocument(SearchContextOf(ctx), request.db, coll, source_argument));
    std::vector<bson::Document> docs;
    docs.push_back(std::move(meta));
    input = query::StreamOfDocuments(std::move(docs));
  } else if (full_text_search) {
    QUARRY_ASSIGN_OR_RETURN(
        input, FullTextSearchDocuments(SearchContextOf(ctx), request.db, coll, source_argument));
  } else if (replication_collection) {
    input = ReplicationCollectionStream(ctx, coll);
  } else if (profile_collection) {
    input = ProfileCollectionStream(request.db);
  } else if (!collection.has_value()) {  // `aggregate: 1`, or a collection that does not exist
    input = query::StreamOfDocuments({});
  } else {
    QUARRY_ASSIGN_OR_RETURN(
        input, exec::OpenPipelineInput(ExecContextOf(ctx), *collection, &pipeline, resolved_hint));
  }
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<query::DocumentStream> output,
                          pipeline.Run(std::move(input)));
  std::unique_ptr<query::CursorSource> source = query::CursorOverStream(std::move(output));

  std::optional<std::int64_t> batch_size;
  bson::ValueView requested = cursor->Get("batchSize");
  if (requested.IsNumber()) {
    if (requested.AsInt64() < 0) {
      return Status(ErrorCode::kBadValue, "Cursor batchSize must not be negative");
    }
    batch_size = requested.AsInt64();
  }
  cursors::BatchLimits limits = cursors::FirstBatchLimits(batch_size);
  QUARRY_ASSIGN_OR_RETURN(query::Batch batch, source->NextBatch(limits.max_docs, limits.max_bytes));
  std::int64_t cursor_id = 0;
  if (!source->exhausted()) {
    cursor_id = ctx.cursors().Register(ns, std::move(source), CursorOptionsFor(ctx));
  }
  return BuildResultsReply(ctx, "firstBatch", batch, cursor_id, ns);
}

}  // namespace

StatusWith<bson::Document> RunAggregate(CommandContext& ctx, const Request& request) {
  return RunAggregateAs(ctx, request, {});
}

void RegisterAggregateCommands(CommandRegistry& registry) {
  registry.Add({.name = "aggregate",
                .flags = kAllowedInTransaction,
                .run = RunAggregate,
                .latency = LatencyClass::kRead,
                .auth = Custom(AuthorizeAggregate)});
}

}  // namespace quarry::commands
