#include "commands/crud/update_executor.h"

#include <algorithm>
#include <vector>

#include "bson/builder.h"
#include "catalog/collection_info.h"
#include "commands/crud/document_validator.h"
#include "commands/crud/matching.h"
#include "storage/engine.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

constexpr int kMaxConflictRetries = 100;
constexpr std::size_t kReplacesPerCommit = 1000;

// A matched document waiting to be replaced.
struct PendingReplace {
  bson::Document id;  // {_id: value}
};

// Finds the document a single-document update (or findAndModify) targets: the first match in
// _id order, or the first in `sort` order.
StatusWith<std::optional<std::pair<bson::Document, query::MatchDetails>>> FindTarget(
    CommandContext& ctx, const CollectionHandle& collection, const UpdateStatement& statement) {
  std::optional<std::pair<bson::Document, query::MatchDetails>> best;
  QUARRY_RETURN_IF_ERROR(ForEachMatch(
      ctx, collection, statement.matcher,
      [&](bson::DocumentView doc, const query::MatchDetails& details) {
        if (!statement.sort.has_value() || !statement.sort->needs_sort()) {
          best.emplace(bson::Document::Copy(doc), details);
          return false;
        }
        if (!best.has_value() || statement.sort->Compare(doc, best->first) < 0) {
          best.emplace(bson::Document::Copy(doc), details);
        }
        return true;
      }));
  return best;
}

// Updates at most one document. Retries from the start when it changed under us.
StatusWith<UpdateOutcome> UpdateOne(CommandContext& ctx, const CollectionHandle& collection,
                                    const UpdateStatement& statement,
                                    const std::optional<DocumentValidator>& validator) {
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    UpdateOutcome outcome;
    QUARRY_ASSIGN_OR_RETURN(auto target, FindTarget(ctx, collection, statement));
    if (!target.has_value()) return outcome;
    const bson::Document& doc = target->first;
    QUARRY_ASSIGN_OR_RETURN(query::UpdateResult result,
                            statement.update.Apply(doc, target->second, /*is_insert=*/false));
    outcome.matched = 1;
    outcome.pre_image = doc;
    if (!result.modified) {
      outcome.post_image = doc;
      return outcome;
    }
    if (validator.has_value()) {
      bson::DocumentView before = doc;
      QUARRY_RETURN_IF_ERROR(validator->Check(result.new_doc, &before));
    }
    storage::WriteUnit unit;
    unit.Update(collection.ref(), doc, result.new_doc, UpdateKindOf(statement.update));
    std::vector<bson::Document> ids;
    ids.push_back(IdDocument(doc.Get("_id")));
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> conflicts,
                            CommitNotingConflicts(ctx, std::move(unit), std::move(ids)));
    if (conflicts.empty()) {
      outcome.modified = 1;
      outcome.post_image = std::move(result.new_doc);
      return outcome;
    }
  }
  return Status(ErrorCode::kWriteConflict, "update gave up after repeated write conflicts");
}

