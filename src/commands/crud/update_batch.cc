#include "commands/crud/update_batch.h"

#include <utility>

#include "commands/execution.h"
#include "exec/id_point.h"
#include "exec/planner.h"
#include "exec/write_matches.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {

UpdateBatch::UpdateBatch(CommandContext& ctx, std::string db, std::string coll, bool ordered,
                         bool bypass_validation)
    : ctx_(ctx),
      db_(std::move(db)),
      coll_(std::move(coll)),
      bypass_validation_(bypass_validation),
      queue_(
          CommitterOf(ctx), ordered,
          [this](const UpdateStatement& statement) {
            return ExecuteUpdate(ctx_, db_, coll_, statement);
          },
          ExecContextOf(ctx).reads_latest_of()) {}

std::optional<bson::ValueView> UpdateBatch::BatchableId(const UpdateStatement& statement) {
  if (statement.multi || statement.sort.has_value()) return std::nullopt;
  return exec::IdPoint(statement.matcher);  // the rest of the filter is checked on the read
}

Status UpdateBatch::Open() {
  // Looked up again while missing: a statement run alone may have created it (an upsert).
  if (collection_.has_value()) return Status::OK();
  QUARRY_ASSIGN_OR_RETURN(collection_, LookupCollection(ctx_, db_, coll_));
  if (!collection_.has_value()) return Status::OK();
  QUARRY_ASSIGN_OR_RETURN(
      validator_, DocumentValidator::ForCollection(collection_->info->options, bypass_validation_));
  return Status::OK();
}

StatusWith<bool> UpdateBatch::CanJoin(bson::ValueView id) {
  QUARRY_RETURN_IF_ERROR(Open());
  return collection_.has_value() && !queue_.Changes(storage::EncodeIdKey(id));
}

StatusWith<bool> UpdateBatch::Add(std::size_t index, bson::ValueView id,
                                  UpdateStatement&& statement) {
  QUARRY_RETURN_IF_ERROR(exec::ResolveHint(*collection_, statement.hint));
  std::string key = storage::EncodeIdKey(id);
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> doc,
                          RecordsFor(ctx_).FindByIdKey(collection_->id, key));
  UpdateOutcome outcome;
  std::optional<std::size_t> mutation;
  std::optional<std::string> changed;  // the record key the statement changes
  query::MatchDetails details;
  bool matched = false;
  if (doc.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(matched, statement.matcher.Evaluate(*doc, &details));
  }
  if (matched) {
    QUARRY_ASSIGN_OR_RETURN(query::UpdateResult result,
                            statement.update.Apply(*doc, details, /*is_insert=*/false));
    outcome.matched = 1;
    if (result.modified) {
      if (validator_.has_value()) {
        bson::DocumentView before = *doc;
        QUARRY_RETURN_IF_ERROR(validator_->Check(result.new_doc, &before));
      }
      mutation = queue_.unit().Update(collection_->ref(), *doc, result.new_doc,
                                      UpdateKindOf(statement.update));
      if (RetryableWrite* retry = ctx_.retryable_write()) {
        retry->Record(&queue_.unit(), *mutation, statement.index, bson::Document());
      }
      outcome.modified = 1;
      changed = std::move(key);
    }
  } else if (statement.upsert) {
    // A document with this _id that the rest of the filter rejects makes the upsert collide
    // with it: that case runs alone, the way it always has.
    if (doc.has_value()) return false;
    QUARRY_ASSIGN_OR_RETURN(bson::Document inserted,
                            statement.update.BuildUpsertDocument(statement.matcher));
    if (validator_.has_value()) QUARRY_RETURN_IF_ERROR(validator_->Check(inserted));
    mutation = queue_.unit().Insert(collection_->ref(), inserted);
    outcome.upserted_id = exec::IdDocument(inserted.Get("_id"));
    if (RetryableWrite* retry = ctx_.retryable_write()) {
      retry->Record(&queue_.unit(), *mutation, statement.index, RecordedOutcome(outcome));
    }
    changed = storage::EncodeIdKey(inserted.Get("_id"));
  }
  queue_.Queue(index, std::move(statement), std::move(outcome), mutation, std::move(changed));
  return true;
}

}  // namespace quarry::commands
