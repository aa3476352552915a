// $out and $merge: hand the pipeline's output to the caller's writer (PipelineContext), and
// MergeDocuments, which the writer uses for $merge's whenMatched modes.
#include "query/pipeline/stages/stage_internal.h"
#include "query/update/update.h"
#include "query/value/location_error.h"

namespace quarry::query {
namespace stages {
namespace {

using bson::Type;

class WriteStage final : public Stage {
 public:
  WriteStage(bson::ValueView spec, OutTarget out) : Stage(spec), is_merge_(false) {
    merge_.into = std::move(out);
  }
  WriteStage(bson::ValueView spec, MergeSpec merge)
      : Stage(spec), is_merge_(true), merge_(std::move(merge)) {}
  std::string_view name() const override { return is_merge_ ? "$merge" : "$out"; }
  bool writes_output() const override { return true; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext& run) const override {
    auto self = std::static_pointer_cast<const WriteStage>(shared_from_this());
    return std::unique_ptr<DocumentStream>(
        std::make_unique<Stream>(std::move(self), std::move(input), run.pipeline));
  }

 private:
  class Stream final : public DocumentStream {
   public:
    Stream(std::shared_ptr<const WriteStage> stage, std::unique_ptr<DocumentStream> input,
           std::shared_ptr<const PipelineContext> ctx)
        : stage_(std::move(stage)), input_(std::move(input)), ctx_(std::move(ctx)) {}

    StatusWith<bool> Next(bson::Document*) override {
      if (done_) return false;
      done_ = true;
      if (stage_->is_merge_) {
        if (ctx_ == nullptr || !ctx_->write_merge) {
          return Status(ErrorCode::kNotImplemented, "$merge is not supported here");
        }
        QUARRY_RETURN_IF_ERROR(ctx_->write_merge(stage_->merge_, input_.get()));
      } else {
        if (ctx_ == nullptr || !ctx_->write_out) {
          return Status(ErrorCode::kNotImplemented, "$out is not supported here");
        }
        QUARRY_RETURN_IF_ERROR(ctx_->write_out(stage_->merge_.into, input_.get()));
      }
      return false;
    }

   private:
    std::shared_ptr<const WriteStage> stage_;
    std::unique_ptr<DocumentStream> input_;
    std::shared_ptr<const PipelineContext> ctx_;
    bool done_ = false;
  };

  bool is_merge_;
  MergeSpec merge_;
};

Status UnknownMergeField(std::string_view field) {
  return Status(ErrorCode::kLocation40415,
                "BSON field '$merge." + std::string(field) + "' is an unknown field.");
}

Status BadEnum(std::string_view value, std::string_view field) {
  return Status(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) + "' for field '" +
                                          std::string(field) + "' is not a valid value.");
}

}  // namespace

StatusWith<StageList> ParseOutStage(bson::ValueView spec, StageParseContext& ctx) {
  QUARRY_ASSIGN_OR_RETURN(OutTarget target, ParseNamespaceSpec("$out", spec, ctx.pipeline->db));
  return StageList{std::make_shared<WriteStage>(spec, std::move(target))};
}

StatusWith<StageList> ParseMergeStage(bson::ValueView spec, StageParseContext& ctx) {
  MergeSpec merge;
  if (spec.type() == Type::kString) {
    QUARRY_ASSIGN_OR_RETURN(merge.into, ParseNamespaceSpec("$merge.into", spec, ctx.pipeline->db));
    return StageList{std::make_shared<WriteStage>(spec, std::move(merge))};
  }
  if (spec.type() != Type::kDocument) {
    return LocationError(51182, "$merge requires a string or object argument, but found " +
                                    std::string(TypeName(spec)));
  }
  bool has_into = false;
  for (const bson::Element& e : spec.Document()) {
    if (e.key == "into") {
      QUARRY_ASSIGN_OR_RETURN(merge.into,
                              ParseNamespaceSpec("$merge.into", e.value, ctx.pipeline->db));
      has_into = true;
    } else if (e.key == "on") {
      merge.on.clear();
      if (e.value.type() == Type::kString) {
        merge.on.emplace_back(e.value.String());
      } else if (e.value.type() == Type::kArray && !e.value.Document().empty()) {
        for (const bson::Element& f : e.value.Document()) {
          if (f.value.type() != Type::kString) {
            return LocationError(51134, "$merge 'on' array elements must be strings, but found " +
                                            std::string(TypeName(f.value)));
          }
          merge.on.emplace_back(f.value.String());
        }
      } else {
        return LocationError(51186,
                             "$merge 'on' field must be either a string or an array of "
                             "strings, but found " +
                                 std::string(TypeName(e.value)));
      }
    } else if (e.key == "let") {
      if (e.value.type() != Type::kDocument) {
        return Status(ErrorCode::kTypeMismatch, "BSON field '$merge.let' is the wrong type '" +
                                                    std::string(TypeName(e.value)) +
                                                    "', expected type 'object'");
      }
      merge.let = bson::Document::Copy(e.value.Document());
    } else if (e.key == "whenMatched") {
      if (e.value.type() == Type::kArray) {
        merge.when_matched = MergeSpec::WhenMatched::kPipeline;
        merge.when_matched_pipeline = bson::Document::Copy(e.value.Document());
      } else if (e.value.type() == Type::kString) {
        std::string_view mode = e.value.String();
        if (mode == "replace") {
          merge.when_matched = MergeSpec::WhenMatched::kReplace;
        } else if (mode == "keepExisting") {
          merge.when_matched = MergeSpec::WhenMatched::kKeepExisting;
        } else if (mode == "merge") {
          merge.when_matched = MergeSpec::WhenMatched::kMerge;
        } else if (mode == "fail") {
          merge.when_matched = MergeSpec::WhenMatched::kFail;
        } else {
          return BadEnum(mode, "whenMatched");
        }
      } else {
        return LocationError(51191,
                             "$merge 'whenMatched' field must be either a string or an "
                             "array, but found " +
                                 std::string(TypeName(e.value)));
      }
    } else if (e.key == "whenNotMatched") {
      if (e.value.type() != Type::kString) {
        return Status(ErrorCode::kTypeMismatch,
                      "BSON field '$merge.whenNotMatched' is the wrong type '" +
                          std::string(TypeName(e.value)) + "', expected type 'string'");
      }
      std::string_view mode = e.value.String();
      if (mode == "insert") {
        merge.when_not_matched = MergeSpec::WhenNotMatched::kInsert;
      } else if (mode == "discard") {
        merge.when_not_matched = MergeSpec::WhenNotMatched::kDiscard;
      } else if (mode == "fail") {
        merge.when_not_matched = MergeSpec::WhenNotMatched::kFail;
      } else {
        return BadEnum(mode, "whenNotMatched");
      }
    } else {
      return UnknownMergeField(e.key);
    }
  }
  if (!has_into) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field '$merge.into' is missing but a required field");
  }
  if (merge.when_matched == MergeSpec::WhenMatched::kPipeline) {
    // Check the update pipeline now, so a bad one fails the aggregate before it writes.
    UpdateOptions options;
    QUARRY_RETURN_IF_ERROR(UpdateSpec::ParsePipeline(merge.when_matched_pipeline, options));
  } else if (!merge.let.view().empty()) {
    static const char* const kModes[] = {"replace", "keepExisting", "merge", "fail", "pipeline"};
    return LocationError(51199, "Cannot use 'let' variables with 'whenMatched: " +
                                    std::string(kModes[static_cast<int>(merge.when_matched)]) +
                                    "' mode");
  }
  return StageList{std::make_shared<WriteStage>(spec, std::move(merge))};
}

}  // namespace stages

