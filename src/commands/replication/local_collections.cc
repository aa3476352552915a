// find, aggregate input, listCollections entries and statistics of local.oplog.rs,
// local.system.replset and each database's system.profile.
#include "commands/replication/local_collections.h"

#include <algorithm>
#include <string>

#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/cursor_reply.h"
#include "commands/diagnostics/profiler.h"
#include "commands/execution.h"
#include "commands/replication/oplog_view.h"
#include "commands/replication/replica_set.h"
#include "commands/request_parser.h"
#include "cursors/batch_limits.h"
#include "cursors/cursor_manager.h"
#include "storage/engine.h"
#include "storage/oplog.h"

namespace quarry::commands {
namespace {

constexpr std::string_view kLocal = "local";
constexpr std::string_view kOplog = "oplog.rs";
constexpr std::string_view kReplSet = "system.replset";
constexpr std::string_view kProfile = "system.profile";

// The find options these collections do not implement: refused, never ignored.
constexpr std::string_view kUnsupportedFindOptions[] = {
    "collation", "let", "min", "max", "returnKey", "showRecordId", "allowPartialResults"};

// A find's parsed arguments, for a collection served from the server's state.
struct LocalFind {
  OplogReadSpec spec;
  std::optional<std::int64_t> batch_size;
  bool single_batch = false;
  bool await_data = false;
  bool no_cursor_timeout = false;
};

// {$natural: 1} or {$natural: -1} (or none): true for backward.
StatusWith<bool> NaturalOrder(bson::DocumentView sort, std::string_view field) {
  bool backward = false;
  for (const bson::Element& e : sort) {
    if (e.key != "$natural" || !e.value.IsNumber() ||
        (e.value.AsDouble() != 1 && e.value.AsDouble() != -1)) {
      return Status(ErrorCode::kCommandNotSupported,
                    "local.oplog.rs, local.system.replset and system.profile are read in their "
                    "natural order only: '" +
                        std::string(field) + "' must be {$natural: 1} or {$natural: -1}");
    }
    backward = e.value.AsDouble() < 0;
  }
  return backward;
}

StatusWith<LocalFind> ParseLocalFind(const Request& request) {
  RequestParser args(request);
  LocalFind find;
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  (void)coll;
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView filter, args.OptionalDocument("filter"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView sort, args.OptionalDocument("sort"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView projection, args.OptionalDocument("projection"));
  QUARRY_ASSIGN_OR_RETURN(find.spec.skip, args.OptionalNonNegative("skip", 0));
  QUARRY_ASSIGN_OR_RETURN(find.spec.limit, args.OptionalNonNegative("limit", 0));
  bson::ValueView batch_size_value = args.Raw("batchSize");
  QUARRY_ASSIGN_OR_RETURN(std::int64_t batch_size, args.OptionalNonNegative("batchSize", 0));
  if (batch_size_value.IsNumber()) find.batch_size = batch_size;
  QUARRY_ASSIGN_OR_RETURN(find.single_batch, args.OptionalBool("singleBatch", false));
  QUARRY_ASSIGN_OR_RETURN(find.spec.tailable, args.OptionalBool("tailable", false));
  QUARRY_ASSIGN_OR_RETURN(find.await_data, args.OptionalBool("awaitData", false));
  QUARRY_ASSIGN_OR_RETURN(find.no_cursor_timeout, args.OptionalBool("noCursorTimeout", false));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView hint, args.OptionalDocument("hint"));
  // oplogReplay is deprecated and a no-op in mongod 4.4 and later; the ts bounds are always used.
  args.Ignore({"oplogReplay", "readOnce", "allowDiskUse", "$_requestResumeToken"});
  for (std::string_view option : kUnsupportedFindOptions) {
    if (request.body.Get(option).exists()) {
      return Status(ErrorCode::kCommandNotSupported,
                    "find option '" + std::string(option) +
                        "' is not supported on local.oplog.rs, local.system.replset or "
                        "system.profile");
    }
  }
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (find.await_data && !find.spec.tailable) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot set 'awaitData' without also setting 'tailable'");
  }
  QUARRY_ASSIGN_OR_RETURN(find.spec.backward, NaturalOrder(sort, "sort"));
  QUARRY_ASSIGN_OR_RETURN(bool hinted_backward, NaturalOrder(hint, "hint"));
  if (sort.empty()) find.spec.backward = hinted_backward;
  if (find.spec.tailable && find.spec.backward) {
    return Status(ErrorCode::kBadValue,
                  "cannot use tailable option with a sort other than {$natural: 1}");
  }
  if (find.spec.tailable && find.single_batch) {
    return Status(ErrorCode::kBadValue, "cannot use tailable option with the 'singleBatch' option");
  }
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter));
  find.spec.filter = std::move(matcher);
  if (!projection.empty()) {
    QUARRY_ASSIGN_OR_RETURN(query::Projection parsed,
                            query::Projection::Parse(projection, &*find.spec.filter));
    find.spec.projection = std::move(parsed);
  }
  BoundTimestamps(*find.spec.filter, &find.spec);
  return find;
}

