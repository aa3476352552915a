// $facet: several sub-pipelines over the same input, each producing one array field of a single
// output document (the pagination pattern {metadata: [{$count: ...}], data: [{$skip}, {$limit}]}).
#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

// The documents $facet read, with their metadata (a $text search's scores), which every facet
// reads again.
struct Buffered {
  bson::Document doc;
  DocumentMetadata metadata;
};

class BufferedStream final : public DocumentStream {
 public:
  explicit BufferedStream(std::shared_ptr<const std::vector<Buffered>> docs)
      : docs_(std::move(docs)) {}
  StatusWith<bool> Next(bson::Document* out) override {
    if (next_ >= docs_->size()) return false;
    *out = bson::Document::Copy((*docs_)[next_].doc.view());
    metadata_ = &(*docs_)[next_++].metadata;
    return true;
  }
  const DocumentMetadata& metadata() const override {
    return metadata_ != nullptr ? *metadata_ : DocumentStream::metadata();
  }

 private:
  std::shared_ptr<const std::vector<Buffered>> docs_;
  std::size_t next_ = 0;
  const DocumentMetadata* metadata_ = nullptr;
};

class FacetStage final : public Stage {
 public:
  FacetStage(bson::ValueView spec, std::vector<std::pair<std::string, Pipeline>> facets)
      : Stage(spec), facets_(std::move(facets)) {}
  std::string_view name() const override { return "$facet"; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext& run) const override {
    auto self = std::static_pointer_cast<const FacetStage>(shared_from_this());
    return std::unique_ptr<DocumentStream>(
        std::make_unique<Stream>(std::move(self), std::move(input), run));
  }

 private:
  class Stream final : public DocumentStream {
   public:
    Stream(std::shared_ptr<const FacetStage> stage, std::unique_ptr<DocumentStream> input,
           const RunContext& run)
        : stage_(std::move(stage)), input_(std::move(input)), run_(run) {}

    StatusWith<bool> Next(bson::Document* out) override {
      if (done_) return false;
      done_ = true;
      const std::size_t limit =
          run_.pipeline != nullptr ? run_.pipeline->max_memory_bytes : SIZE_MAX;
      auto docs = std::make_shared<std::vector<Buffered>>();
      std::size_t bytes = 0;
      while (true) {
        bson::Document doc;
        QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(&doc));
        if (!more) break;
        bytes += doc.size();
        if (bytes > limit) {
          return Status(ErrorCode::kExceededMemoryLimit, "$facet exceeded the memory limit of " +
                                                             std::to_string(limit) +
                                                             " bytes for its input");
        }
        docs->push_back(Buffered{std::move(doc), input_->metadata()});
      }
      bson::DocumentBuilder result;
      for (const auto& [name, pipeline] : stage_->facets_) {
        QUARRY_ASSIGN_OR_RETURN(
            std::unique_ptr<DocumentStream> facet,
            pipeline.Run(std::make_unique<BufferedStream>(docs), run_.variables));
        result.OpenArray(name);
        std::size_t index = 0;
        while (true) {
          bson::Document doc;
          QUARRY_ASSIGN_OR_RETURN(bool more, facet->Next(&doc));
          if (!more) break;
          result.AppendDocument(std::to_string(index++), doc);
          if (result.size() > 16 * 1024 * 1024) {
            return Status(ErrorCode::kBSONObjectTooLarge,
                          "document constructed by $facet is larger than 16777216 bytes");
          }
        }
        result.Close();
      }
      *out = std::move(result).Finish();
      return true;
    }

   private:
    std::shared_ptr<const FacetStage> stage_;
    std::unique_ptr<DocumentStream> input_;
    RunContext run_;
    bool done_ = false;
  };

  std::vector<std::pair<std::string, Pipeline>> facets_;
};

bool AllowedInFacet(std::string_view stage) {
  return stage != "$out" && stage != "$merge" && stage != "$facet" && stage != "$documents" &&
         stage != "$vectorSearch" && stage != "$search" && stage != "$searchMeta";
}

}  // namespace

StatusWith<StageList> ParseFacetStage(bson::ValueView spec, StageParseContext& ctx) {
  if (spec.type() != bson::Type::kDocument) {
    return LocationError(15947, "the $facet specification must be an object, but found: " +
                                    std::string(TypeName(spec)));
  }
  if (spec.Document().empty()) {
    return LocationError(40169, "the $facet specification must be a non-empty object");
  }
  std::vector<std::pair<std::string, Pipeline>> facets;
  for (const bson::Element& e : spec.Document()) {
    if (e.key.empty() || e.key[0] == '$' || e.key.find('.') != std::string_view::npos) {
      return LocationError(40352, "$facet field name '" + std::string(e.key) + "' is not valid");
    }
    if (e.value.type() != bson::Type::kArray) {
      return LocationError(40170, "arguments to $facet must be arrays, " + std::string(e.key) +
                                      " is type " + std::string(TypeName(e.value)));
    }
    for (const bson::Element& stage : e.value.Document()) {
      if (stage.value.type() == bson::Type::kDocument &&
          !AllowedInFacet(stage.value.Document().FirstKey())) {
        return LocationError(40600, std::string(stage.value.Document().FirstKey()) +
                                        " is not allowed to be used within a $facet stage");
      }
    }
    QUARRY_ASSIGN_OR_RETURN(Pipeline pipeline,
                            Pipeline::Parse(e.value.Document(), ctx.pipeline, ctx.expressions));
    facets.emplace_back(std::string(e.key), std::move(pipeline));
  }
  return StageList{std::make_shared<FacetStage>(spec, std::move(facets))};
}

}  // namespace quarry::query::stages
