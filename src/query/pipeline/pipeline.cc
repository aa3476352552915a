// Pipeline parsing (the stage table), running, and the stream adapters callers use.
#include "query/pipeline/pipeline.h"

#include <map>

#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"

namespace quarry::query {
namespace {

using stages::StageList;
using stages::StageParseContext;
using stages::StageParser;
using stages::StagePtr;

const std::map<std::string, StageParser, std::less<>>& StageTable() {
  static const auto* table = new std::map<std::string, StageParser, std::less<>>{
      {"$match", stages::ParseMatchStage},
      {"$project", stages::ParseProjectStage},
      {"$addFields", stages::ParseAddFieldsStage},
      {"$set", stages::ParseSetStage},
      {"$unset", stages::ParseUnsetStage},
      {"$sort", stages::ParseSortStage},
      {"$limit", stages::ParseLimitStage},
      {"$skip", stages::ParseSkipStage},
      {"$count", stages::ParseCountStage},
      {"$group", stages::ParseGroupStage},
      {"$sortByCount", stages::ParseSortByCountStage},
      {"$unwind", stages::ParseUnwindStage},
      {"$replaceRoot", stages::ParseReplaceRootStage},
      {"$replaceWith", stages::ParseReplaceWithStage},
      {"$lookup", stages::ParseLookupStage},
      {"$unionWith", stages::ParseUnionWithStage},
      {"$out", stages::ParseOutStage},
      {"$merge", stages::ParseMergeStage},
      {"$documents", stages::ParseDocumentsStage},
      {"$sample", stages::ParseSampleStage},
      {"$facet", stages::ParseFacetStage},
  };
  return *table;
}

class VectorStream final : public DocumentStream {
 public:
  explicit VectorStream(std::vector<bson::Document> docs) : docs_(std::move(docs)) {}
  StatusWith<bool> Next(bson::Document* out) override {
    if (next_ >= docs_.size()) return false;
    *out = std::move(docs_[next_++]);
    return true;
  }

 private:
  std::vector<bson::Document> docs_;
  std::size_t next_ = 0;
};

// Pipelines may build larger documents in between, but what reaches the client must fit in a
// BSON document (mongod's BSONObjMaxUserSize plus its 16 KiB allowance).
constexpr std::size_t kMaxUserDocumentBytes = 16 * 1024 * 1024 + 16 * 1024;

class StreamCursor final : public CursorSource {
 public:
  explicit StreamCursor(std::unique_ptr<DocumentStream> stream) : stream_(std::move(stream)) {}

  StatusWith<Batch> NextBatch(std::size_t max_docs, std::size_t max_bytes) override {
    Batch batch;
    if (max_docs == 0 || exhausted_) return batch;
    while (batch.documents.size() < max_docs) {
      if (!has_pending_) {
        StatusWith<bool> more = stream_->Next(&pending_);
        if (!more.ok()) {
          exhausted_ = true;
          return more.status();
        }
        if (!more.value()) {
          exhausted_ = true;
          return batch;
        }
        has_pending_ = true;
      }
      if (pending_.size() > kMaxUserDocumentBytes) {
        exhausted_ = true;
        has_pending_ = false;
        return Status(ErrorCode::kBSONObjectTooLarge,
                      "BSONObj size: " + std::to_string(pending_.size()) +
                          " is invalid. Size must be between 0 and 16793600(16MB)");
      }
      if (!batch.documents.empty() && batch.bytes + pending_.size() > max_bytes) break;
      batch.bytes += pending_.size();
      batch.documents.push_back(std::move(pending_));
      has_pending_ = false;
    }
    // Look one document ahead so the cursor can report that it is done.
    if (!has_pending_) {
      StatusWith<bool> more = stream_->Next(&pending_);
      if (!more.ok()) {
        exhausted_ = true;
        return more.status();
      }
      has_pending_ = more.value();
      if (!has_pending_) exhausted_ = true;
    }
    return batch;
  }

  bool exhausted() const override { return exhausted_ && !has_pending_; }