// Documents held in memory through the find's filter, order, skip, limit and projection.
StatusWith<std::vector<bson::Document>> ApplyFind(std::vector<bson::Document> docs,
                                                  const OplogReadSpec& spec) {
  if (spec.backward) std::reverse(docs.begin(), docs.end());
  std::vector<bson::Document> found;
  std::int64_t skipped = 0;
  for (bson::Document& doc : docs) {
    query::MatchDetails details;
    if (spec.filter.has_value() && !spec.filter->Matches(doc, &details)) continue;
    if (skipped < spec.skip) {
      ++skipped;
      continue;
    }
    if (spec.projection.has_value()) {
      QUARRY_ASSIGN_OR_RETURN(doc, spec.projection->Apply(doc, &details));
    }
    found.push_back(std::move(doc));
    if (spec.limit > 0 && static_cast<std::int64_t>(found.size()) >= spec.limit) break;
  }
  return found;
}

// The reply to a find over documents held in memory, with a cursor for what the first batch
// leaves.
StatusWith<bson::Document> ReplyFromDocuments(CommandContext& ctx, const LocalFind& find,
                                              std::vector<bson::Document> docs,
                                              const std::string& ns) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> found, ApplyFind(std::move(docs), find.spec));
  std::unique_ptr<query::CursorSource> source =
      query::CursorOverStream(query::StreamOfDocuments(std::move(found)));
  cursors::BatchLimits limits = cursors::FirstBatchLimits(find.batch_size);
  QUARRY_ASSIGN_OR_RETURN(query::Batch batch, source->NextBatch(limits.max_docs, limits.max_bytes));
  std::int64_t cursor_id = 0;
  if (!source->exhausted() && !find.single_batch) {
    cursor_id = ctx.cursors().Register(ns, std::move(source), CursorOptionsFor(ctx));
  }
  return BuildResultsReply(ctx, "firstBatch", batch, cursor_id, ns);
}

// The oplog as an aggregation's input: every entry, oldest first, read in bounded batches.
class OplogStream final : public query::DocumentStream {
 public:
  explicit OplogStream(storage::Oplog* oplog) : source_(oplog, OplogReadSpec{}) {}

  StatusWith<bool> Next(bson::Document* out) override {
    if (next_ == batch_.documents.size()) {
      if (source_.exhausted()) return false;
      QUARRY_ASSIGN_OR_RETURN(batch_, source_.NextBatch(1000, 16 * 1024 * 1024));
      next_ = 0;
      if (batch_.documents.empty()) return false;
    }
    *out = std::move(batch_.documents[next_++]);
    return true;
  }

 private:
  OplogSource source_;
  query::Batch batch_;
  std::size_t next_ = 0;
};

}  // namespace

bool IsOplogCollection(const ServiceState& service, std::string_view db, std::string_view coll) {
  return !service.config.repl_set.empty() && db == kLocal && coll == kOplog;
}

bool IsReplicationCollection(const ServiceState& service, std::string_view db,
                             std::string_view coll) {
  return !service.config.repl_set.empty() && db == kLocal && (coll == kOplog || coll == kReplSet);
}

Status CheckUserWrite(const ServiceState& service, std::string_view db, std::string_view coll) {
  if (!IsReplicationCollection(service, db, coll)) return Status::OK();
  return Status(ErrorCode::kInvalidNamespace,
                "cannot write to " + std::string(db) + "." + std::string(coll));
}

Status CheckDrop(const ServiceState& service, std::string_view db, std::string_view coll) {
  if (IsOplogCollection(service, db, coll)) {
    return Status(ErrorCode::kIllegalOperation, "can't drop live oplog while replicating");
  }
  if (IsReplicationCollection(service, db, coll)) {
    return Status(ErrorCode::kIllegalOperation, "can't drop " + std::string(db) + "." +
                                                    std::string(coll) +
                                                    ": it holds the replica set's configuration");
  }
  return Status::OK();
}

Status CheckReadableBy(const ServiceState& service, std::string_view command, std::string_view db,
                       std::string_view coll) {
  if (!IsReplicationCollection(service, db, coll) && coll != kProfile) return Status::OK();
  return Status(ErrorCode::kCommandNotSupported, std::string(command) + " is not supported on " +
                                                     std::string(db) + "." + std::string(coll) +
                                                     ": read it with find or aggregate");
}

StatusWith<bson::Document> FindReplicationCollection(CommandContext& ctx, const Request& request,
                                                     std::string_view coll) {
  QUARRY_ASSIGN_OR_RETURN(LocalFind find, ParseLocalFind(request));
  const std::string ns = std::string(kLocal) + "." + std::string(coll);
  if (coll == kReplSet) {
    if (find.spec.tailable) {
      return Status(ErrorCode::kBadValue, "error processing query: ns=" + ns +
                                              " tailable cursor requested on non capped "
                                              "collection");
    }
    std::vector<bson::Document> docs;
    docs.push_back(ReplicaSetConfig(ctx.service()));
    return ReplyFromDocuments(ctx, find, std::move(docs), ns);
  }
  auto source = std::make_unique<OplogSource>(&ctx.engine().oplog(), std::move(find.spec));
  cursors::BatchLimits limits = cursors::FirstBatchLimits(find.batch_size);
  QUARRY_ASSIGN_OR_RETURN(query::Batch batch, source->NextBatch(limits.max_docs, limits.max_bytes));
  std::int64_t cursor_id = 0;
  if (!source->exhausted() && !find.single_batch) {
    cursors::CursorOptions options = CursorOptionsFor(ctx);
    options.no_cursor_timeout = find.no_cursor_timeout;
    options.tailable = source->tailable();
    options.await_data = find.await_data;
    cursor_id = ctx.cursors().Register(ns, std::move(source), options);
  }
  return BuildResultsReply(ctx, "firstBatch", batch, cursor_id, ns);
}

