// delete: each statement removes the first (limit 1) or every (limit 0) matching document.
// Deletes name the pre-image they read; if a concurrent write changed it, the statement reads
// again rather than deleting a document that no longer matches.
#include <string>
#include <vector>

#include "bson/builder.h"
#include "commands/collection_access.h"
#include "commands/command_context.h"
#include "commands/crud/id_batch.h"
#include "commands/crud/matching.h"
#include "commands/crud/statement_fields.h"
#include "commands/crud/write_errors.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "query/id_lookup.h"
#include "storage/record_store.h"
#include "storage/engine.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

constexpr int kMaxConflictRetries = 100;
constexpr std::size_t kDeletesPerCommit = 1000;

struct DeleteStatement {
  query::Matcher matcher;
  bool just_one = false;
};

StatusWith<DeleteStatement> ParseStatement(bson::DocumentView statement, bson::DocumentView let) {
  bson::ValueView q = statement.Get("q");
  if (q.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'delete.deletes.q' is the wrong type '" +
                                                std::string(bson::TypeAlias(q.type())) +
                                                "', expected type 'object'");
  }
  bson::ValueView limit = statement.Get("limit");
  if (!limit.IsNumber() || (limit.AsDouble() != 0 && limit.AsDouble() != 1)) {
    return Status(ErrorCode::kFailedToParse, "The limit field in delete objects must be 0 or 1. Got " +
                                                 limit.ToJson());
  }
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(q.Document(), let));
  return DeleteStatement{std::move(matcher), limit.AsDouble() == 1};
}

// Deletes every match in one pass: commits every kDeletesPerCommit documents as the scan goes
// on (its iterator reads a snapshot, so what was deleted does not disturb it), then re-reads
// and re-checks the documents that changed after they were read. Restarting the scan after
// each commit instead would walk over every earlier tombstone again.
StatusWith<std::int64_t> DeleteMany(CommandContext& ctx, const CollectionHandle& collection,
                                    const DeleteStatement& statement) {
  std::int64_t deleted = 0;
  storage::WriteUnit unit;
  std::vector<bson::Document> ids;
  std::vector<bson::Document> conflicts;
  auto flush = [&]() -> Status {
    const auto queued = static_cast<std::int64_t>(unit.size());
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> more,
                            CommitNotingConflicts(ctx, std::move(unit), std::move(ids)));
    deleted += queued - static_cast<std::int64_t>(more.size());
    for (bson::Document& id : more) conflicts.push_back(std::move(id));
    unit = storage::WriteUnit();
    ids.clear();
    return Status::OK();
  };
  auto queue = [&](bson::DocumentView doc) {
    unit.Delete(collection.ref(), doc);
    ids.push_back(IdDocument(doc.Get("_id")));
  };
  Status flushed;
  QUARRY_RETURN_IF_ERROR(ForEachMatch(ctx, collection, statement.matcher,
                                      [&](bson::DocumentView doc, const query::MatchDetails&) {
                                        queue(doc);
                                        if (unit.size() >= kDeletesPerCommit) flushed = flush();
                                        return flushed.ok();
                                      }));
  QUARRY_RETURN_IF_ERROR(flushed);
  QUARRY_RETURN_IF_ERROR(flush());
  for (int attempt = 0; !conflicts.empty(); ++attempt) {
    if (attempt == kMaxConflictRetries) {
      return Status(ErrorCode::kWriteConflict, "delete gave up after repeated write conflicts");
    }
    std::vector<bson::Document> retry = std::move(conflicts);
    conflicts.clear();
    for (const bson::Document& id : retry) {
      QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> current,
                              ReadById(ctx, collection, id.Get("_id")));
      query::MatchDetails details;
      if (current.has_value() && statement.matcher.Matches(*current, &details)) queue(*current);
    }
    QUARRY_RETURN_IF_ERROR(flush());
  }
  return deleted;
}

