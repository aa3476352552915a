// delete: each statement removes the first (limit 1) or every (limit 0) matching document.
// Deletes name the pre-image they read; if a concurrent write changed it, the statement reads
// again rather than deleting a document that no longer matches.
#include <string>
#include <vector>

#include "bson/builder.h"
#include "collation/collator.h"
#include "commands/collation_default.h"
#include "commands/command_context.h"
#include "commands/crud/statement_fields.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "exec/id_batch.h"
#include "exec/id_point.h"
#include "exec/planner.h"
#include "exec/write_matches.h"
#include "storage/engine.h"
#include "storage/record_store.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

struct DeleteStatement {
  query::Matcher matcher;
  bool just_one = false;
  std::size_t index = 0;  // its position in the command: a retryable write's statement number
  bson::ValueView hint;   // an index name or key pattern; absent: none
};

// What a retryable write records for a delete that removed its document.
const bson::Document& DeletedOutcome() {
  static const bson::Document kDeleted;
  return kDeleted;
}

StatusWith<DeleteStatement> ParseStatement(bson::DocumentView statement, bson::DocumentView let,
                                           const collation::CollatorPtr& collection_default) {
  bson::ValueView q = statement.Get("q");
  if (q.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'delete.deletes.q' is the wrong type '" +
                                                std::string(bson::TypeAlias(q.type())) +
                                                "', expected type 'object'");
  }
  bson::ValueView limit = statement.Get("limit");
  if (!limit.IsNumber() || (limit.AsDouble() != 0 && limit.AsDouble() != 1)) {
    return Status(ErrorCode::kFailedToParse,
                  "The limit field in delete objects must be 0 or 1. Got " + limit.ToJson());
  }
  QUARRY_ASSIGN_OR_RETURN(
      collation::CollatorPtr collator,
      ResolveCollator(statement.Get("collation"), "delete.deletes.", collection_default));
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher,
                          query::Matcher::Parse(q.Document(), let, std::move(collator)));
  return DeleteStatement{std::move(matcher), limit.AsDouble() == 1, 0, statement.Get("hint")};
}

// What a delete does to a matched document (recording it when the delete is a retryable
// write's statement `index`).
exec::ChangeFunction DeleteIt(CommandContext& ctx, const exec::Collection& collection,
                              std::size_t index) {
  return [&ctx, &collection, index](bson::DocumentView doc, const query::MatchDetails&,
                                    storage::WriteUnit* unit) -> StatusWith<bool> {
    const std::size_t mutation = unit->Delete(collection.ref(), doc);
    if (RetryableWrite* retry = ctx.retryable_write()) {
      retry->Record(unit, mutation, index, DeletedOutcome());
    }
    return true;
  };
}

// Deletes what the statement matches (the first match for limit 1); returns the number
// deleted. Deletes name the document they read: if a concurrent write changed it, the
// statement reads again rather than deleting a document that no longer matches.
StatusWith<std::int64_t> ExecuteDelete(CommandContext& ctx, const exec::Collection& collection,
                                       const DeleteStatement& statement) {
  const exec::ExecContext exec_ctx = ExecContextOf(ctx);
  QUARRY_ASSIGN_OR_RETURN(exec::ResolvedHint hint, exec::ResolveHint(collection, statement.hint));
  if (!statement.just_one) {
    QUARRY_ASSIGN_OR_RETURN(
        exec::MatchCounts counts,
        exec::ChangeEveryMatch(exec_ctx, collection, statement.matcher, CommitterOf(ctx),
                               DeleteIt(ctx, collection, statement.index), hint));
    return counts.changed;
  }
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::FirstMatch> first,
                          exec::ChangeFirstMatch(exec_ctx, collection, statement.matcher,
                                                 /*sort=*/nullptr, CommitterOf(ctx),
                                                 DeleteIt(ctx, collection, statement.index), hint));
  return first.has_value() ? 1 : 0;
}

