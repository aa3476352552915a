// aggregate: a pipeline over a collection (or `aggregate: 1` for collection-less stages), run
// lazily behind a client cursor; $out and $merge write through the same commit pipeline as
// the write commands.
#include <memory>
#include <string>

#include "bson/builder.h"
#include "changestream/change_stream_spec.h"
#include "commands/aggregate/aggregate_io.h"
#include "commands/aggregate/change_stream.h"
#include "commands/collection_access.h"
#include "commands/command_context.h"
#include "commands/cursor_reply.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "cursors/batch_limits.h"
#include "cursors/cursor_manager.h"
#include "query/pipeline/pipeline.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {
namespace {

// Stages Quarry does not have yet, named so the error says so instead of "unrecognized".
Status CheckUnsupportedStages(bson::DocumentView stages) {
  for (const bson::Element& e : stages) {
    if (e.value.type() != bson::Type::kDocument) continue;
    std::string_view name = e.value.Document().FirstKey();
    if (name == "$vectorSearch" || name == "$search" || name == "$searchMeta" ||
        name == "$listSearchIndexes") {
      return Status(ErrorCode::kCommandNotSupported,
                    std::string(name) + " is not supported by this version of Quarry yet");
    }
  }
  return Status::OK();
}

std::string_view FirstStageName(bson::DocumentView stages) {
  auto it = stages.begin();
  if (it == stages.end() || it->value.type() != bson::Type::kDocument) return {};
  return it->value.Document().FirstKey();
}

// $listLocalSessions' documents: the sessions clients have used, with the uid mongod gives a
// session without authentication (the SHA-256 of the empty user name).
std::vector<bson::Document> LocalSessions(const ServiceState& state) {
  static const std::string kNoUserUid = [] {
    const char* hex = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    std::string bytes;
    for (int i = 0; i < 64; i += 2) bytes.push_back(static_cast<char>(std::stoi(std::string(hex + i, 2), nullptr, 16)));
    return bytes;
  }();
  std::vector<bson::Document> docs;
  for (const SessionRegistry::Entry& session : state.sessions.List()) {
    bson::DocumentBuilder b;
    b.OpenDocument("_id").AppendBinary("id", 4, session.id).AppendBinary("uid", 0, kNoUserUid).Close();
    b.AppendDate("lastUse", session.last_use_ms);
    docs.push_back(std::move(b).Finish());
  }
  return docs;
}

// countDocuments({}) sends [{$match: {}}, {$group: {_id: 1, n: {$sum: 1}}}] (the $match may be
// absent): the record store keeps exact counts, so this needs no scan.
bool IsCountAllPipeline(bson::DocumentView stages) {
  std::vector<bson::DocumentView> list;
  for (const bson::Element& e : stages) {
    if (e.value.type() != bson::Type::kDocument) return false;
    list.push_back(e.value.Document());
  }
  if (list.size() == 2) {
    bson::ValueView match = list[0].Get("$match");
    if (list[0].CountElements() != 1 || match.type() != bson::Type::kDocument ||
        !match.Document().empty()) {
      return false;
    }
    list.erase(list.begin());
  }
  if (list.size() != 1 || list[0].CountElements() != 1) return false;
  bson::ValueView group = list[0].Get("$group");
  if (group.type() != bson::Type::kDocument || group.Document().CountElements() != 2) return false;
  bson::DocumentView spec = group.Document();
  bson::ValueView id = spec.Get("_id");
  if (!(id.IsNumber() || id.type() == bson::Type::kNull)) return false;
  for (const bson::Element& e : spec) {
    if (e.key == "_id") continue;
    if (e.value.type() != bson::Type::kDocument || e.value.Document().CountElements() != 1) return false;
    bson::ValueView sum = e.value.Document().Get("$sum");
    return sum.IsNumber() && sum.AsDouble() == 1.0;
  }
  return false;
}

// mongosh's db.coll.stats() runs [{$collStats: {storageStats: {}}}]: answered from collStats.
bool IsCollStatsPipeline(bson::DocumentView stages) {
  auto it = stages.begin();
  return it != stages.end() && it->value.type() == bson::Type::kDocument &&
         it->value.Document().FirstKey() == "$collStats";
}

StatusWith<bson::Document> RunAggregate(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  bson::ValueView target = request.body.Get(request.name);
  bson::ValueView pipeline_value = args.Raw("pipeline");
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::DocumentView> cursor, args.MaybeDocument("cursor"));
  QUARRY_ASSIGN_OR_RETURN(bool explain, args.OptionalBool("explain", false));
  QUARRY_ASSIGN_OR_RETURN(bool allow_disk_use, args.OptionalBool("allowDiskUse", false));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView let, args.OptionalDocument("let"));
  args.Ignore({"bypassDocumentValidation", "collation", "hint", "fromMongos",
               "needsMerge", "$_requestReshardingResumeToken", "isMapReduceCommand"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (pipeline_value.type() != bson::Type::kArray) {
    return Status(ErrorCode::kTypeMismatch,
                  "'pipeline' option must be specified as an array");
  }
  if (explain) {
    return Status(ErrorCode::kCommandNotSupported, "aggregate explain is not supported yet");
  }
  if (!cursor.has_value()) {
    return Status(ErrorCode::kFailedToParse,
                  "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  bson::DocumentView stages = pipeline_value.Document();
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
  QUARRY_RETURN_IF_ERROR(CheckUnsupportedStages(stages));
  // $listLocalSessions is a source stage that reads server state: it becomes the input, and the
  // pipeline proper is what follows it.
  bool local_sessions = FirstStageName(stages) == "$listLocalSessions";
  bson::Document rest_of_pipeline;
  if (local_sessions) {
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
    return Status(ErrorCode::kFailedToParse,
                  "Invalid command format: the 'aggregate' field must specify a collection name or 1");
  }
  std::string ns = coll.empty() ? request.db + ".$cmd.aggregate" : request.db + "." + coll;

  auto io = std::make_shared<AggregateIo>(ctx.service(), ctx.write_concern());
  if (!coll.empty() && IsCollStatsPipeline(stages)) {
    QUARRY_ASSIGN_OR_RETURN(query::Batch batch, io->CollStatsBatch(request.db, coll));
    return BuildCursorReply("firstBatch", batch, 0, ns);
  }
  if (!coll.empty() && IsCountAllPipeline(stages)) {
    query::Batch batch;
    std::optional<CollectionHandle> collection = LookupCollection(ctx, request.db, coll);
    std::int64_t count = collection.has_value() ? ctx.engine().records().Count(collection->id) : 0;
    if (count > 0) {  // $group over no documents outputs nothing
      bson::DocumentView group = stages.begin()->value.Document().FirstKey() == "$group"
                                     ? stages.begin()->value.Document().Get("$group").Document()
                                     : (++stages.begin())->value.Document().Get("$group").Document();
      bson::DocumentBuilder b;
      for (const bson::Element& e : group) {
        if (e.key == "_id") {
          b.Append("_id", e.value);
        } else if (count <= 2147483647) {
          b.AppendInt32(e.key, static_cast<std::int32_t>(count));
        } else {
          b.AppendInt64(e.key, count);
        }
      }
      batch.documents.push_back(std::move(b).Finish());
      batch.bytes = batch.documents.back().size();
    }
    return BuildCursorReply("firstBatch", batch, 0, ns);
  }
  query::PipelineContext pipeline_ctx = io->MakePipelineContext(request.db, let, allow_disk_use);
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
    input = query::StreamOfDocuments(LocalSessions(ctx.service()));
  } else if (coll.empty()) {
    input = query::StreamOfDocuments({});
  } else {
    bson::DocumentView leading_match;
    if (!pipeline.stages().empty() && pipeline.stages().front()->name() == "$match" &&
        pipeline.stages().front()->spec().type() == bson::Type::kDocument) {
      leading_match = pipeline.stages().front()->spec().Document();
    }
    input = io->OpenCollection(request.db, coll, leading_match);
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
  if (!source->exhausted()) cursor_id = ctx.cursors().Register(ns, std::move(source));
  return BuildCursorReply("firstBatch", batch, cursor_id, ns);
}

}  // namespace

void RegisterAggregateCommands(CommandRegistry& registry) {
  registry.Add({.name = "aggregate", .run = RunAggregate});
}

}  // namespace quarry::commands
