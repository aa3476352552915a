#include "commands/aggregate/aggregate_io.h"

#include <random>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "commands/crud/document_validator.h"
#include "commands/execution.h"
#include "exec/collection.h"
#include "exec/pipeline_input.h"
#include "exec/planner.h"
#include "exec/write_matches.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

constexpr std::size_t kDocumentsPerCommit = 1000;

// `doc` with an _id: pipeline output written to a collection gets one generated when it has none.
bson::Document WithId(bson::Document doc) {
  if (doc.Get("_id").exists()) return doc;
  bson::DocumentBuilder with_id;
  with_id.AppendObjectId("_id", bson::ObjectId::Generate());
  with_id.AppendElements(doc);
  return std::move(with_id).Finish();
}

}  // namespace

AggregateIo::AggregateIo(CommandContext& ctx, bool bypass_validation)
    : exec_(ExecContextOf(ctx)),
      search_(SearchContextOf(ctx)),
      commit_(CommitterOf(ctx)),
      ddl_(DdlOptionsFor(ctx)),
      max_sort_bytes_(ctx.service().config.max_blocking_sort_bytes),
      max_group_bytes_(ctx.service().config.max_group_bytes),
      spill_dir_(ctx.service().config.spill_dir),
      bypass_validation_(bypass_validation) {}

// Commits `unit` and fails with the first error of any mutation.
Status AggregateIo::CommitAll(storage::WriteUnit unit) {
  if (unit.empty()) return Status::OK();
  QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result, commit_(std::move(unit), true));
  if (!result.errors.empty()) return result.errors.front().status;
  return result.sync_status;
}

query::PipelineContext AggregateIo::MakePipelineContext(const std::string& db,
                                                        bson::DocumentView let,
                                                        bool allow_disk_use) {
  query::PipelineContext pipeline;
  pipeline.db = db;
  pipeline.let = bson::Document::Copy(let);
  pipeline.allow_disk_use = allow_disk_use;
  pipeline.spill_dir = spill_dir_;
  pipeline.max_memory_bytes = max_sort_bytes_;
  pipeline.max_group_memory_bytes = max_group_bytes_;
  pipeline.interrupt = exec_.interrupt;
  std::shared_ptr<AggregateIo> self = shared_from_this();
  pipeline.open_collection =
      [self](const std::string& from_db,
             const std::string& coll) -> StatusWith<std::unique_ptr<query::DocumentStream>> {
    return self->OpenCollection(from_db, coll);
  };
  pipeline.open_search =
      [self](const std::string& db, const std::string& coll,
             bson::DocumentView stage) -> StatusWith<std::unique_ptr<query::DocumentStream>> {
    return SearchStageDocuments(self->search_, db, coll, stage);
  };
  pipeline.open_search_meta = [self](const std::string& db, const std::string& coll,
                                     bson::DocumentView stage) -> StatusWith<bson::Document> {
    return SearchMetaOfSearch(self->search_, db, coll, stage.Get("$search"));
  };
  pipeline.write_out = [self](const query::OutTarget& target, query::DocumentStream* docs) {
    return self->WriteOut(target, docs);
  };
  pipeline.write_merge = [self](const query::MergeSpec& spec, query::DocumentStream* docs) {
    return self->WriteMerge(spec, docs);
  };
  return pipeline;
}

StatusWith<std::unique_ptr<query::DocumentStream>> AggregateIo::OpenCollection(
    const std::string& db, const std::string& coll) {
  return OpenCollectionAt(db, coll, 0);
}

StatusWith<std::unique_ptr<query::DocumentStream>> AggregateIo::OpenCollectionAt(
    const std::string& db, const std::string& coll, int view_depth) {
  std::optional<exec::Collection> collection = exec::LookupCollection(*exec_.catalog, db, coll);
  if (!collection.has_value()) return query::StreamOfDocuments({});
  if (collection->info->is_view()) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<ResolvedView> view,
                            ResolveView(*exec_.catalog, db, coll));
    if (view.has_value()) return OpenView(*view, bson::DocumentView(), {}, view_depth + 1);
  }
  return exec::StreamOfCollection(exec_, *collection);
}