StatusWith<bson::Document> MergeDocuments(const MergeSpec& spec, bson::DocumentView existing,
                                          bson::DocumentView incoming) {
  switch (spec.when_matched) {
    case MergeSpec::WhenMatched::kKeepExisting:
      return bson::Document::Copy(existing);
    case MergeSpec::WhenMatched::kReplace: {
      if (incoming.Has("_id")) return bson::Document::Copy(incoming);
      bson::DocumentBuilder b;
      b.Append("_id", existing.Get("_id"));
      b.AppendElements(incoming);
      return std::move(b).Finish();
    }
    case MergeSpec::WhenMatched::kMerge: {
      MutableValue merged = MutableValue::OfDocument(existing);
      for (const bson::Element& e : incoming) {
        merged.SetField(e.key, MutableValue(Value::Unowned(e.value)));
      }
      return merged.ToDocument();
    }
    case MergeSpec::WhenMatched::kPipeline: {
      // $$new (and the stage's other `let` variables) are constants of this one update.
      ParseContext parse;
      EvalContext eval;
      eval.SetRoot(incoming);
      bson::DocumentBuilder let;
      bson::Document default_let;
      bson::DocumentView let_spec = spec.let;
      if (let_spec.empty()) {
        bson::DocumentBuilder d;
        d.AppendString("new", "$$ROOT");
        default_let = std::move(d).Finish();
        let_spec = default_let;
      }
      for (const bson::Element& e : let_spec) {
        QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expr, Expression::Parse(e.value, parse));
        QUARRY_ASSIGN_OR_RETURN(Value v, expr->Evaluate(eval));
        let.OpenDocument(e.key);
        v.AppendTo("$literal", &let);
        let.Close();
      }
      bson::Document let_doc = std::move(let).Finish();
      UpdateOptions options;
      options.let = let_doc;
      QUARRY_ASSIGN_OR_RETURN(UpdateSpec update,
                              UpdateSpec::ParsePipeline(spec.when_matched_pipeline, options));
      QUARRY_ASSIGN_OR_RETURN(UpdateResult result, update.Apply(existing, MatchDetails{}, false));
      return std::move(result.new_doc);
    }
    case MergeSpec::WhenMatched::kFail:
      break;
  }
  return Status(ErrorCode::kDuplicateKey, "$merge failed: a document with this key exists");
}

}  // namespace quarry::query