 private:
  std::unique_ptr<DocumentStream> stream_;
  bson::Document pending_;
  bool has_pending_ = false;
  bool exhausted_ = false;
};

}  // namespace

const DocumentMetadata& DocumentStream::metadata() const {
  static const DocumentMetadata kNone;
  return kNone;
}

void DocumentStream::AppendExecutionStats(bson::DocumentBuilder*) const {}

std::unique_ptr<DocumentStream> StreamOfDocuments(std::vector<bson::Document> docs) {
  return std::make_unique<VectorStream>(std::move(docs));
}

std::unique_ptr<CursorSource> CursorOverStream(std::unique_ptr<DocumentStream> stream) {
  return std::make_unique<StreamCursor>(std::move(stream));
}

Stage::Stage(bson::ValueView spec) {
  bson::DocumentBuilder b;
  b.Append("spec", spec);
  spec_ = std::move(b).Finish();
}

StatusWith<Pipeline> Pipeline::Parse(bson::DocumentView stages, PipelineContext ctx) {
  ParseContext parse_ctx;
  parse_ctx.set_collator(ctx.collator);
  QUARRY_RETURN_IF_ERROR(DefineLetConstants(ctx.let, &parse_ctx));
  if (ctx.search_meta.has_value()) {
    parse_ctx.DefineSearchMeta(Value::FromDocument(bson::Document::Copy(ctx.search_meta->view())));
  }
  return Parse(stages, std::make_shared<const PipelineContext>(std::move(ctx)), &parse_ctx);
}

StatusWith<Pipeline> Pipeline::Parse(bson::DocumentView stages,
                                     std::shared_ptr<const PipelineContext> ctx,
                                     ParseContext* parse_ctx) {
  Pipeline pipeline;
  pipeline.ctx_ = ctx;
  StageParseContext stage_ctx;
  stage_ctx.pipeline = ctx;
  stage_ctx.expressions = parse_ctx;
  bool first = true;
  for (const bson::Element& e : stages) {
    if (e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kTypeMismatch,
                    "Each element of the 'pipeline' array must be an object");
    }
    bson::DocumentView stage_doc = e.value.Document();
    if (stage_doc.CountElements() != 1) {
      return LocationError(40323,
                           "A pipeline stage specification object must contain exactly one "
                           "field.");
    }
    if (!pipeline.stages_.empty() && pipeline.stages_.back()->writes_output()) {
      return LocationError(40601, std::string(pipeline.stages_.back()->name()) +
                                      " can only be the final stage in the pipeline");
    }
    const bson::Element stage = *stage_doc.begin();
    stage_ctx.is_first_stage = first;
    first = false;
    auto it = StageTable().find(stage.key);
    StageList parsed;
    if (it != StageTable().end()) {
      QUARRY_ASSIGN_OR_RETURN(parsed, it->second(stage.value, stage_ctx));
    } else {
      std::shared_ptr<const Stage> external;
      if (ctx->parse_external_stage) {
        QUARRY_ASSIGN_OR_RETURN(external, ctx->parse_external_stage(stage.key, stage.value));
      }
      if (external == nullptr) {
        return LocationError(40324,
                             "Unrecognized pipeline stage name: '" + std::string(stage.key) + "'");
      }
      parsed.push_back(std::move(external));
    }
    for (StagePtr& s : parsed) {
      // $sort then $limit: a top-k sort that never holds more than `limit` documents.
      std::int64_t limit = stages::LimitOf(*s);
      if (limit > 0 && !pipeline.stages_.empty()) {
        StagePtr merged = stages::MergeSortAndLimit(pipeline.stages_.back(), limit);
        if (merged != nullptr) {
          pipeline.stages_.back() = merged;
          // Keep the $limit too: harmless, and it keeps stage positions as written.
        }
      }
      pipeline.stages_.push_back(std::move(s));
    }
  }
  return pipeline;
}

StatusWith<std::unique_ptr<DocumentStream>> Pipeline::Run(
    std::unique_ptr<DocumentStream> input) const {
  return Run(std::move(input), EvalContext());
}

StatusWith<std::unique_ptr<DocumentStream>> Pipeline::Run(std::unique_ptr<DocumentStream> input,
                                                          const EvalContext& variables) const {
  RunContext run;
  run.pipeline = ctx_;
  run.variables = variables;
  std::unique_ptr<DocumentStream> stream = std::move(input);
  for (const auto& stage : stages_) {
    QUARRY_ASSIGN_OR_RETURN(stream, stage->Open(std::move(stream), run));
  }
  return stream;
}

StatusWith<std::unique_ptr<DocumentStream>> Pipeline::RunObserved(
    std::unique_ptr<DocumentStream> input, const StreamObserver& observe) const {
  RunContext run;
  run.pipeline = ctx_;
  std::unique_ptr<DocumentStream> stream = std::move(input);
  for (std::size_t stage_idx = 0; stage_idx < stages_.size(); ++stage_idx) {
    QUARRY_ASSIGN_OR_RETURN(stream, stages_[stage_idx]->Open(std::move(stream), run));
    stream = observe(stage_idx, std::move(stream));
  }
  return stream;
}

void Pipeline::RemoveFirstStages(std::size_t count) {
  if (count > stages_.size()) count = stages_.size();
  stages_.erase(stages_.begin(), stages_.begin() + static_cast<std::ptrdiff_t>(count));
}

bool Pipeline::writes_output() const { return !stages_.empty() && stages_.back()->writes_output(); }

bool NamesSearchMeta(bson::DocumentView stages) {
  return stages.bytes().find("$$SEARCH_META") != std::string_view::npos;
}

}  // namespace quarry::query