StatusWith<bson::Document> RunDelete(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_RETURN_IF_ERROR(CheckUserWrite(ctx.service(), request.db, coll));
  args.Raw("deletes");
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::DocumentView> statements, request.Documents("deletes"));
  QUARRY_ASSIGN_OR_RETURN(bool ordered, args.OptionalBool("ordered", true));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView let, args.OptionalDocument("let"));
  args.Ignore({"bypassDocumentValidation"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(CheckBatchSize(statements.size()));
  QUARRY_RETURN_IF_ERROR(CheckStatementFields(
      {.path = "delete.deletes", .required = {"q", "limit"}, .optional = {"hint", "collation"}},
      statements));
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collection_default,
                          CollectionDefaultCollator(ctx, request.db, coll));

  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, request.db, coll));
  WriteOutcome& outcome = ctx.write_outcome();
  outcome.present = true;
  outcome.statements = static_cast<std::int64_t>(statements.size());
  RetryableWrite* retry = ctx.retryable_write();
  // Reports one statement's outcome; false stops an ordered command at its first error.
  auto report = [&](std::size_t i, StatusWith<std::int64_t> deleted) -> bool {
    if (!deleted.ok()) {
      outcome.errors.push_back({i, deleted.status()});
      return !ordered;
    }
    outcome.n += deleted.value();
    return true;
  };
  // deleteOne({_id: ...}) statements share commits (id_batch.h); anything else runs alone,
  // after what is queued has been committed and reported.
  exec::IdBatch<DeleteStatement, std::int64_t> batch(
      CommitterOf(ctx), ordered,
      [&](const DeleteStatement& statement) { return ExecuteDelete(ctx, *collection, statement); },
      ExecContextOf(ctx).reads_latest_of());
  bool stop = false;
  auto flush = [&] { return batch.Flush(report, &stop); };
  for (std::size_t i = 0; i < statements.size() && !stop; ++i) {
    if (retry != nullptr && retry->Executed(i).has_value()) {
      QUARRY_RETURN_IF_ERROR(flush());                        // the statements before it come first
      if (!stop && !report(i, std::int64_t{1})) stop = true;  // deleted earlier
      continue;
    }
    StatusWith<DeleteStatement> statement = ParseStatement(statements[i], let, collection_default);
    if (statement.ok() && collection.has_value()) {
      Status hinted = exec::ResolveHint(*collection, statement.value().hint).status();
      if (!hinted.ok()) statement = hinted;
    }
    if (statement.ok()) {
      statement.value().index = i;
      if (retry != nullptr && !statement.value().just_one) {
        statement = Status(ErrorCode::kInvalidOptions,
                           "Cannot use (or request) retryable writes with limit=0");
      }
    }
    if (!collection.has_value()) {  // nothing to delete; a malformed statement still fails
      if (!report(i, statement.ok() ? StatusWith<std::int64_t>(0) : statement.status())) break;
      continue;
    }
    std::optional<bson::ValueView> id;
    if (statement.ok() && statement.value().just_one) {
      id = exec::IdPoint(statement.value().matcher);
    }
    if (id.has_value()) {
      std::string key = storage::EncodeIdKey(*id);
      if (batch.Changes(key)) {
        QUARRY_RETURN_IF_ERROR(flush());
        if (stop) break;
      }
      StatusWith<std::optional<bson::Document>> doc =
          RecordsFor(ctx).FindByIdKey(collection->id, key);
      StatusWith<bool> matched = false;
      if (doc.ok() && doc.value().has_value()) {
        matched = statement.value().matcher.Evaluate(*doc.value());
      }
      if (doc.ok() && matched.ok()) {
        std::optional<std::size_t> mutation;
        if (matched.value()) {
          mutation = batch.unit().Delete(collection->ref(), *doc.value());
          if (retry != nullptr) retry->Record(&batch.unit(), *mutation, i, DeletedOutcome());
        }
        const std::int64_t deleted = mutation.has_value() ? 1 : 0;
        batch.Queue(
            i, std::move(statement).value(), deleted, mutation,
            mutation.has_value() ? std::optional<std::string>(std::move(key)) : std::nullopt);
        if (batch.full()) QUARRY_RETURN_IF_ERROR(flush());
        continue;
      }
      statement = doc.ok() ? matched.status() : doc.status();
    }
    QUARRY_RETURN_IF_ERROR(flush());
    if (stop) break;
    StatusWith<std::int64_t> deleted =
        statement.ok() ? ExecuteDelete(ctx, *collection, statement.value()) : statement.status();
    if (!report(i, std::move(deleted))) stop = true;
  }
  QUARRY_RETURN_IF_ERROR(flush());
  outcome.SortErrors();
  bson::DocumentBuilder b;
  outcome.AppendTo(&b);
  return std::move(b).Finish();
}

}  // namespace

void RegisterDeleteCommand(CommandRegistry& registry) {
  registry.Add({.name = "delete",
                .flags = kWritesData | kRetryableWrite | kAllowedInTransaction,
                .run = RunDelete,
                .counter = OpCounter::kDelete,
                .auth = OnNamespace({auth::ActionType::kRemove})});
}

}  // namespace quarry::commands
