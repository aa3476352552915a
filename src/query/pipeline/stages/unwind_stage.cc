// $unwind: one output document per element of an array field.
#include <optional>

#include "bson/path.h"
#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

using bson::Type;

// The value at a dotted path, without traversing arrays (as $unwind reads its path).
bson::ValueView GetPlainPath(bson::DocumentView doc, std::string_view path) {
  bson::ValueView current(Type::kDocument, doc.data(), doc.size());
  for (const bson::PathComponent& part : bson::PathComponents(path)) {
    if (current.type() != Type::kDocument) return bson::ValueView();
    current = current.Document().Get(part.name);
    if (!current.exists()) return current;
  }
  return current;
}

class UnwindStage final : public Stage {
 public:
  UnwindStage(bson::ValueView spec, std::string path, std::string index_field, bool preserve)
      : Stage(spec),
        path_(std::move(path)),
        index_field_(std::move(index_field)),
        preserve_(preserve) {}
  std::string_view name() const override { return "$unwind"; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext&) const override {
    auto self = std::static_pointer_cast<const UnwindStage>(shared_from_this());
    return std::unique_ptr<DocumentStream>(
        std::make_unique<Stream>(std::move(self), std::move(input)));
  }

 private:
  class Stream final : public DocumentStream {
   public:
    Stream(std::shared_ptr<const UnwindStage> stage, std::unique_ptr<DocumentStream> input)
        : stage_(std::move(stage)), input_(std::move(input)) {}

    StatusWith<bool> Next(bson::Document* out) override {
      while (true) {
        if (current_.has_value() && element_ < elements_.size()) {
          *out = Emit(elements_[element_], Value::Int64(static_cast<std::int64_t>(element_)));
          ++element_;
          return true;
        }
        current_.reset();
        bson::Document doc;
        QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(&doc));
        if (!more) return false;
        bson::ValueView v = GetPlainPath(doc, stage_->path_);
        if (v.type() == Type::kArray && !v.Document().empty()) {
          current_ = std::move(doc);
          elements_.clear();
          element_ = 0;
          Value array = Value::Unowned(GetPlainPath(*current_, stage_->path_));
          for (const bson::Element& e : array.view().Document()) {
            elements_.push_back(array.Child(e.value));
          }
          continue;
        }
        if (v.type() == Type::kArray || !v.exists() || v.IsNullish()) {
          if (!stage_->preserve_) continue;
          // Kept as is ([] and null stay; a missing field stays missing).
          if (stage_->index_field_.empty()) {
            *out = std::move(doc);
          } else {
            MutableValue edited = MutableValue::OfDocument(doc);
            SetPath(&edited, stage_->index_field_, Value::Null());
            *out = edited.ToDocument();
          }
          return true;
        }
        // A non-array value unwinds to itself.
        current_ = std::move(doc);
        elements_.assign(1, Value::Unowned(GetPlainPath(*current_, stage_->path_)));
        element_ = 0;
        if (!stage_->index_field_.empty()) {
          *out = Emit(elements_[0], Value::Null());
          element_ = 1;
          return true;
        }
        *out = std::move(*current_);
        current_.reset();
        return true;
      }
    }

    const DocumentMetadata& metadata() const override { return input_->metadata(); }

   private:
    bson::Document Emit(const Value& element, const Value& index) {
      MutableValue edited = MutableValue::OfDocument(*current_);
      SetPath(&edited, stage_->path_, element);
      if (!stage_->index_field_.empty()) SetPath(&edited, stage_->index_field_, index);
      return edited.ToDocument();
    }

    std::shared_ptr<const UnwindStage> stage_;
    std::unique_ptr<DocumentStream> input_;
    std::optional<bson::Document> current_;
    std::vector<Value> elements_;
    std::size_t element_ = 0;
  };

  std::string path_;
  std::string index_field_;
  bool preserve_;
};

}  // namespace

StatusWith<StageList> ParseUnwindStage(bson::ValueView spec, StageParseContext&) {
  std::string path;
  std::string index_field;
  bool preserve = false;
  if (spec.type() == Type::kString) {
    QUARRY_ASSIGN_OR_RETURN(path, ParseDollarPath(spec, 28818,
                                                  "path option to $unwind stage should be "
                                                  "prefixed with a '$': " +
                                                      std::string(spec.String())));
  } else if (spec.type() == Type::kDocument) {
    bool has_path = false;
    for (const bson::Element& e : spec.Document()) {
      if (e.key == "path") {
        if (e.value.type() != Type::kString) {
          return LocationError(28808, "expected a string as the path for $unwind stage, got " +
                                          std::string(TypeName(e.value)));
        }
        QUARRY_ASSIGN_OR_RETURN(path, ParseDollarPath(e.value, 28818,
                                                      "path option to $unwind stage should be "
                                                      "prefixed with a '$': " +
                                                          std::string(e.value.String())));
        has_path = true;
      } else if (e.key == "includeArrayIndex") {
        if (e.value.type() != Type::kString) {
          return LocationError(28810,
                               "expected a non-empty string for the includeArrayIndex "
                               " option to $unwind stage, got " +
                                   std::string(TypeName(e.value)));
        }
        index_field = std::string(e.value.String());
        if (index_field.empty()) {
          return LocationError(28810,
                               "expected a non-empty string for the includeArrayIndex "
                               " option to $unwind stage, got string");
        }
        if (index_field[0] == '$') {
          return LocationError(28822,
                               "includeArrayIndex option to $unwind stage should not be "
                               "prefixed with a '$': " +
                                   index_field);
        }
      } else if (e.key == "preserveNullAndEmptyArrays") {
        if (e.value.type() != Type::kBool) {
          return LocationError(28809,
                               "expected a boolean for the preserveNullAndEmptyArrays "
                               "option to $unwind stage, got " +
                                   std::string(TypeName(e.value)));
        }
        preserve = e.value.Bool();
      } else {
        return LocationError(28811, "unrecognized option to $unwind stage: " + std::string(e.key));
      }
    }
    if (!has_path) return LocationError(28812, "no path specified to $unwind stage");
  } else {
    return LocationError(15981,
                         "expected either a string or an object as specification for "
                         "$unwind stage, got " +
                             std::string(TypeName(spec)));
  }
  return StageList{
      std::make_shared<UnwindStage>(spec, std::move(path), std::move(index_field), preserve)};
}

}  // namespace quarry::query::stages
