#include "commands/crud/update_executor.h"

#include "commands/crud/document_validator.h"
#include "commands/execution.h"
#include "exec/planner.h"
#include "exec/write_matches.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

// Records, for a retryable write, that `statement` changed a document with mutation
// `mutation` of `unit`.
void RecordIfRetryable(CommandContext& ctx, const UpdateStatement& statement,
                       const UpdateOutcome& outcome, storage::WriteUnit* unit,
                       std::size_t mutation) {
  RetryableWrite* retry = ctx.retryable_write();
  if (retry == nullptr) return;
  bson::Document recorded =
      statement.recorded_outcome ? statement.recorded_outcome(outcome) : RecordedOutcome(outcome);
  retry->Record(unit, mutation, statement.index, recorded);
}

// What an update makes of one matched document: its Update mutation, after the collection's
// validator approved the new version. `*post_image` receives the new version.
exec::ChangeFunction ApplyTo(CommandContext& ctx, const exec::Collection& collection,
                             const UpdateStatement& statement,
                             const std::optional<DocumentValidator>& validator,
                             std::optional<bson::Document>* post_image) {
  return [&ctx, &collection, &statement, &validator, post_image](
             bson::DocumentView doc, const query::MatchDetails& details,
             storage::WriteUnit* unit) -> StatusWith<bool> {
    QUARRY_ASSIGN_OR_RETURN(query::UpdateResult result,
                            statement.update.Apply(doc, details, /*is_insert=*/false));
    if (!result.modified) {
      if (post_image != nullptr) *post_image = bson::Document::Copy(doc);
      return false;
    }
    if (validator.has_value()) QUARRY_RETURN_IF_ERROR(validator->Check(result.new_doc, &doc));
    const std::size_t mutation =
        unit->Update(collection.ref(), doc, result.new_doc, UpdateKindOf(statement.update));
    if (ctx.retryable_write() != nullptr) {
      UpdateOutcome changed;
      changed.matched = 1;
      changed.modified = 1;
      changed.pre_image = bson::Document::Copy(doc);
      changed.post_image = result.new_doc;
      RecordIfRetryable(ctx, statement, changed, unit, mutation);
    }
    if (post_image != nullptr) *post_image = std::move(result.new_doc);
    return true;
  };
}

// Inserts the document an upsert builds. DuplicateKey means a concurrent upsert won the race:
// the caller then retries as an update, as mongod does.
StatusWith<bson::Document> Upsert(CommandContext& ctx, const exec::Collection& collection,
                                  const UpdateStatement& statement,
                                  const std::optional<DocumentValidator>& validator) {
  QUARRY_ASSIGN_OR_RETURN(bson::Document doc,
                          statement.update.BuildUpsertDocument(statement.matcher));
  if (validator.has_value()) QUARRY_RETURN_IF_ERROR(validator->Check(doc));
  storage::WriteUnit unit;
  const std::size_t mutation = unit.Insert(collection.ref(), doc);
  if (ctx.retryable_write() != nullptr) {
    UpdateOutcome upserted;
    upserted.upserted_id = exec::IdDocument(doc.Get("_id"));
    upserted.post_image = doc;
    RecordIfRetryable(ctx, statement, upserted, &unit, mutation);
  }
  QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result, CommitterOf(ctx)(std::move(unit), true));
  if (!result.errors.empty()) return result.errors.front().status;
  QUARRY_RETURN_IF_ERROR(result.sync_status);
  return doc;
}

StatusWith<UpdateOutcome> UpdateMatches(CommandContext& ctx, const exec::Collection& collection,
                                        const UpdateStatement& statement,
                                        const std::optional<DocumentValidator>& validator,
                                        const exec::ResolvedHint& hint) {
  const exec::ExecContext exec_ctx = ExecContextOf(ctx);
  UpdateOutcome outcome;
  if (statement.multi) {
    QUARRY_ASSIGN_OR_RETURN(
        exec::MatchCounts counts,
        exec::ChangeEveryMatch(exec_ctx, collection, statement.matcher, CommitterOf(ctx),
                               ApplyTo(ctx, collection, statement, validator, nullptr), hint));
    outcome.matched = counts.matched;
    outcome.modified = counts.changed;
    return outcome;
  }
  std::optional<bson::Document> post_image;
  const query::SortSpec* sort = statement.sort.has_value() ? &*statement.sort : nullptr;
  QUARRY_ASSIGN_OR_RETURN(
      std::optional<exec::FirstMatch> first,
      exec::ChangeFirstMatch(exec_ctx, collection, statement.matcher, sort, CommitterOf(ctx),
                             ApplyTo(ctx, collection, statement, validator, &post_image), hint));
  if (!first.has_value()) return outcome;
  outcome.matched = 1;
  outcome.modified = first->changed ? 1 : 0;
  outcome.pre_image = std::move(first->doc);
  outcome.text_score = first->text_score;
  outcome.post_image = std::move(post_image);
  return outcome;
}

}  // namespace

bson::Document RecordedOutcome(const UpdateOutcome& outcome) {
  if (!outcome.upserted_id.has_value()) return bson::Document();
  bson::DocumentBuilder b;
  b.Append("upserted", outcome.upserted_id->Get("_id"));
  return std::move(b).Finish();
}

UpdateOutcome ExecutedUpdateOutcome(bson::DocumentView recorded) {
  UpdateOutcome outcome;
  bson::ValueView upserted = recorded.Get("upserted");
  if (upserted.exists()) {
    outcome.upserted_id = exec::IdDocument(upserted);
  } else {
    outcome.matched = 1;
    outcome.modified = 1;
  }
  return outcome;
}

StatusWith<UpdateOutcome> ExecuteUpdate(CommandContext& ctx, const std::string& db,
                                        const std::string& coll, const UpdateStatement& statement) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, db, coll));
  if (!collection.has_value()) {
    if (!statement.upsert) return UpdateOutcome{};
    QUARRY_ASSIGN_OR_RETURN(exec::Collection created, EnsureCollection(ctx, db, coll));
    collection = std::move(created);
  }
  QUARRY_ASSIGN_OR_RETURN(exec::ResolvedHint hint, exec::ResolveHint(*collection, statement.hint));
  QUARRY_ASSIGN_OR_RETURN(
      std::optional<DocumentValidator> validator,
      DocumentValidator::ForCollection(collection->info->options, statement.bypass_validation));
  for (int attempt = 0; attempt < 2; ++attempt) {
    StatusWith<UpdateOutcome> outcome = UpdateMatches(ctx, *collection, statement, validator, hint);
    if (!outcome.ok() || outcome.value().matched > 0 || !statement.upsert) return outcome;
    StatusWith<bson::Document> inserted = Upsert(ctx, *collection, statement, validator);
    if (inserted.ok()) {
      UpdateOutcome upserted;
      upserted.upserted_id = exec::IdDocument(inserted.value().Get("_id"));
      upserted.post_image = std::move(inserted).value();
      return upserted;
    }
    if (inserted.status().code() != ErrorCode::kDuplicateKey || attempt == 1) {
      return inserted.status();
    }
  }
  return UpdateOutcome{};
}

}  // namespace quarry::commands
