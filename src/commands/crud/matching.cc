#include "commands/crud/matching.h"

#include "bson/builder.h"
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

StatusWith<std::optional<bson::Document>> ReadById(CommandContext& ctx,
                                                   const CollectionHandle& collection,
                                                   bson::ValueView id) {
  return ctx.engine().records().FindById(collection.id, id);
}

bson::Document DeleteOplogEntry(const CollectionHandle& collection, bson::ValueView id) {
  bson::DocumentBuilder b;
  b.AppendString("op", "d");
  AppendOplogNamespace(&b, collection);
  b.OpenDocument("o").Append("_id", id).Close();
  return std::move(b).Finish();
}

bson::Document UpdateOplogEntry(const CollectionHandle& collection, bson::DocumentView pre_image,
                                bson::DocumentView post_image) {
  bson::DocumentBuilder b;
  b.AppendString("op", "u");
  AppendOplogNamespace(&b, collection);
  b.OpenDocument("o2").Append("_id", post_image.Get("_id")).Close();
  b.AppendDocument("o", post_image);
  b.AppendDocument("pre", pre_image);
  return std::move(b).Finish();
}

bson::Document InsertOplogEntry(const CollectionHandle& collection, bson::DocumentView document) {
  bson::DocumentBuilder b;
  b.AppendString("op", "i");
  AppendOplogNamespace(&b, collection);
  b.AppendDocument("o", document);
  return std::move(b).Finish();
}

}  // namespace quarry::commands