StatusWith<std::unique_ptr<query::DocumentStream>> AggregateIo::OpenView(const ResolvedView& view,
                                                                         bson::DocumentView stages,
                                                                         bson::ValueView hint,
                                                                         int view_depth) {
  // A view's stages may read other views ($lookup, $unionWith), which may read this one again.
  if (view_depth > kMaxViewDepth) {
    return Status(ErrorCode::kViewDepthLimitExceeded,
                  "View depth too deep or view cycle detected; maximum depth is " +
                      std::to_string(kMaxViewDepth));
  }
  query::PipelineContext pipeline_ctx = MakePipelineContext(view.db, {}, false);
  if (!view.collation.view().empty()) {
    QUARRY_ASSIGN_OR_RETURN(pipeline_ctx.collator,
                            collation::Collator::Parse(view.collation.view()));
  }
  std::shared_ptr<AggregateIo> self = shared_from_this();
  pipeline_ctx.open_collection =
      [self, view_depth](
          const std::string& from_db,
          const std::string& coll) -> StatusWith<std::unique_ptr<query::DocumentStream>> {
    return self->OpenCollectionAt(from_db, coll, view_depth);
  };
  bson::ArrayBuilder all;
  for (const bson::Element& e : view.pipeline.view()) all.Append(e.value);
  for (const bson::Element& e : stages) all.Append(e.value);
  const bson::Document all_stages = std::move(all).Finish();
  QUARRY_ASSIGN_OR_RETURN(query::Pipeline pipeline,
                          query::Pipeline::Parse(all_stages.view(), std::move(pipeline_ctx)));
  std::optional<exec::Collection> source =
      exec::LookupCollection(*exec_.catalog, view.db, view.source, exec_.transaction);
  if (!source.has_value()) return pipeline.Run(query::StreamOfDocuments({}));
  QUARRY_ASSIGN_OR_RETURN(exec::ResolvedHint resolved_hint, exec::ResolveHint(*source, hint));
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<query::DocumentStream> input,
                          exec::OpenPipelineInput(exec_, *source, &pipeline, resolved_hint));
  return pipeline.Run(std::move(input));
}

Status AggregateIo::WriteOut(const query::OutTarget& target, query::DocumentStream* docs) {
  // As mongod: fill a temporary collection, then rename it over the target in one step, so
  // readers see the old contents or the new, never a mix.
  std::random_device rd;
  std::string temp = "tmp.agg_out." + std::to_string(rd()) + std::to_string(rd());
  const catalog::DdlOptions& ddl = ddl_;
  // The target's options and secondary indexes, which the results keep.
  std::shared_ptr<const catalog::CollectionInfo> existing =
      exec_.catalog->Find(target.db, target.coll);
  if (existing != nullptr && existing->is_view()) {
    return NotSupportedOnView(target.db, target.coll);
  }
  if (existing != nullptr && existing->is_capped()) {
    return Status(static_cast<ErrorCode>(17152),
                  "namespace '" + existing->ns() + "' is capped so it can't be used for $out");
  }
  const bson::Document options =
      existing != nullptr ? bson::Document::Copy(existing->options.view()) : bson::Document();
  QUARRY_ASSIGN_OR_RETURN(std::optional<DocumentValidator> validator,
                          DocumentValidator::ForCollection(options.view(), bypass_validation_));
  QUARRY_ASSIGN_OR_RETURN(auto created,
                          exec_.catalog->CreateCollection(target.db, temp, options.view(), ddl));
  (void)created;
  Status status = [&]() -> Status {
    if (existing != nullptr) {
      // Ready at once: the temporary collection is empty, so there is nothing to build.
      auto copy_indexes = [&existing](catalog::CollectionInfo* info) {
        for (const catalog::IndexInfo& index : existing->indexes) {
          if (!index.ready || index.is_id_index()) continue;  // the new one has its own _id
          catalog::IndexInfo& copy = info->indexes.emplace_back();
          copy.spec = bson::Document::Copy(index.spec.view());
          copy.ready = true;
        }
        return Status::OK();
      };
      QUARRY_RETURN_IF_ERROR(exec_.catalog->ModifyCollection(target.db, temp, copy_indexes,
                                                             bson::DocumentView(), ddl));
    }
    exec::Collection collection = *exec::LookupCollection(*exec_.catalog, target.db, temp);
    storage::WriteUnit unit;
    bson::Document doc;
    while (true) {
      QUARRY_ASSIGN_OR_RETURN(bool more, docs->Next(&doc));
      if (!more) break;
      doc = WithId(std::move(doc));
      if (validator.has_value()) QUARRY_RETURN_IF_ERROR(validator->Check(doc.view()));
      unit.Insert(collection.ref(), doc);
      if (unit.size() >= kDocumentsPerCommit) {
        QUARRY_RETURN_IF_ERROR(CommitAll(std::move(unit)));
        unit = storage::WriteUnit();
      }
    }
    QUARRY_RETURN_IF_ERROR(CommitAll(std::move(unit)));
    return exec_.catalog->RenameCollection(target.db, temp, target.db, target.coll,
                                           /*drop_target=*/true, ddl);
  }();
  if (!status.ok()) (void)exec_.catalog->DropCollection(target.db, temp, ddl);
  return status;
}

