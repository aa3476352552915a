#include "commands/views/view_reads.h"

#include <string>
#include <string_view>

#include "bson/builder.h"
#include "commands/aggregate/aggregate.h"
#include "commands/aggregate/aggregate_io.h"

namespace quarry::commands {
namespace {

bool NonEmptyDocument(bson::ValueView value) {
  return value.type() == bson::Type::kDocument && !value.Document().empty();
}

// find's options that an aggregate cannot express, in mongod's order and words.
Status CheckFindOptionsForAggregate(bson::DocumentView find) {
  auto refuse = [](std::string_view option) {
    return Status(ErrorCode::kInvalidPipelineOperator,
                  "Option " + std::string(option) + " not supported in aggregation.");
  };
  if (NonEmptyDocument(find.Get("min"))) return refuse("min");
  if (NonEmptyDocument(find.Get("max"))) return refuse("max");
  for (std::string_view flag : {"returnKey", "showRecordId"}) {
    if (find.Get(flag).Truthy()) return refuse(flag);
  }
  if (find.Get("tailable").Truthy()) {
    return Status(ErrorCode::kInvalidPipelineOperator,
                  "Tailable cursors are not supported in aggregation.");
  }
  for (std::string_view flag : {"noCursorTimeout", "allowPartialResults"}) {
    if (find.Get(flag).Truthy()) return refuse(flag);
  }
  bson::ValueView sort = find.Get("sort");
  if (sort.type() == bson::Type::kDocument && sort.Document().Has("$natural")) {
    return Status(ErrorCode::kInvalidPipelineOperator,
                  "Sort option $natural not supported in aggregation.");
  }
  // An aggregate has no singleBatch; mongod lets it through when the limit is 1 anyway.
  bson::ValueView limit = find.Get("limit");
  if (find.Get("singleBatch").Truthy() && !(limit.IsNumber() && limit.AsInt64() == 1)) {
    return refuse("singleBatch");
  }
  if (find.Get("readOnce").Truthy()) return refuse("readOnce");
  return Status::OK();
}

// The aggregate on a view that a find or count becomes, built stage by stage.
class AggregateOnView {
 public:
  explicit AggregateOnView(std::string_view view_name) {
    body_.AppendString("aggregate", view_name);
    body_.OpenArray("pipeline");
  }

  void AddStage(std::string_view name, bson::ValueView argument) {
    body_.OpenDocument(std::to_string(stages_++)).Append(name, argument).Close();
  }
  void AddNumberStage(std::string_view name, std::int64_t argument) {
    body_.OpenDocument(std::to_string(stages_++)).AppendInt64(name, argument).Close();
  }
  void AddDocumentStage(std::string_view name, bson::DocumentView argument) {
    body_.OpenDocument(std::to_string(stages_++)).AppendDocument(name, argument).Close();
  }
  void AddStringStage(std::string_view name, std::string_view argument) {
    body_.OpenDocument(std::to_string(stages_++)).AppendString(name, argument).Close();
  }

  // Ends the pipeline; the cursor gets `batch_size` when it is a number, and the aggregate the
  // options of `read` that it keeps.
  bson::Document Finish(bson::DocumentView read, bson::ValueView batch_size) && {
    body_.Close();
    body_.OpenDocument("cursor");
    if (batch_size.IsNumber()) body_.Append("batchSize", batch_size);
    body_.Close();
    for (std::string_view option : {"collation", "hint", "let", "allowDiskUse"}) {
      bson::ValueView value = read.Get(option);
      if (!value.exists() ||
          (option == "hint" && value.type() == bson::Type::kDocument && value.Document().empty())) {
        continue;
      }
      body_.Append(option, value);
    }
    return std::move(body_).Finish();
  }

