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

bool PreAndPostImagesEnabled(const CollectionHandle& collection) {
  bson::ValueView option = collection.info->options.Get("changeStreamPreAndPostImages");
  return option.type() == bson::Type::kDocument && option.Document().Get("enabled").Truthy();
}

bson::Document DeleteOplogEntry(const CollectionHandle& collection, bson::DocumentView deleted) {
  bool images = PreAndPostImagesEnabled(collection);
  bson::DocumentBuilder b;
  b.AppendString("op", "d");
  AppendOplogNamespace(&b, collection);
  b.OpenDocument("o").Append("_id", deleted.Get("_id")).Close();
  b.AppendBool("images", images);
  if (images) b.AppendDocument("pre", deleted);
  return std::move(b).Finish();
}

bson::Document UpdateOplogEntry(const CollectionHandle& collection, bson::DocumentView pre_image,
                                bson::DocumentView post_image, bool replacement) {
  bson::DocumentBuilder b;
  b.AppendString("op", "u");
  AppendOplogNamespace(&b, collection);
  b.OpenDocument("o2").Append("_id", post_image.Get("_id")).Close();
  b.AppendDocument("o", post_image);
  b.AppendDocument("pre", pre_image);
  if (replacement) b.AppendBool("r", true);
  b.AppendBool("images", PreAndPostImagesEnabled(collection));
  return std::move(b).Finish();
}

bson::Document InsertOplogEntry(const CollectionHandle& collection, bson::DocumentView document) {
  bson::DocumentBuilder b(document.size() + 320);  // room for op, ns (at most 255) and ui
  b.AppendString("op", "i");
  AppendOplogNamespace(&b, collection);
  b.AppendDocument("o", document);
  return std::move(b).Finish();
}

}  // namespace quarry::commands