bool IsProfileCollection(std::string_view coll) { return coll == kProfile; }

StatusWith<bson::Document> FindProfileCollection(CommandContext& ctx, const Request& request) {
  QUARRY_ASSIGN_OR_RETURN(LocalFind find, ParseLocalFind(request));
  if (find.spec.tailable) {
    return Status(ErrorCode::kCommandNotSupported,
                  "tailable cursors on system.profile are not supported");
  }
  return ReplyFromDocuments(ctx, find, GlobalProfiler().Entries(request.db),
                            request.db + "." + std::string(kProfile));
}

std::unique_ptr<query::DocumentStream> ProfileCollectionStream(std::string_view db) {
  return query::StreamOfDocuments(GlobalProfiler().Entries(db));
}

std::optional<bson::Document> ProfileCollectionEntry(std::string_view db, bool name_only) {
  if (!GlobalProfiler().HasCollection(db)) return std::nullopt;
  bson::DocumentBuilder b;
  b.AppendString("name", kProfile);
  b.AppendString("type", "collection");
  if (!name_only) {
    b.OpenDocument("options")
        .AppendBool("capped", true)
        .AppendInt64("size", static_cast<std::int64_t>(kProfileCollectionBytes))
        .Close();
    b.OpenDocument("info").AppendBool("readOnly", true).Close();
  }
  return std::move(b).Finish();
}

std::unique_ptr<query::DocumentStream> ReplicationCollectionStream(CommandContext& ctx,
                                                                   std::string_view coll) {
  if (coll == kReplSet) {
    std::vector<bson::Document> docs;
    docs.push_back(ReplicaSetConfig(ctx.service()));
    return query::StreamOfDocuments(std::move(docs));
  }
  return std::make_unique<OplogStream>(&ctx.engine().oplog());
}

std::vector<bson::Document> ReplicationCollectionEntries(const ServiceState& service,
                                                         bool name_only) {
  std::vector<bson::Document> entries;
  if (service.config.repl_set.empty()) return entries;
  for (std::string_view name : {kOplog, kReplSet}) {
    bson::DocumentBuilder b;
    b.AppendString("name", name);
    b.AppendString("type", "collection");
    if (!name_only) {
      b.OpenDocument("options");
      if (name == kOplog) {
        b.AppendBool("capped", true);
        if (service.oplog_max_bytes > 0) {
          b.AppendInt64("size", static_cast<std::int64_t>(service.oplog_max_bytes));
        }
      }
      b.Close();
      b.OpenDocument("info").AppendBool("readOnly", true).Close();
      if (name == kReplSet) {
        b.OpenDocument("idIndex")
            .AppendInt32("v", 2)
            .OpenDocument("key")
            .AppendInt32("_id", 1)
            .Close()
            .AppendString("name", "_id_")
            .Close();
      }
    }
    entries.push_back(std::move(b).Finish());
  }
  return entries;
}

bson::Document ReplicationCollectionStats(CommandContext& ctx, std::string_view coll,
                                          double scale) {
  const bool oplog = coll == kOplog;
  std::int64_t size = 0;
  std::int64_t count = 1;
  if (oplog) {
    const ServiceState& service = ctx.service();
    size = service.oplog_bytes ? static_cast<std::int64_t>(service.oplog_bytes()) : 0;
    count = service.oplog_entries ? static_cast<std::int64_t>(service.oplog_entries()) : 0;
  } else {
    size = static_cast<std::int64_t>(ReplicaSetConfig(ctx.service()).size());
  }
  bson::DocumentBuilder b;
  b.AppendString("ns", std::string(kLocal) + "." + std::string(coll));
  b.AppendDouble("size", static_cast<double>(size) / scale);
  b.AppendInt64("count", count);
  b.AppendDouble("storageSize", static_cast<double>(size) / scale);
  b.AppendInt32("nindexes", oplog ? 0 : 1);
  b.AppendDouble("totalIndexSize", 0);
  b.AppendDouble("totalSize", static_cast<double>(size) / scale);
  b.OpenDocument("indexSizes").Close();
  b.AppendBool("capped", oplog);
  if (oplog && ctx.service().oplog_max_bytes > 0) {
    b.AppendInt64("max", 0);
    b.AppendDouble("maxSize", static_cast<double>(ctx.service().oplog_max_bytes) / scale);
  }
  b.AppendDouble("scaleFactor", scale);
  return std::move(b).Finish();
}

}  // namespace quarry::commands