Status AggregateIo::WriteMerge(const query::MergeSpec& spec, query::DocumentStream* docs) {
  QUARRY_ASSIGN_OR_RETURN(
      exec::Collection collection,
      exec::EnsureCollection(*exec_.catalog, spec.into.db, spec.into.coll, ddl_));
  QUARRY_ASSIGN_OR_RETURN(
      std::optional<DocumentValidator> validator,
      DocumentValidator::ForCollection(collection.info->options.view(), bypass_validation_));
  bool by_id = spec.on.size() == 1 && spec.on.front() == "_id";
  bson::Document doc;
  while (true) {
    QUARRY_ASSIGN_OR_RETURN(bool more, docs->Next(&doc));
    if (!more) break;
    doc = WithId(std::move(doc));
    std::optional<bson::Document> existing;
    if (by_id) {
      QUARRY_ASSIGN_OR_RETURN(existing, exec::ReadById(exec_, collection, doc.Get("_id")));
    } else {
      bson::DocumentBuilder filter;
      for (const std::string& field : spec.on) {
        bson::ValueView v = doc.Get(field);
        if (!v.exists()) {
          return Status(static_cast<ErrorCode>(51132),
                        "$merge write error: 'on' field '" + field + "' cannot be missing");
        }
        filter.Append(field, v);
      }
      QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher,
                              query::Matcher::Parse(std::move(filter).Finish()));
      QUARRY_RETURN_IF_ERROR(exec::ForEachMatch(
          exec_, collection, matcher, [&](bson::DocumentView found, const query::MatchDetails&) {
            existing = bson::Document::Copy(found);
            return false;
          }));
    }
    storage::WriteUnit unit;
    if (!existing.has_value()) {
      if (spec.when_not_matched == query::MergeSpec::WhenNotMatched::kDiscard) continue;
      if (spec.when_not_matched == query::MergeSpec::WhenNotMatched::kFail) {
        return Status(static_cast<ErrorCode>(13113),
                      "$merge could not find a matching document in the target collection");
      }
      if (validator.has_value()) QUARRY_RETURN_IF_ERROR(validator->Check(doc.view()));
      unit.Insert(collection.ref(), doc);
    } else {
      if (spec.when_matched == query::MergeSpec::WhenMatched::kFail) {
        // mongod inserts and lets the unique index refuse it: the same E11000 error, with
        // keyPattern and keyValue, as an insert of this document gets.
        storage::WriteUnit insert;
        insert.Insert(collection.ref(), doc);
        QUARRY_RETURN_IF_ERROR(CommitAll(std::move(insert)));
        continue;
      }
      if (spec.when_matched == query::MergeSpec::WhenMatched::kKeepExisting) continue;
      QUARRY_ASSIGN_OR_RETURN(bson::Document merged, query::MergeDocuments(spec, *existing, doc));
      if (!merged.Get("_id").exists() ||
          merged.Get("_id").ToJson() != existing->Get("_id").ToJson()) {
        bson::DocumentBuilder fixed;
        fixed.Append("_id", existing->Get("_id"));
        for (const bson::Element& e : merged.view()) {
          if (e.key != "_id") fixed.Append(e.key, e.value);
        }
        merged = std::move(fixed).Finish();
      }
      if (validator.has_value()) {
        const bson::DocumentView before = existing->view();
        QUARRY_RETURN_IF_ERROR(validator->Check(merged.view(), &before));
      }
      unit.Update(collection.ref(), *existing, merged,
                  spec.when_matched == query::MergeSpec::WhenMatched::kReplace
                      ? storage::UpdateKind::kReplace
                      : storage::UpdateKind::kModify);
    }
    QUARRY_RETURN_IF_ERROR(CommitAll(std::move(unit)));
  }
  return Status::OK();
}

}  // namespace quarry::commands
