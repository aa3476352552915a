// Schema validation: a collection's `validator` (a query filter, $jsonSchema included) checked
// against every document an insert or update writes, with validationLevel and
// validationAction as mongod applies them.
#pragma once

#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "query/match/matcher.h"

namespace quarry::commands {

// A validator filter as create and collMod check it: it must parse, and may not hold $text,
// which only a text index answers (2, mongod's "$text is not allowed in this context").
Status CheckValidatorFilter(bson::DocumentView validator);

class DocumentValidator {
 public:
  // The validator of a collection with these options, or nullopt when there is nothing to
  // check (no validator, validationLevel "off", or bypassDocumentValidation).
  static StatusWith<std::optional<DocumentValidator>> ForCollection(bson::DocumentView options,
                                                                    bool bypass);

  // DocumentValidationFailure (121) with errInfo {failingDocumentId, details}, or OK.
  // `before` is the document an update replaces (null for inserts): under validationLevel
  // "moderate", updates to documents that were already invalid are not checked.
  Status Check(bson::DocumentView doc, const bson::DocumentView* before = nullptr) const;

 private:
  DocumentValidator(query::Matcher matcher, bool moderate, bool warn)
      : matcher_(std::move(matcher)), moderate_(moderate), warn_(warn) {}
  query::Matcher matcher_;
  bool moderate_;
  bool warn_;
};

}  // namespace quarry::commands