// Deletes what the statement matches; returns the number deleted.
StatusWith<std::int64_t> ExecuteDelete(CommandContext& ctx, const CollectionHandle& collection,
                                       const DeleteStatement& statement) {
  if (!statement.just_one) return DeleteMany(ctx, collection, statement);
  // One document: the first match. If it changed before the delete committed, look again (it
  // may no longer match, and another document may).
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    storage::WriteUnit unit;
    std::vector<bson::Document> ids;
    QUARRY_RETURN_IF_ERROR(ForEachMatch(ctx, collection, statement.matcher,
                                        [&](bson::DocumentView doc, const query::MatchDetails&) {
                                          unit.Delete(collection.ref(), doc);
                                          ids.push_back(IdDocument(doc.Get("_id")));
                                          return false;
                                        }));
    if (unit.empty()) return 0;
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> conflicts,
                            CommitNotingConflicts(ctx, std::move(unit), std::move(ids)));
    if (conflicts.empty()) return 1;
  }
  return Status(ErrorCode::kWriteConflict, "delete gave up after repeated write conflicts");
}

StatusWith<bson::Document> RunDelete(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  args.Raw("deletes");
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::DocumentView> statements, request.Documents("deletes"));
  QUARRY_ASSIGN_OR_RETURN(bool ordered, args.OptionalBool("ordered", true));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView let, args.OptionalDocument("let"));
  args.Ignore({"bypassDocumentValidation"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(CheckBatchSize(statements.size()));
  QUARRY_RETURN_IF_ERROR(CheckStatementFields({.path = "delete.deletes",
                                               .required = {"q", "limit"},
                                               .optional = {"hint", "collation"}},
                                              statements));

  std::optional<CollectionHandle> collection = LookupCollection(ctx, request.db, coll);
  std::int64_t n = 0;
  std::vector<WriteError> errors;
  // Reports one statement's outcome; false stops an ordered command at its first error.
  auto report = [&](std::size_t i, StatusWith<std::int64_t> deleted) -> bool {
    if (!deleted.ok()) {
      errors.push_back({i, deleted.status()});
      return !ordered;
    }
    n += deleted.value();
    return true;
  };
  // deleteOne({_id: ...}) statements share commits (id_batch.h); anything else runs alone,
  // after what is queued has been committed and reported.
  IdBatch<DeleteStatement, std::int64_t> batch(
      ctx, ordered, [&](const DeleteStatement& statement) {
        return ExecuteDelete(ctx, *collection, statement);
      });
  bool stop = false;
  auto flush = [&] { return batch.Flush(report, &stop); };
  for (std::size_t i = 0; i < statements.size() && !stop; ++i) {
    StatusWith<DeleteStatement> statement = ParseStatement(statements[i], let);
    if (!collection.has_value()) {  // nothing to delete; a malformed statement still fails
      if (!report(i, statement.ok() ? StatusWith<std::int64_t>(0) : statement.status())) break;
      continue;
    }
    std::optional<bson::ValueView> id;
    if (statement.ok() && statement.value().just_one) {
      id = query::IdEqualityValue(statements[i].Get("q").Document());
    }
    if (id.has_value()) {
      std::string key = storage::EncodeIdKey(*id);
      if (batch.Changes(key)) {
        QUARRY_RETURN_IF_ERROR(flush());
        if (stop) break;
      }
      StatusWith<std::optional<bson::Document>> doc =
          ctx.engine().records().FindByIdKey(collection->id, key);
      if (doc.ok()) {
        query::MatchDetails details;
        std::optional<std::size_t> mutation;
        if (doc.value().has_value() && statement.value().matcher.Matches(*doc.value(), &details)) {
          mutation = batch.unit().Delete(collection->ref(), *doc.value());
        }
        const std::int64_t deleted = mutation.has_value() ? 1 : 0;
        batch.Queue(i, std::move(statement).value(), deleted, mutation,
                    mutation.has_value() ? std::optional<std::string>(std::move(key))
                                         : std::nullopt);
        if (batch.full()) QUARRY_RETURN_IF_ERROR(flush());
        continue;
      }
      statement = doc.status();
    }
    QUARRY_RETURN_IF_ERROR(flush());
    if (stop) break;
    StatusWith<std::int64_t> deleted =
        statement.ok() ? ExecuteDelete(ctx, *collection, statement.value()) : statement.status();
    if (!report(i, std::move(deleted))) stop = true;
  }
  QUARRY_RETURN_IF_ERROR(flush());
  bson::DocumentBuilder b;
  b.AppendInt32("n", static_cast<std::int32_t>(n));
  AppendWriteErrors(&b, std::move(errors));
  return std::move(b).Finish();
}

}  // namespace

void RegisterDeleteCommand(CommandRegistry& registry) {
  registry.Add({.name = "delete", .flags = kWritesData, .run = RunDelete});
}

}  // namespace quarry::commands
