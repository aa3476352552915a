#include "commands/crud/matching.h"

#include "bson/builder.h"
#include "catalog/collection_info.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {

Status ForEachMatch(CommandContext& ctx, const CollectionHandle& collection,
                    const query::Matcher& matcher,
                    const std::function<bool(bson::DocumentView, const query::MatchDetails&)>& visit) {
  std::unique_ptr<query::RecordSource> records = RecordsOf(ctx, collection, matcher.filter())("");
  for (; records->Valid(); records->Next()) {
    query::MatchDetails details;
    bson::DocumentView doc = records->document();
    if (!matcher.Matches(doc, &details)) continue;
    if (!visit(doc, details)) break;
  }
  return records->status();
}

bson::Document IdDocument(bson::ValueView id) {
  bson::DocumentBuilder b;
  b.Append("_id", id);
  return std::move(b).Finish();
}

StatusWith<std::vector<bson::Document>> CommitNotingConflicts(CommandContext& ctx,
                                                              storage::WriteUnit unit,
                                                              std::vector<bson::Document> ids) {
  std::vector<bson::Document> conflicts;
  if (unit.empty()) return conflicts;
  QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                          ctx.engine().pipeline().Commit(std::move(unit),
                                                         CommitOptionsFor(ctx, /*ordered=*/false)));
  for (const storage::MutationError& error : result.errors) {
    if (error.status.code() != ErrorCode::kWriteConflict) return error.status;
    conflicts.push_back(std::move(ids[error.index]));
  }
  QUARRY_RETURN_IF_ERROR(result.sync_status);
  return conflicts;
}

StatusWith<std::optional<bson::Document>> ReadById(CommandContext& ctx,
                                                   const CollectionHandle& collection,
                                                   bson::ValueView id) {
  return ctx.engine().records().FindById(collection.id, id);
}

}  // namespace quarry::commands
