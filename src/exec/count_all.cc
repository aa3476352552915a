#include "exec/count_all.h"

#include "bson/builder.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::exec {
namespace {

// The $group spec of a count-all pipeline, or nullopt.
std::optional<bson::DocumentView> CountAllGroup(bson::DocumentView stages) {
  std::vector<bson::DocumentView> list;
  for (const bson::Element& e : stages) {
    if (e.value.type() != bson::Type::kDocument) return std::nullopt;
    list.push_back(e.value.Document());
  }
  if (list.size() == 2) {
    bson::ValueView match = list[0].Get("$match");
    if (list[0].CountElements() != 1 || match.type() != bson::Type::kDocument ||
        !match.Document().empty()) {
      return std::nullopt;
    }
    list.erase(list.begin());
  }
  if (list.size() != 1 || list[0].CountElements() != 1) return std::nullopt;
  bson::ValueView group = list[0].Get("$group");
  if (group.type() != bson::Type::kDocument || group.Document().CountElements() != 2) {
    return std::nullopt;
  }
  bson::DocumentView spec = group.Document();
  bson::ValueView id = spec.Get("_id");
  if (!(id.IsNumber() || id.type() == bson::Type::kNull)) return std::nullopt;
  for (const bson::Element& e : spec) {
    if (e.key == "_id") continue;
    if (e.value.type() != bson::Type::kDocument || e.value.Document().CountElements() != 1) {
      return std::nullopt;
    }
    // Only an int 1, as drivers send it: $sum of 1.0 or NumberLong(1) outputs a double or a
    // long, which the real $group gives.
    bson::ValueView sum = e.value.Document().Get("$sum");
    if (sum.type() != bson::Type::kInt32 || sum.Int32() != 1) return std::nullopt;
  }
  return spec;
}

}  // namespace

std::optional<std::vector<bson::Document>> CountAllPipeline(
    const ExecContext& ctx, const std::optional<Collection>& collection,
    bson::DocumentView stages) {
  std::optional<bson::DocumentView> group = CountAllGroup(stages);
  if (!group.has_value() || !ctx.records().counts_are_exact()) return std::nullopt;
  std::vector<bson::Document> output;
  const std::int64_t count = collection.has_value() ? ctx.records().Count(collection->id) : 0;
  if (count == 0) return output;
  // $group outputs _id first, wherever its spec puts it.
  bson::DocumentBuilder b;
  b.Append("_id", group->Get("_id"));
  for (const bson::Element& e : *group) {
    if (e.key == "_id") continue;
    if (count <= 2147483647) {
      b.AppendInt32(e.key, static_cast<std::int32_t>(count));
    } else {
      b.AppendInt64(e.key, count);
    }
  }
  output.push_back(std::move(b).Finish());
  return output;
}

}  // namespace quarry::exec