// Updates every match; documents that change concurrently are re-read and re-checked, never
// updated twice.
StatusWith<UpdateOutcome> UpdateMany(CommandContext& ctx, const CollectionHandle& collection,
                                     const UpdateStatement& statement,
                                     const std::optional<DocumentValidator>& validator) {
  UpdateOutcome outcome;
  storage::WriteUnit unit;
  std::vector<bson::Document> ids;
  std::vector<bson::Document> conflicts;
  Status apply_error;
  auto flush = [&]() -> Status {
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> more,
                            CommitNotingConflicts(ctx, std::move(unit), std::move(ids)));
    outcome.modified -= static_cast<std::int64_t>(more.size());
    for (bson::Document& id : more) conflicts.push_back(std::move(id));
    unit = storage::WriteUnit();
    ids.clear();
    return Status::OK();
  };
  auto consider = [&](bson::DocumentView doc, const query::MatchDetails& details) -> Status {
    QUARRY_ASSIGN_OR_RETURN(query::UpdateResult result,
                            statement.update.Apply(doc, details, /*is_insert=*/false));
    ++outcome.matched;
    if (!result.modified) return Status::OK();
    if (validator.has_value()) QUARRY_RETURN_IF_ERROR(validator->Check(result.new_doc, &doc));
    ++outcome.modified;
    unit.Update(collection.ref(), doc, result.new_doc, UpdateKindOf(statement.update));
    ids.push_back(IdDocument(doc.Get("_id")));
    if (unit.size() >= kReplacesPerCommit) return flush();
    return Status::OK();
  };
  QUARRY_RETURN_IF_ERROR(ForEachMatch(ctx, collection, statement.matcher,
                                      [&](bson::DocumentView doc, const query::MatchDetails& d) {
                                        apply_error = consider(doc, d);
                                        return apply_error.ok();
                                      }));
  QUARRY_RETURN_IF_ERROR(apply_error);
  QUARRY_RETURN_IF_ERROR(flush());

  for (int attempt = 0; !conflicts.empty(); ++attempt) {
    if (attempt == kMaxConflictRetries) {
      return Status(ErrorCode::kWriteConflict, "update gave up after repeated write conflicts");
    }
    std::vector<bson::Document> retry = std::move(conflicts);
    conflicts.clear();
    for (const bson::Document& id : retry) {
      QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> current,
                              ReadById(ctx, collection, id.Get("_id")));
      --outcome.matched;  // counted again below if it still matches
      query::MatchDetails details;
      if (!current.has_value() || !statement.matcher.Matches(*current, &details)) continue;
      QUARRY_RETURN_IF_ERROR(consider(*current, details));
    }
    QUARRY_RETURN_IF_ERROR(flush());
  }
  return outcome;
}

// Inserts the document an upsert builds. DuplicateKey means a concurrent upsert won the race:
// the caller then retries as an update, as mongod does.
StatusWith<bson::Document> Upsert(CommandContext& ctx, const CollectionHandle& collection,
                                  const UpdateStatement& statement,
                                  const std::optional<DocumentValidator>& validator) {
  QUARRY_ASSIGN_OR_RETURN(bson::Document doc, statement.update.BuildUpsertDocument(statement.matcher));
  if (validator.has_value()) QUARRY_RETURN_IF_ERROR(validator->Check(doc));
  storage::WriteUnit unit;
  unit.Insert(collection.ref(), doc);
  QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                          ctx.engine().pipeline().Commit(std::move(unit), CommitOptionsFor(ctx, true)));
  if (!result.errors.empty()) return result.errors.front().status;
  QUARRY_RETURN_IF_ERROR(result.sync_status);
  return doc;
}

}  // namespace

StatusWith<UpdateOutcome> ExecuteUpdate(CommandContext& ctx, const std::string& db,
                                        const std::string& coll, const UpdateStatement& statement) {
  std::optional<CollectionHandle> collection = LookupCollection(ctx, db, coll);
  if (!collection.has_value()) {
    if (!statement.upsert) return UpdateOutcome{};
    QUARRY_ASSIGN_OR_RETURN(CollectionHandle created, EnsureCollection(ctx, db, coll));
    collection = std::move(created);
  }
  QUARRY_ASSIGN_OR_RETURN(
      std::optional<DocumentValidator> validator,
      DocumentValidator::ForCollection(collection->info->options, statement.bypass_validation));
  for (int attempt = 0; attempt < 2; ++attempt) {
    StatusWith<UpdateOutcome> outcome = statement.multi
                                            ? UpdateMany(ctx, *collection, statement, validator)
                                            : UpdateOne(ctx, *collection, statement, validator);
    if (!outcome.ok() || outcome.value().matched > 0 || !statement.upsert) return outcome;
    StatusWith<bson::Document> inserted = Upsert(ctx, *collection, statement, validator);
    if (inserted.ok()) {
      UpdateOutcome upserted;
      upserted.upserted_id = IdDocument(inserted.value().Get("_id"));
      upserted.post_image = std::move(inserted).value();
      return upserted;
    }
    if (inserted.status().code() != ErrorCode::kDuplicateKey || attempt == 1) return inserted.status();
  }
  return UpdateOutcome{};
}

}  // namespace quarry::commands