 private:
  bson::DocumentBuilder body_;
  int stages_ = 0;
};

}  // namespace

bool MayHoldText(bson::DocumentView filter) {
  for (const bson::Element& e : filter) {
    if (e.key == "$text") return true;
    if ((e.key == "$and" || e.key == "$or") && e.value.type() == bson::Type::kArray) {
      for (const bson::Element& clause : e.value.Document()) {
        if (clause.value.type() == bson::Type::kDocument && MayHoldText(clause.value.Document())) {
          return true;
        }
      }
    }
  }
  return false;
}

std::optional<exec::Collection> LookupCollectionOrView(CommandContext& ctx, std::string_view db,
                                                       std::string_view name) {
  return exec::LookupCollection(ctx.catalog(), db, name, ctx.transaction());
}

StatusWith<std::optional<ResolvedView>> TakeView(CommandContext& ctx, std::string_view db,
                                                 std::string_view name,
                                                 std::optional<exec::Collection>* found) {
  if (!found->has_value() || !(*found)->info->is_view()) return std::optional<ResolvedView>();
  found->reset();
  return ResolveView(ctx.catalog(), db, name);
}

// Whether `projection` holds only {$meta: ...} fields and _id: in find, unlike in $project, such a
// projection keeps every other field.
bool AddsMetaOnly(bson::DocumentView projection) {
  bool meta = false;
  for (const bson::Element& e : projection) {
    if (e.key == "_id" && (e.value.IsNumber() || e.value.type() == bson::Type::kBool)) continue;
    if (e.value.type() != bson::Type::kDocument || e.value.Document().CountElements() != 1 ||
        e.value.Document().FirstKey() != "$meta") {
      return false;
    }
    meta = true;
  }
  return meta;
}

void AddProjection(bson::DocumentView projection, AggregateOnView* aggregate) {
  if (!AddsMetaOnly(projection)) {
    aggregate->AddDocumentStage("$project", projection);
    return;
  }
  bson::DocumentBuilder meta;
  for (const bson::Element& e : projection) {
    if (e.key != "_id") meta.Append(e.key, e.value);
  }
  aggregate->AddDocumentStage("$addFields", std::move(meta).Finish().view());
  if (!projection.Get("_id").exists() || projection.Get("_id").Truthy()) return;
  bson::DocumentBuilder without_id;
  without_id.AppendInt32("_id", 0);
  aggregate->AddDocumentStage("$project", std::move(without_id).Finish().view());
}

StatusWith<bson::Document> FindAsAggregate(bson::DocumentView find, std::string_view view_name) {
  QUARRY_RETURN_IF_ERROR(CheckFindOptionsForAggregate(find));
  AggregateOnView aggregate(view_name);
  if (NonEmptyDocument(find.Get("filter"))) aggregate.AddStage("$match", find.Get("filter"));
  if (NonEmptyDocument(find.Get("sort"))) aggregate.AddStage("$sort", find.Get("sort"));
  for (std::string_view field : {"skip", "limit"}) {
    bson::ValueView value = find.Get(field);
    if (value.IsNumber() && value.AsInt64() > 0) {
      aggregate.AddStage("$" + std::string(field), value);
    }
  }
  if (NonEmptyDocument(find.Get("projection"))) {
    AddProjection(find.Get("projection").Document(), &aggregate);
  }
  return std::move(aggregate).Finish(find, find.Get("batchSize"));
}

bson::Document CountAsAggregate(bson::DocumentView count, std::string_view view_name) {
  AggregateOnView aggregate(view_name);
  if (NonEmptyDocument(count.Get("query"))) aggregate.AddStage("$match", count.Get("query"));
  for (std::string_view field : {"skip", "limit"}) {
    // count's negative limit means the same as the positive one; $limit takes only that.
    const bson::ValueView value = count.Get(field);
    const std::int64_t n = value.IsNumber() ? value.AsInt64() : 0;
    if (n != 0) aggregate.AddNumberStage("$" + std::string(field), n < 0 ? -n : n);
  }
  aggregate.AddStringStage("$count", "count");
  return std::move(aggregate).Finish(count, bson::ValueView());
}

bson::Document DistinctAsAggregate(bson::DocumentView distinct, std::string_view view_name) {
  AggregateOnView aggregate(view_name);
  if (NonEmptyDocument(distinct.Get("query"))) aggregate.AddStage("$match", distinct.Get("query"));
  const bson::ValueView key = distinct.Get("key");
  const std::string path = "$" + std::string(key.type() == bson::Type::kString ? key.String() : "");
  bson::DocumentBuilder unwind;
  unwind.AppendString("path", path).AppendBool("preserveNullAndEmptyArrays", true);
  aggregate.AddDocumentStage("$unwind", std::move(unwind).Finish());
  bson::DocumentBuilder group;
  group.AppendNull("_id").OpenDocument("distinct").AppendString("$addToSet", path).Close();
  aggregate.AddDocumentStage("$group", std::move(group).Finish());
  return std::move(aggregate).Finish(distinct, bson::ValueView());
}

Status CheckPipelineReadsView(const ResolvedView& view, bson::DocumentView stages) {
  auto first = stages.begin();
  if (first == stages.end() || first->value.type() != bson::Type::kDocument) return Status::OK();
  const std::string_view name = first->value.Document().FirstKey();
  if (name == "$changeStream" || name == "$collStats" || name == "$indexStats" ||
      name == "$planCacheStats" || name == "$listSearchIndexes" || name == "$vectorSearch" ||
      name == "$search" || name == "$searchMeta") {
    return NotSupportedOnView(view.db, view.name);
  }
  return Status::OK();
}

StatusWith<bson::Document> AggregateOverSource(const Request& aggregate, const ResolvedView& view) {
  QUARRY_ASSIGN_OR_RETURN(bson::Document collation,
                          CollationForView(view, aggregate.body.Get("collation")));
  bson::ArrayBuilder pipeline;
  for (const bson::Element& e : view.pipeline.view()) pipeline.Append(e.value);
  bson::ValueView stages = aggregate.body.Get("pipeline");
  if (stages.type() == bson::Type::kArray) {
    for (const bson::Element& e : stages.Document()) pipeline.Append(e.value);
  }
  bson::DocumentBuilder body;
  body.AppendString("aggregate", view.source);
  body.AppendArray("pipeline", std::move(pipeline).Finish());
  body.AppendDocument("collation", collation);
  for (const bson::Element& e : aggregate.body) {
    if (e.key != aggregate.name && e.key != "pipeline" && e.key != "collation") {
      body.Append(e.key, e.value);
    }
  }
  return std::move(body).Finish();
}

StatusWith<bson::Document> FindOnView(CommandContext& ctx, const Request& request,
                                      const ResolvedView& view) {
  return FindOnCollectionAsAggregate(ctx, request, view.name);
}

StatusWith<bson::Document> FindOnCollectionAsAggregate(CommandContext& ctx, const Request& request,
                                                       std::string_view name) {
  QUARRY_ASSIGN_OR_RETURN(const bson::Document aggregate, FindAsAggregate(request.body, name));
  Request as_aggregate = request;
  as_aggregate.name = "aggregate";
  as_aggregate.body = aggregate.view();
  as_aggregate.fields = nullptr;
  as_aggregate.sequences.clear();
  return RunAggregate(ctx, as_aggregate);
}

StatusWith<std::unique_ptr<query::DocumentStream>> ReadView(CommandContext& ctx,
                                                            const ResolvedView& view,
                                                            bson::DocumentView filter,
                                                            bson::ValueView hint,
                                                            bson::ValueView collation) {
  StatusWith<bson::Document> same_collation = CollationForView(view, collation);
  if (!same_collation.ok()) return same_collation.status();
  bson::ArrayBuilder stages;
  if (!filter.empty()) {
    bson::DocumentBuilder match;
    match.AppendDocument("$match", filter);
    stages.AppendDocument(std::move(match).Finish());
  }
  const bson::Document match_stages = std::move(stages).Finish();
  auto io = std::make_shared<AggregateIo>(ctx);
  return io->OpenView(view, match_stages.view(), hint);
}

}  // namespace quarry::commands
