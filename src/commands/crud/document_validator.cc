#include "commands/crud/document_validator.h"

#include "base/log.h"
#include "bson/builder.h"

namespace quarry::commands {

Status CheckValidatorFilter(bson::DocumentView validator) {
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(validator));
  if (matcher.text_search() != nullptr) {
    return Status(ErrorCode::kBadValue, "$text is not allowed in this context");
  }
  return Status::OK();
}

StatusWith<std::optional<DocumentValidator>> DocumentValidator::ForCollection(
    bson::DocumentView options, bool bypass) {
  bson::ValueView validator = options.Get("validator");
  if (bypass || validator.type() != bson::Type::kDocument || validator.Document().empty()) {
    return std::optional<DocumentValidator>();
  }
  bson::ValueView level = options.Get("validationLevel");
  if (level.type() == bson::Type::kString && level.String() == "off") {
    return std::optional<DocumentValidator>();
  }
  bson::ValueView action = options.Get("validationAction");
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(validator.Document()));
  if (matcher.text_search() != nullptr) {
    return Status(ErrorCode::kBadValue, "$text is not allowed in this context");
  }
  return std::optional<DocumentValidator>(DocumentValidator(
      std::move(matcher), level.type() == bson::Type::kString && level.String() == "moderate",
      action.type() == bson::Type::kString && action.String() == "warn"));
}

Status DocumentValidator::Check(bson::DocumentView doc, const bson::DocumentView* before) const {
  if (matcher_.Matches(doc)) return Status::OK();
  if (moderate_ && before != nullptr && !matcher_.Matches(*before)) return Status::OK();
  if (warn_) {
    log::Write(log::Severity::kWarning, "STORAGE", 20294, "conn", "Document would fail validation",
               {{"document", doc.ToJson()}});
    return Status::OK();
  }
  bson::DocumentBuilder extra;
  extra.OpenDocument("errInfo");
  extra.Append("failingDocumentId", doc.Get("_id"));
  extra.OpenDocument("details")
      .AppendString("operatorName", "$and")
      .AppendDocument("specifiedAs", matcher_.filter())
      .AppendString("reason", "the document does not match the collection's validator")
      .Close();
  extra.Close();
  return Status(ErrorCode::kDocumentValidationFailure, "Document failed validation")
      .WithExtraInfo(std::move(extra).FinishBytes());
}

}  // namespace quarry::commands
