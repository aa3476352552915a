#include "commands/strict_document.h"

#include <string>

#include "bson/types.h"

namespace quarry::commands {

Status WrongFieldType(std::string_view path, bson::ValueView value, std::string_view type_name) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(path) +
                                              "' is the wrong type '" +
                                              std::string(bson::TypeAlias(value.type())) +
                                              "', expected type '" + std::string(type_name) + "'");
}

Status CheckStrictDocument(bson::DocumentView document, std::string_view path,
                           std::initializer_list<StrictField> fields) {
  const std::string prefix = std::string(path) + ".";
  for (const bson::Element& e : document) {
    const StrictField* field = nullptr;
    for (const StrictField& f : fields) {
      if (f.name == e.key) field = &f;
    }
    if (field == nullptr) {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '" + prefix + std::string(e.key) + "' is an unknown field.");
    }
    if (e.value.type() != field->type) {
      return WrongFieldType(prefix + std::string(e.key), e.value, field->type_name);
    }
  }
  for (const StrictField& f : fields) {
    if (f.required && !document.Get(f.name).exists()) {
      return Status(ErrorCode::kLocation40414, "BSON field '" + prefix + std::string(f.name) +
                                                   "' is missing but a required field");
    }
  }
  return Status::OK();
}

}  // namespace quarry::commands
