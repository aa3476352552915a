// Helpers shared by stages: the one-document-at-a-time stream, path setting, and spec parsing.
#include "bson/path.h"
#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

class TransformStream final : public DocumentStream {
 public:
  TransformStream(std::shared_ptr<const TransformStage> stage,
                  std::unique_ptr<DocumentStream> input, EvalContext ctx)
      : stage_(std::move(stage)), input_(std::move(input)), ctx_(std::move(ctx)) {}

  StatusWith<bool> Next(bson::Document* out) override {
    while (true) {
      QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(out));
      if (!more) return false;
      ctx_.set_metadata(&input_->metadata());
      QUARRY_ASSIGN_OR_RETURN(bool keep, stage_->Transform(out, ctx_));
      if (keep) return true;
    }
  }

  const DocumentMetadata& metadata() const override { return input_->metadata(); }

 private:
  std::shared_ptr<const TransformStage> stage_;
  std::unique_ptr<DocumentStream> input_;
  EvalContext ctx_;
};

}  // namespace

StatusWith<std::unique_ptr<DocumentStream>> TransformStage::Open(
    std::unique_ptr<DocumentStream> input, const RunContext& run) const {
  auto self = std::static_pointer_cast<const TransformStage>(shared_from_this());
  return std::unique_ptr<DocumentStream>(
      std::make_unique<TransformStream>(std::move(self), std::move(input), run.variables));
}

Value TakeAsValue(bson::Document* doc) { return Value::FromDocument(std::move(*doc)); }

void SetPath(MutableValue* doc, std::string_view path, Value value) {
  MutableValue* node = doc;
  for (const bson::PathComponent& part : bson::PathComponents(path)) {
    if (part.is_last) {
      if (value.missing()) {
        node->Remove(part.name);
      } else {
        node->SetField(part.name, MutableValue(std::move(value)));
      }
      return;
    }
    MutableValue* next = node->Find(part.name);
    if (next == nullptr) {
      if (value.missing()) return;
      next = node->Append(part.name, MutableValue::NewDocument());
    } else if (!next->IsDocument()) {
      if (value.missing()) return;
      *next = MutableValue::NewDocument();
    }
    node = next;
  }
}

StatusWith<std::string> ParseDollarPath(bson::ValueView spec, int code,
                                        const std::string& message) {
  if (spec.type() != bson::Type::kString || spec.String().size() < 2 || spec.String()[0] != '$' ||
      spec.String()[1] == '$') {
    return LocationError(code, message);
  }
  return std::string(spec.String().substr(1));
}

StatusWith<OutTarget> ParseNamespaceSpec(std::string_view stage, bson::ValueView spec,
                                         const std::string& default_db) {
  OutTarget target;
  target.db = default_db;
  if (spec.type() == bson::Type::kString) {
    target.coll = std::string(spec.String());
  } else if (spec.type() == bson::Type::kDocument) {
    for (const bson::Element& e : spec.Document()) {
      if (e.key == "db" && e.value.type() == bson::Type::kString) {
        target.db = std::string(e.value.String());
      } else if (e.key == "coll" && e.value.type() == bson::Type::kString) {
        target.coll = std::string(e.value.String());
      } else {
        return Status(ErrorCode::kLocation40415, "BSON field '" + std::string(stage) + "." +
                                                     std::string(e.key) + "' is an unknown field.");
      }
    }
  } else {
    return LocationError(13111, std::string(stage) + " requires a string or an object argument");
  }
  if (target.coll.empty()) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Invalid " + std::string(stage) + " target namespace: '" + target.db + ".'");
  }
  return target;
}

}  // namespace quarry::query::stages
