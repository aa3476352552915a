// update: each statement {q, u, upsert, multi, arrayFilters} runs in order; failures are
// per-statement writeErrors, as in mongod.
#include <string>
#include <vector>

#include "bson/builder.h"
#include "collation/collator.h"
#include "commands/auth/authorizer.h"
#include "commands/collation_default.h"
#include "commands/command_context.h"
#include "commands/crud/crud.h"
#include "commands/crud/statement_fields.h"
#include "commands/crud/update_batch.h"
#include "commands/crud/update_executor.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

StatusWith<UpdateStatement> ParseStatement(bson::DocumentView statement, bson::DocumentView let,
                                           bool bypass_validation,
                                           const collation::CollatorPtr& collection_default) {
  bson::ValueView q = statement.Get("q");
  bson::ValueView u = statement.Get("u");
  if (q.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'update.updates.q' is the wrong type '" +
                                                std::string(bson::TypeAlias(q.type())) +
                                                "', expected type 'object'");
  }
  query::UpdateOptions options;
  options.let = let;
  bool multi = false;
  bool upsert = false;
  for (const bson::Element& e : statement) {
    if (e.key == "upsert") {
      upsert = e.value.Truthy();
    } else if (e.key == "multi") {
      multi = e.value.Truthy();
    } else if (e.key == "arrayFilters") {
      if (e.value.type() != bson::Type::kArray) {
        return Status(ErrorCode::kTypeMismatch, "arrayFilters must be an array");
      }
      for (const bson::Element& filter : e.value.Document()) {
        if (filter.value.type() != bson::Type::kDocument) {
          return Status(ErrorCode::kTypeMismatch, "arrayFilters entries must be objects");
        }
        options.array_filters.push_back(filter.value.Document());
      }
    }  // the other fields are known (CheckStatementFields ran first) and need nothing here
  }
  options.is_upsert = upsert;
  QUARRY_ASSIGN_OR_RETURN(options.collator, ResolveCollator(statement.Get("collation"),
                                                            "update.updates.", collection_default));
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher,
                          query::Matcher::Parse(q.Document(), let, options.collator));
  QUARRY_ASSIGN_OR_RETURN(query::UpdateSpec update, query::UpdateSpec::Parse(u, options));
  if (multi && update.kind() == query::UpdateSpec::Kind::kReplacement) {
    return Status(ErrorCode::kFailedToParse,
                  "multi update is not supported for replacement-style update");
  }
  return UpdateStatement{.matcher = std::move(matcher),
                         .update = std::move(update),
                         .multi = multi,
                         .upsert = upsert,
                         .sort = std::nullopt,
                         .bypass_validation = bypass_validation,
                         .hint = statement.Get("hint"),
                         .recorded_outcome = nullptr};
}

// mongod refuses multi-document updates in a retryable write: a retry could not know which
// documents the first attempt changed.
Status MultiNotRetryable() {
  return Status(ErrorCode::kInvalidOptions,
                "Cannot use (or request) retryable writes with multi=true");
}

StatusWith<bson::Document> RunUpdate(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_RETURN_IF_ERROR(CheckUserWrite(ctx.service(), request.db, coll));
  args.Raw("updates");
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::DocumentView> statements, request.Documents("updates"));
  QUARRY_ASSIGN_OR_RETURN(bool ordered, args.OptionalBool("ordered", true));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView let, args.OptionalDocument("let"));
  QUARRY_ASSIGN_OR_RETURN(bool bypass, args.OptionalBool("bypassDocumentValidation", false));
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(CheckBatchSize(statements.size()));
  QUARRY_RETURN_IF_ERROR(CheckStatementFields(
      {.path = "update.updates",
       .required = {"q", "u"},
       .optional = {"upsert", "multi", "arrayFilters", "hint", "collation", "c", "upsertSupplied"}},
      statements));
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collection_default,
                          CollectionDefaultCollator(ctx, request.db, coll));

  WriteOutcome& outcome = ctx.write_outcome();
  outcome.present = true;
  outcome.statements = static_cast<std::int64_t>(statements.size());
  outcome.modified = 0;
  RetryableWrite* retry = ctx.retryable_write();
  // Reports one statement's outcome; false stops an ordered command at its first error.
  auto report = [&](std::size_t i, StatusWith<UpdateOutcome> result) -> bool {
    if (!result.ok()) {
      outcome.errors.push_back({i, result.status()});
      return !ordered;
    }
    outcome.n += result.value().matched;
    *outcome.modified += result.value().modified;
    if (result.value().matched > 0) outcome.updated_existing = true;
    if (result.value().upserted_id.has_value()) {
      ++outcome.n;
      outcome.upserted.push_back({i, std::move(*result.value().upserted_id)});
    }
    return true;
  };
  // updateOne({_id: ...}) statements share commits (update_batch.h); anything else runs alone,
  // after what is queued has been committed and reported.
  UpdateBatch batch(ctx, request.db, coll, ordered, bypass);
  bool stop = false;
  auto flush = [&] { return batch.Flush(report, &stop); };
  for (std::size_t i = 0; i < statements.size() && !stop; ++i) {
    if (retry != nullptr) {
      if (std::optional<bson::Document> done = retry->Executed(i)) {
        QUARRY_RETURN_IF_ERROR(flush());  // the statements before it come first
        if (!stop && !report(i, ExecutedUpdateOutcome(*done))) stop = true;
        continue;
      }
    }
    StatusWith<UpdateStatement> statement =
        ParseStatement(statements[i], let, bypass, collection_default);
    if (statement.ok()) {
      statement.value().index = i;
      if (retry != nullptr && statement.value().multi) statement = MultiNotRetryable();
    }
    std::optional<bson::ValueView> id;
    if (statement.ok()) id = UpdateBatch::BatchableId(statement.value());
    if (id.has_value()) {
      QUARRY_ASSIGN_OR_RETURN(bool joins, batch.CanJoin(*id));
      if (!joins) {
        QUARRY_RETURN_IF_ERROR(flush());
        if (stop) break;
        QUARRY_ASSIGN_OR_RETURN(joins, batch.CanJoin(*id));
      }
      if (joins) {
        StatusWith<bool> added = batch.Add(i, *id, std::move(statement.value()));
        if (added.ok() && added.value()) {
          if (batch.full()) QUARRY_RETURN_IF_ERROR(flush());
          continue;
        }
        if (!added.ok()) {
          QUARRY_RETURN_IF_ERROR(flush());  // the statements before it come first
          if (!stop && !report(i, added.status())) stop = true;
          continue;
        }
      }
    }
    QUARRY_RETURN_IF_ERROR(flush());
    if (stop) break;
    StatusWith<UpdateOutcome> result = statement.ok()
                                           ? ExecuteUpdate(ctx, request.db, coll, statement.value())
                                           : StatusWith<UpdateOutcome>(statement.status());
    if (!report(i, std::move(result))) stop = true;
  }
  QUARRY_RETURN_IF_ERROR(flush());
  outcome.SortErrors();
  bson::DocumentBuilder b;
  outcome.AppendTo(&b);
  return std::move(b).Finish();
}

}  // namespace

void RegisterUpdateCommand(CommandRegistry& registry) {
  registry.Add({.name = "update",
                .flags = kWritesData | kRetryableWrite | kAllowedInTransaction,
                .run = RunUpdate,
                .counter = OpCounter::kUpdate,
                .auth = Custom(AuthorizeUpdate)});
}

}  // namespace quarry::commands
