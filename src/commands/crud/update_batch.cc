#include "commands/crud/update_batch.h"

#include <utility>

#include "commands/crud/matching.h"
#include "query/id_lookup.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {
namespace {

// Enough to amortize a commit, small enough that a conflict re-runs little.
constexpr std::size_t kQueuedPerCommit = 1000;
constexpr std::size_t kQueuedBytes = std::size_t{8} << 20;

}  // namespace

UpdateBatch::UpdateBatch(CommandContext& ctx, std::string db, std::string coll, bool ordered,
                         bool bypass_validation)
    : ctx_(ctx),
      db_(std::move(db)),
      coll_(std::move(coll)),
      ordered_(ordered),
      bypass_validation_(bypass_validation) {}

std::optional<bson::ValueView> UpdateBatch::BatchableId(bson::DocumentView raw_statement,
                                                        const UpdateStatement& statement) {
  if (statement.multi || statement.sort.has_value()) return std::nullopt;
  bson::ValueView q = raw_statement.Get("q");
  if (q.type() != bson::Type::kDocument) return std::nullopt;
  return query::IdEqualityValue(q.Document());  // the rest of the filter is checked on the read
}

bool UpdateBatch::full() const {
  return queued_.size() >= kQueuedPerCommit || unit_.bytes() >= kQueuedBytes;
}

Status UpdateBatch::Open() {
  // Looked up again while missing: a statement run alone may have created it (an upsert).
  if (collection_.has_value()) return Status::OK();
  collection_ = LookupCollection(ctx_, db_, coll_);
  if (!collection_.has_value()) return Status::OK();
  QUARRY_ASSIGN_OR_RETURN(validator_, DocumentValidator::ForCollection(
                                          collection_->info->options, bypass_validation_));
  return Status::OK();
}

StatusWith<bool> UpdateBatch::CanJoin(bson::ValueView id) {
  QUARRY_RETURN_IF_ERROR(Open());
  return collection_.has_value() && !queued_ids_.contains(storage::EncodeIdKey(id));
}

StatusWith<bool> UpdateBatch::Add(std::size_t index, bson::ValueView id,
                                  UpdateStatement&& statement) {
  std::string key = storage::EncodeIdKey(id);
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> doc,
                          ctx_.engine().records().FindByIdKey(collection_->id, key));
  UpdateOutcome outcome;
  std::optional<std::size_t> mutation;
  query::MatchDetails details;
  if (doc.has_value() && statement.matcher.Matches(*doc, &details)) {
    QUARRY_ASSIGN_OR_RETURN(query::UpdateResult result,
                            statement.update.Apply(*doc, details, /*is_insert=*/false));
    outcome.matched = 1;
    if (result.modified) {
      if (validator_.has_value()) {
        bson::DocumentView before = *doc;
        QUARRY_RETURN_IF_ERROR(validator_->Check(result.new_doc, &before));
      }
      const bool replacement = statement.update.kind() == query::UpdateSpec::Kind::kReplacement;
      mutation = unit_.Replace(collection_->id, std::string(doc->bytes()), result.new_doc,
                               UpdateOplogEntry(*collection_, *doc, result.new_doc, replacement));
      outcome.modified = 1;
      queued_ids_.insert(std::move(key));
    }
  } else if (statement.upsert) {
    // A document with this _id that the rest of the filter rejects makes the upsert collide
    // with it: that case runs alone, the way it always has.
    if (doc.has_value()) return false;
    QUARRY_ASSIGN_OR_RETURN(bson::Document inserted,
                            statement.update.BuildUpsertDocument(statement.matcher));
    if (validator_.has_value()) QUARRY_RETURN_IF_ERROR(validator_->Check(inserted));
    mutation = unit_.Insert(collection_->id, inserted, InsertOplogEntry(*collection_, inserted));
    outcome.upserted_id = IdDocument(inserted.Get("_id"));
    queued_ids_.insert(storage::EncodeIdKey(inserted.Get("_id")));
  }
  queued_.push_back(Queued{index, std::move(statement), std::move(outcome), mutation});
  return true;
}

StatusWith<bool> UpdateBatch::Flush(const Report& report) {
  if (queued_.empty()) return true;
  std::vector<Queued> queued = std::move(queued_);
  queued_.clear();
  queued_ids_.clear();
  storage::WriteUnit unit = std::move(unit_);
  unit_ = storage::WriteUnit();
  std::vector<bool> failed_mutation(unit.size(), false);
  if (!unit.empty()) {
    QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                            ctx_.engine().pipeline().Commit(std::move(unit),
                                                            CommitOptionsFor(ctx_, ordered_)));
    QUARRY_RETURN_IF_ERROR(result.sync_status);
    for (const storage::MutationError& error : result.errors) failed_mutation[error.index] = true;
  }
  // Statements whose change did not commit run again alone: mostly a write conflict (the
  // document changed after it was read), and that run re-reads it; any other failure comes
  // back from it too. An ordered commit stops at its first failure, so every statement from
  // there on runs again, in order.
  bool rerun_rest = false;
  for (Queued& q : queued) {
    if (q.mutation.has_value() && failed_mutation[*q.mutation]) rerun_rest |= ordered_;
    const bool rerun = rerun_rest || (q.mutation.has_value() && failed_mutation[*q.mutation]);
    StatusWith<UpdateOutcome> outcome = rerun ? ExecuteUpdate(ctx_, db_, coll_, q.statement)
                                              : StatusWith<UpdateOutcome>(std::move(q.outcome));
    if (!report(q.index, std::move(outcome))) return false;
  }
  return true;
}

}  // namespace quarry::commands
