// Shared by the stage files: the parser table's signature, a base for one-document-at-a-time
// stages, and small document helpers.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "query/expression/expression.h"
#include "query/pipeline/pipeline.h"
#include "query/update/mutable_value.h"

namespace quarry::query::stages {

using StagePtr = std::shared_ptr<const Stage>;
using StageList = std::vector<StagePtr>;

struct StageParseContext {
  std::shared_ptr<const PipelineContext> pipeline;
  ParseContext* expressions = nullptr;
  bool is_first_stage = false;
};

using StageParser = StatusWith<StageList> (*)(bson::ValueView spec, StageParseContext& ctx);

// One entry per stage file.
StatusWith<StageList> ParseMatchStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseProjectStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseAddFieldsStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseSetStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseUnsetStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseSortStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseLimitStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseSkipStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseCountStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseGroupStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseSortByCountStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseUnwindStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseReplaceRootStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseReplaceWithStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseLookupStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseUnionWithStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseOutStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseMergeStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseDocumentsStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseSampleStage(bson::ValueView spec, StageParseContext& ctx);
StatusWith<StageList> ParseFacetStage(bson::ValueView spec, StageParseContext& ctx);

// $sort followed by $limit: the sort keeps only the first `limit` documents.
// Returns the merged stage, or nullptr when `sort` is not a $sort stage.
StagePtr MergeSortAndLimit(const StagePtr& sort, std::int64_t limit);
// The limit of a $limit stage, or -1 for other stages.
std::int64_t LimitOf(const Stage& stage);

// A stage that rewrites or drops documents one at a time.
class TransformStage : public Stage {
 public:
  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext& run) const override;
  // Rewrites *doc; returns false to drop it. `ctx` holds the run's variables.
  virtual StatusWith<bool> Transform(bson::Document* doc, EvalContext& ctx) const = 0;

 protected:
  using Stage::Stage;
};

// A stage's name and spec for Stage's constructor and name().
class NamedStage : public TransformStage {
 public:
  std::string_view name() const override { return name_; }

 protected:
  NamedStage(std::string name, bson::ValueView spec)
      : TransformStage(spec), name_(std::move(name)) {}

 private:
  std::string name_;
};

// The document as a Value that owns its bytes (moved, not copied).
Value TakeAsValue(bson::Document* doc);

// Sets `path` ("a.b.c") in `doc` to `value`, creating documents on the way (and replacing
// non-documents there); a missing value removes the field.
void SetPath(MutableValue* doc, std::string_view path, Value value);

// Parses a field-path string "$a.b" into "a.b"; fails with `code` and `message` otherwise.
StatusWith<std::string> ParseDollarPath(bson::ValueView spec, int code, const std::string& message);

// The collection a stage reads or writes: "coll" or {db: "d", coll: "c"}.
StatusWith<OutTarget> ParseNamespaceSpec(std::string_view stage, bson::ValueView spec,
                                         const std::string& default_db);

}  // namespace quarry::query::stages
