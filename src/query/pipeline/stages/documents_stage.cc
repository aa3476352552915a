// $documents (documents given in the pipeline itself) and $sample (a random sample).
#include <random>

#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

using bson::Type;

class DocumentsStage final : public Stage {
 public:
  DocumentsStage(bson::ValueView spec, ExpressionPtr docs) : Stage(spec), docs_(std::move(docs)) {}
  std::string_view name() const override { return "$documents"; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream>,
                                                   const RunContext& run) const override {
    EvalContext ctx = run.variables;
    ctx.SetRoot(Value::FromDocument(bson::Document()));
    QUARRY_ASSIGN_OR_RETURN(Value array, docs_->Evaluate(ctx));
    if (!array.IsArray()) {
      return LocationError(5858203,
                           "error during $documents stage: $documents requires an "
                           "array of documents, found: " +
                               std::string(TypeName(array)));
    }
    std::vector<bson::Document> docs;
    for (const bson::Element& e : array.view().Document()) {
      if (e.value.type() != Type::kDocument) {
        return LocationError(5858204,
                             "error during $documents stage: $documents requires an "
                             "array of documents, found element of type: " +
                                 std::string(TypeName(e.value)));
      }
      docs.push_back(bson::Document::Copy(e.value.Document()));
    }
    return StreamOfDocuments(std::move(docs));
  }

 private:
  ExpressionPtr docs_;
};

class SampleStage final : public Stage {
 public:
  SampleStage(bson::ValueView spec, std::int64_t size) : Stage(spec), size_(size) {}
  std::string_view name() const override { return "$sample"; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext&) const override {
    class Stream final : public DocumentStream {
     public:
      Stream(std::unique_ptr<DocumentStream> input, std::int64_t size)
          : input_(std::move(input)), size_(static_cast<std::size_t>(size)) {}
      StatusWith<bool> Next(bson::Document* out) override {
        if (!loaded_) {
          loaded_ = true;
          std::mt19937_64 rng{std::random_device{}()};
          std::size_t seen = 0;
          while (true) {
            bson::Document doc;
            QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(&doc));
            if (!more) break;
            ++seen;
            if (sample_.size() < size_) {
              sample_.push_back(std::move(doc));
            } else {
              std::size_t j = std::uniform_int_distribution<std::size_t>(0, seen - 1)(rng);
              if (j < size_) sample_[j] = std::move(doc);
            }
          }
          std::shuffle(sample_.begin(), sample_.end(), rng);
        }
        if (next_ >= sample_.size()) return false;
        *out = std::move(sample_[next_++]);
        return true;
      }

     private:
      std::unique_ptr<DocumentStream> input_;
      std::size_t size_;
      std::vector<bson::Document> sample_;
      std::size_t next_ = 0;
      bool loaded_ = false;
    };
    return std::unique_ptr<DocumentStream>(std::make_unique<Stream>(std::move(input), size_));
  }

 private:
  std::int64_t size_;
};

}  // namespace

StatusWith<StageList> ParseDocumentsStage(bson::ValueView spec, StageParseContext& ctx) {
  if (!ctx.is_first_stage) {
    return LocationError(40602, "$documents is only valid as the first stage in a pipeline");
  }
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr docs, Expression::Parse(spec, *ctx.expressions));
  return StageList{std::make_shared<DocumentsStage>(spec, std::move(docs))};
}

StatusWith<StageList> ParseSampleStage(bson::ValueView spec, StageParseContext&) {
  if (spec.type() != Type::kDocument) {
    return LocationError(28745, "the $sample stage specification must be an object");
  }
  std::int64_t size = -1;
  for (const bson::Element& e : spec.Document()) {
    if (e.key != "size") {
      return LocationError(28748, "unrecognized option to $sample: " + std::string(e.key));
    }
    if (!e.value.IsNumber())
      return LocationError(28746, "size argument to $sample must be a number");
    size = e.value.AsInt64();
    if (size < 0) return LocationError(28747, "size argument to $sample must not be negative");
  }
  if (size < 0) return LocationError(28749, "$sample stage must specify a size");
  return StageList{std::make_shared<SampleStage>(spec, size)};
}

}  // namespace quarry::query::stages
